#!/bin/bash
# make export: write build/src's commits back to patches/ and checks/layer/.
#
# Write the commits base..HEAD of build/src back to their folders as git
# format-patch files, each folder with its series file.
#
# For 7.3 the commits of each posting end at the branch posting/NAME that
# scripts/build/prepare-tree.sh makes (move it with the posting's last commit, for
# example with 'git rebase -i --update-refs'); the postings go to
# patches/NAME/ in the order patches/postings gives, the commits after the
# last posting to the check layer, checks/layer/. Each posting's commits
# are picked again onto the tree it declares, the base with the patch
# files of the postings it needs first (patches/postings), and written
# from there: a posting that does not apply there stops the export,
# naming it. For 6.12 every commit goes to branches/6.12/.
#
# The output is stable: exporting the same commits again changes no byte
# (zero commit ids, no git version). A folder's hand-written cover letter,
# 0000-cover-letter.patch, is kept; notes for reviewers in its notes/ go
# below each patch's '---'; its series file keeps its "# subject-prefix:"
# line, the [PATCH ...] prefix of its subjects.
#
# AUTHOR="Name <mail>" writes the postings for whoever sends them instead:
# to build/outgoing/, with that person as From: and Signed-off-by: in place
# of the project's identity (the Developer's Certificate of Origin needs a
# person). AUTHOR=git takes git's user.name and user.email.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ -d "$SRC/.git" ] || die "no $SRC_NAME: run 'make tree' first"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
	say "warning: $SRC_NAME has uncommitted changes; they are not exported"
fi

author=${AUTHOR:-}
if [ "$author" = git ]; then
	author="$(git config user.name) <$(git config user.email)>"
fi
out_top=$TOP
if [ -n "$author" ]; then
	grep -qE '^[^<>]+ <[^<>@ ]+@[^<> ]+>$' <<<"$author" || die "AUTHOR must be \"Name <mail>\", not \"$author\""
	out_top=$BUILD/outgoing
	rm -rf "$out_top"
fi
project="$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The kernel's scripts/get_maintainer.pl (from the base tarball, cached) gives
# each posting its To: (maintainers) and Cc: (the rest, and a folder's own
# list in its file "cc"), from build/src's MAINTAINERS, without git history.
get_maintainer=$BUILD/cache/get_maintainer.pl
if [ ! -f "$get_maintainer" ] && [ -f "$BUILD/cache/$(basename "$BASE_TARBALL")" ]; then
	say "extracting scripts/get_maintainer.pl from the base tarball (~20 s, once)"
	tar -xJf "$BUILD/cache/$(basename "$BASE_TARBALL")" -O \
		"$BASE_TOPDIR/scripts/get_maintainer.pl" >"$get_maintainer.tmp" &&
		mv "$get_maintainer.tmp" "$get_maintainer"
fi
# Prints the To: and Cc: header lines for the patch files given.
addresses() { # PATCH...
	local out
	[ -f "$get_maintainer" ] || return 0
	out=$(cd "$SRC" && perl "$get_maintainer" --nogit --nogit-fallback --no-tree --nofixes --nokeywords \
		--rolestats "$@" 2>/dev/null) || return 0
	# A stable posting (a base of its own: BASE_STABLE) goes to stable,
	# with everyone get_maintainer.pl names on copy.
	if [ "${BASE_STABLE:-no}" = yes ]; then
		echo "To: stable@vger.kernel.org"
		{
			sed 's/ (.*//' <<<"$out"
			[ ! -f "$cc_file" ] || grep -v '^#' "$cc_file"
		} | grep . | paste -sd, - | sed 's/,/, /g; s/^/Cc: /'
		return 0
	fi
	sed -n 's/ (maintainer:.*//p' <<<"$out" | paste -sd, - | sed 's/,/, /g; s/^/To: /'
	{
		grep -v '(maintainer:' <<<"$out" | sed 's/ (.*//'
		[ ! -f "$cc_file" ] || grep -v '^#' "$cc_file"
	} | grep . | paste -sd, - | sed 's/,/, /g; s/^/Cc: /'
}

