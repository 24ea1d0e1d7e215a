# Common helpers for the project's scripts; sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../base.conf
. "$TOP/base.conf"
export BASE
# Everything of one base: its builds (build/ for 7.3, build/stable-6.12/ for
# 6.12) and its patches: for 7.3 the postings patches/postings lists (one
# folder each) and then our check layer (checks/layer/, never posted); for
# 6.12 our tested branch (branches/6.12/).
BUILD=$TOP/$BASE_BUILD_DIR
SRC=$BUILD/src
PATCHES=$TOP/$SERIES_DIR
LAYER_DIR=${LAYER_DIR:-}
# The same, as messages name them.
SRC_NAME=$BASE_BUILD_DIR/src
PATCHES_NAME=$SERIES_DIR/

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The postings of this base, in the order they apply: the folder names
# patches/postings lists with a base version of this base (7.3.4 for 7.3).
postings() {
	[ -f "$PATCHES/postings" ] || return 0
	awk -v b="$BASE." '!/^#/ && NF >= 2 && index($2, b) == 1 { print $1 }' "$PATCHES/postings"
}

# The postings NAME needs first, one a line, in the order they apply:
# patches/postings' third column, names joined by commas ("-" for none).
posting_needs() { # NAME
	[ -f "$PATCHES/postings" ] || return 0
	awk -v n="$1" '!/^#/ && $1 == n && $3 != "-" {
		k = split($3, need, ","); for (i = 1; i <= k; i++) print need[i] }' "$PATCHES/postings"
}

# The commits of posting NAME in BUILD/src, oldest first: from the branch of
# the posting before it (or the base) to posting/NAME.
posting_commits() { # NAME
	local prev=base name
	for name in $(postings); do
		if [ "$name" = "$1" ]; then
			git -C "$SRC" rev-list --reverse "$prev..posting/$name"
			return
		fi
		prev=posting/$name
	done
}

# The patch files of posting NAME, absolute, in its series order (no cover
# letter).
posting_files() { # NAME
	dir_patches "$SERIES_DIR/$1" | sed "s|^|$TOP/|"
}

# Make the git worktree DIR of BUILD/src the tree posting NAME declares:
# the base with the patch files of the postings it needs first applied by
# git am (patches/postings' second and third columns). Fails, DIR left at
# the base, when one of them does not apply.
declared_tree() { # NAME DIR
	local need files
	"$TOP/scripts/build/worktree.sh" base "$2"
	git -C "$2" am --abort >/dev/null 2>&1 || true
	git -C "$2" checkout -q --detach -f base
	for need in $(posting_needs "$1"); do
		mapfile -t files < <(posting_files "$need")
		if ! git -C "$2" am -q --committer-date-is-author-date \
			"${files[@]}" >/dev/null 2>&1; then
			git -C "$2" am --abort >/dev/null 2>&1 || true
			git -C "$2" checkout -q --detach -f base
			return 1
		fi
	done
}

# The folders whose patches make BUILD/src, in order, relative to TOP: the
# postings and the check layer, or the one series folder.
series_dirs() {
	local name
	if [ -f "$PATCHES/postings" ]; then
		for name in $(postings); do
			echo "$SERIES_DIR/$name"
		done
		[ -z "$LAYER_DIR" ] || echo "$LAYER_DIR"
	else
		echo "$SERIES_DIR"
	fi
}

# The patch files of a folder (relative to TOP), in its series order.
dir_patches() { # DIR
	[ -f "$TOP/$1/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$TOP/$1/series" | sed "s|^|$1/|"
}

# Every patch file that makes BUILD/src, relative to TOP, in order.
series_patches() {
	local d
	for d in $(series_dirs); do
		dir_patches "$d"
	done
}

# Stable patch-ids of the commits base..HEAD in $1 (a git tree).
tree_patch_ids() {
	local c
	for c in $(git -C "$1" rev-list --reverse base..HEAD); do
		git -C "$1" show "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

# Stable patch-ids of the patch files series_patches lists.
series_patch_ids() {
	local p
	for p in $(series_patches); do
		git patch-id --stable <"$TOP/$p" | cut -d' ' -f1
	done
}

# Commits the scripts make (the base commit, git am) carry the project's
# identity and fixed dates, so the same inputs give the same hashes anywhere.
export GIT_AUTHOR_NAME="Seed f3c95f59 maintainers"
export GIT_AUTHOR_EMAIL="maintainers@users.noreply.a-seed-f3c95f59.example"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

# Private apt: the options that make apt-get and apt-cache read package
# lists of the project's own under DIR, from sources list SOURCES, and
# nothing of the host's apt sources or dpkg state (the host lists bookworm
# only, and no package is installed this way). Sets the array apt_opts.
private_apt_opts() { # DIR SOURCES
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
	touch "$1/status"
	# shellcheck disable=SC2034 # for the caller
	apt_opts=(
		-o Dir::State::Lists="$1/lists" -o Dir::State::status="$1/status"
		-o Dir::Cache="$1/cache" -o Dir::Etc::SourceList="$2"
		-o Dir::Etc::SourceParts=/nonexistent -o Debug::NoLocking=1
	)
}

# A sources.list line for SOURCE ("MIRROR SUITE"), checked with Debian's
# archive keyring.
debian_sources_line() { # SOURCE
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $1 main"
}

# checkpatch on patch file P (relative to TOP), its output to LOG; prints
# the number of findings. Two types are ignored for every patch (make check,
# step 3, says why), and those the patch accepts below its '---' line with
# the reason: "checkpatch: TYPE: reason".
checkpatch_findings() { # P LOG
	local ignore
	ignore=$(sed -n '/^---$/,/^diff --git/s/^checkpatch: \([A-Z_]*\): .*/\1/p' "$TOP/$1" | paste -sd, -)
	(cd "$SRC" && ./scripts/checkpatch.pl --no-tree --terse --show-types \
		--ignore "UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES${ignore:+,$ignore}" "$TOP/$1") >"$2" 2>&1 || true
	grep -cE '(ERROR|WARNING|CHECK):' "$2" || true
}
