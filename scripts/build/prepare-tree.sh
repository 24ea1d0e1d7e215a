#!/bin/bash
# make tree: make build/src, the base with the postings and our layer applied.
#
# Make build/src: a git repository whose first commit is the pristine base
# (tag "base") with the series applied on top by git am: for 7.3 the postings
# of patches/ in the order patches/postings gives, each ending at a branch
# posting/NAME, then the check layer (checks/layer/); for 6.12 the tested
# branch (branches/6.12/).
#
# An existing build/src is kept when it already holds exactly the series in
# patches/. It is rebuilt when it is behind patches/ (say, after git pull).
# It is never rebuilt over commits that were not exported to patches/
# unless FORCE=1 is set.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

tarball=$BUILD/cache/$(basename "$BASE_TARBALL")
[ -f "$tarball" ] || die "no base tarball: run scripts/build/fetch-base.sh (make perf does)"
base_sha=$(sed -n 's/^tarball_sha256=//p' "$BUILD/cache/base-used.txt")

make_base() {
	local tmp=$SRC.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "extracting the base tree (~15-40 s, ~50 MB)"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 "${BASE_PATHS[@]/#/$BASE_TOPDIR/}"
	git -C "$tmp" init -q -b main
	git -C "$tmp" config perf-series.base-sha256 "$base_sha"
	git -C "$tmp" add -A
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$tmp" commit -q -m "base: $BASE_PACKAGE ($(sed -n 's/^version=//p' "$BUILD/cache/base-used.txt"))"
	git -C "$tmp" tag base
	rm -rf "$SRC"
	mv "$tmp" "$SRC"
}

apply_series() {
	local d p n=0 name
	git -C "$SRC" checkout -q main 2>/dev/null || true
	git -C "$SRC" reset -q --hard base
	for d in $(series_dirs); do
		for p in $(dir_patches "$d"); do
			n=$((n + 1))
			[ -f "$TOP/$p" ] || die "$d/series names $(basename "$p"), which is not there"
			if ! git -C "$SRC" am -q --committer-date-is-author-date "$TOP/$p" >/dev/null 2>&1; then
				git -C "$SRC" am --abort >/dev/null 2>&1 || true
				die "patch $n ($p) does not apply: refresh it against 'base' in $SRC_NAME"
			fi
		done
		# A branch at the last commit of each posting: make export
		# writes each posting's commits back to its folder.
		name=${d#"$SERIES_DIR"/}
		if [ "$d" != "$SERIES_DIR" ] && [ "$d" != "$LAYER_DIR" ]; then
			git -C "$SRC" branch -f "posting/$name" HEAD
		fi
	done
	say "$SRC_NAME: base + $n patches ($(series_dirs | wc -l) folders)"
}

if [ ! -d "$SRC/.git" ] || ! git -C "$SRC" rev-parse -q --verify base >/dev/null; then
	make_base
	apply_series
	exit 0
fi

if [ "$(git -C "$SRC" config perf-series.base-sha256 || true)" != "$base_sha" ]; then
	[ "${FORCE:-0}" = 1 ] || die "$SRC_NAME was made from another base tarball: 'make tree FORCE=1' rebuilds it (unexported commits are lost)"
	make_base
	apply_series
	exit 0
fi

tree_ids=$(tree_patch_ids "$SRC")
file_ids=$(series_patch_ids)
if [ "$tree_ids" = "$file_ids" ] && [ "${REBUILD:-0}" != 1 ]; then
	exit 0
fi

if [ "${FORCE:-0}" != 1 ]; then
	if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
		die "$SRC_NAME has uncommitted changes: commit them and 'make export', or 'make tree FORCE=1' to discard them"
	fi
	unexported="$SRC_NAME has commits that are not in $PATCHES_NAME: 'make export' them first, or 'make tree FORCE=1' to discard them"
	# A commit with no diff has no patch-id: count the commits as well.
	[ "$(git -C "$SRC" rev-list --count base..HEAD)" -le "$(series_patches | wc -l)" ] ||
		die "$unexported"
	for id in $tree_ids; do
		grep -qx "$id" <<<"$file_ids" || die "$unexported"
	done
fi
apply_series