# Export the commits FROM..TO to folder DIR (relative to TOP).
export_range() { # FROM TO DIR
	local from=$1 to=$2 dir=$3 prefix p note n=0 out shortlog_name
	out=$out_top/$dir
	[ -n "$(git -C "$SRC" rev-list "$from..$to")" ] || die "$dir: no commits in $from..$to"
	prefix=$(sed -n 's/^# subject-prefix: //p' "$TOP/$dir/series" 2>/dev/null | head -1) || true
	prefix=${prefix:-$SERIES_SUBJECT_PREFIX}
	rm -rf "$tmp/out"
	git -C "$SRC" format-patch -q --zero-commit --no-signature \
		--subject-prefix="$prefix" -o "$tmp/out" "$from..$to"
	mkdir -p "$out"
	find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' -delete
	[ "$out" = "$TOP/$dir" ] || [ ! -f "$TOP/$dir/0000-cover-letter.patch" ] ||
		cp "$TOP/$dir/0000-cover-letter.patch" "$out/"
	# A cover letter ends with its patches' shortlog and diffstat, as git
	# format-patch --cover-letter writes them: made again at each export.
	if [ -f "$out/0000-cover-letter.patch" ]; then
		shortlog_name=$GIT_AUTHOR_NAME
		[ -z "$author" ] || shortlog_name=${author% <*}
		sed -i '/^---$/,$d' "$out/0000-cover-letter.patch"
		{
			echo "---"
			echo
			git -C "$SRC" shortlog "$from..$to" |
				sed "s|^$GIT_AUTHOR_NAME (|${shortlog_name} (|"
			git -C "$SRC" diff --stat=72 "$from..$to"
		} >>"$out/0000-cover-letter.patch"
	fi
	{
		echo "# The patches of $dir, in the order git am applies them (scripts/build/export-series.sh)."
		echo "# subject-prefix: $prefix"
		for p in "$tmp"/out/*.patch; do
			# A note for reviewers (notes/NAME.txt, NAME without the
			# number) goes below the '---' line, which git am ignores.
			note=$TOP/$dir/notes/$(basename "$p" .patch | cut -d- -f2-).txt
			if [ -f "$note" ]; then
				sed -i "0,/^---\$/{/^---\$/r $note
}" "$p"
			fi
			if [ -n "$author" ]; then
				# git folds a long From: line after the name.
				sed -i -e "/^From: $GIT_AUTHOR_NAME\$/{N;s|^From: .*\\n <$GIT_AUTHOR_EMAIL>\$|From: $author|}" \
					-e "s|^From: $project\$|From: $author|" \
					-e "s|^Signed-off-by: $project\$|Signed-off-by: $author|" "$p"
				[ ! -f "$out/0000-cover-letter.patch" ] ||
					sed -i "s|^From: $project\$|From: $author|" "$out/0000-cover-letter.patch"
			fi
			cp "$p" "$out/"
			basename "$p"
			n=$((n + 1))
		done
	} >"$out/series.tmp"
	mv "$out/series.tmp" "$out/series"
	# A posting's headers: the addresses, in every patch and the cover.
	if [ "$dir" != "$LAYER_DIR" ] && [ "$dir" != "$SERIES_DIR" ]; then
		cc_file=$TOP/$dir/cc
		addresses "$out"/[0-9][0-9][0-9][0-9]-*.patch >"$tmp/addr"
		# Its base, below the '---' of a posting without a cover letter,
		# and the posting it needs first (postings' third column), by
		# the subject of its first patch.
		base_version= needs=
		read -r base_version needs < <(awk -v d="${dir#"$SERIES_DIR"/}" '$1 == d { print $2, $3 }' "$PATCHES/postings") || true
		if [ ! -f "$out/0000-cover-letter.patch" ] && [ -n "$base_version" ]; then
			based="Based on v$base_version"
			if [ -n "$needs" ] && [ "$needs" != - ]; then
				# Each posting it needs (names joined by commas), a
				# series by its cover letter.
				sep=" with"
				for need in $(posting_needs "${dir#"$SERIES_DIR"/}"); do
					needs_first=$(ls "$TOP/$SERIES_DIR/$need"/0000-cover-letter.patch 2>/dev/null ||
						ls "$TOP/$SERIES_DIR/$need"/0001-*.patch)
					needs_subject=$(awk '/^Subject: / { s = $0; getline
						while ($0 ~ /^ /) { s = s $0; getline }
						sub(/^Subject: \[[^]]*\] /, "", s); print s; exit }' "$needs_first")
					[ -n "$needs_subject" ] || die "no subject for $need, which ${dir##*/} needs first"
					case $needs_first in
					*/0000-cover-letter.patch) based="$based$sep the series \"$needs_subject\"" ;;
					*) based="$based$sep \"$needs_subject\"" ;;
					esac
					sep=" and"
				done
				based="$based applied"
			fi
			for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
				awk -v line="$based." '!done && $0 == "---" { print; print line; done = 1; next } { print }' \
					"$p" >"$p.tmp" && mv "$p.tmp" "$p"
			done
		fi
		for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
			# Drop old To:/Cc: lines (with their folded continuations),
			# then put the new ones after the Subject: header.
			awk -v addr="$tmp/addr" '
				!done && /^(To|Cc): / { skip = 1; next }
				skip && /^ / { next }
				{ skip = 0 }
				!done && /^$/ { while ((getline l < addr) > 0) print l; done = 1 }
				{ print }' "$p" >"$p.tmp"
			mv "$p.tmp" "$p"
		done
	fi
	say "exported $n patches to ${out#"$TOP"/}/"
}

