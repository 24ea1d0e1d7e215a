# Common helpers for the project's scripts; sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$TOP/build
SRC=$BUILD/src
# shellcheck source=../base.conf
. "$TOP/base.conf"

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Patch file names of the series, in order (comments and blanks skipped).
series_patches() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$TOP/patches/series"
}

# Stable patch-ids of the commits base..HEAD in $1 (a git tree).
tree_patch_ids() {
	local c
	for c in $(git -C "$1" rev-list --reverse base..HEAD); do
		git -C "$1" show "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

# Stable patch-ids of the patch files listed in patches/series.
series_patch_ids() {
	local p
	for p in $(series_patches); do
		git patch-id --stable <"$TOP/patches/$p" | cut -d' ' -f1
	done
}

# Commits the scripts make (the base commit, git am) carry the project's
# identity and fixed dates, so the same inputs give the same hashes anywhere.
export GIT_AUTHOR_NAME="Seed f3c95f59 maintainers"
export GIT_AUTHOR_EMAIL="maintainers@users.noreply.a-seed-f3c95f59.example"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