if [ -f "$PATCHES/postings" ]; then
	# Each posting is written from its own commits made again on the tree
	# it declares (the base and the patch files just exported of what it
	# needs first), so that its index lines and context are that tree's,
	# wherever it lies in BUILD/src's stack.
	wt=$BUILD/trees/export
	prev=base
	for name in $(postings); do
		ref=posting/$name
		git -C "$SRC" rev-parse -q --verify "refs/heads/$ref" >/dev/null ||
			die "$SRC_NAME has no branch $ref: 'make tree' makes one per posting"
		git -C "$SRC" merge-base --is-ancestor "$prev" "$ref" ||
			die "$SRC_NAME: $ref does not follow $prev (the order of patches/postings)"
		declared_tree "$name" "$wt" ||
			die "$name: the postings it needs first do not apply on the base"
		from=$(git -C "$wt" rev-parse HEAD)
		if ! git -C "$wt" cherry-pick "$prev..$ref" >"$tmp/pick.log" 2>&1; then
			git -C "$wt" cherry-pick --abort >/dev/null 2>&1 || true
			die "$name: its commits do not apply on the base with only what it needs first ($(posting_needs "$name" | paste -sd, -)): declare the missing need in patches/postings, or fix the order ($(grep -m1 CONFLICT "$tmp/pick.log" || tail -1 "$tmp/pick.log"))"
		fi
		export_range "$from" "$(git -C "$wt" rev-parse HEAD)" "$SERIES_DIR/$name"
		prev=$ref
	done
	git -C "$SRC" merge-base --is-ancestor "$prev" HEAD ||
		die "$SRC_NAME: HEAD does not follow $prev"
	if [ -n "$LAYER_DIR" ] && [ -n "$(git -C "$SRC" rev-list "$prev..HEAD")" ]; then
		export_range "$prev" HEAD "$LAYER_DIR"
	fi
else
	export_range base HEAD "$SERIES_DIR"
fi
