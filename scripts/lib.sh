# Common helpers for the project's scripts; sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../base.conf
. "$TOP/base.conf"
export BASE
# Everything of one base: its builds (build/ for 7.3, build/stable-6.12/ for
# 6.12) and its series (patches/, patches/stable-6.12/).
BUILD=$TOP/$BASE_BUILD_DIR
SRC=$BUILD/src
PATCHES=$TOP/$SERIES_DIR
# The same, as messages name them.
SRC_NAME=$BASE_BUILD_DIR/src
PATCHES_NAME=$SERIES_DIR/

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Patch file names of the series, in order (comments and blanks skipped).
series_patches() {
	[ -f "$PATCHES/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$PATCHES/series"
}

# Stable patch-ids of the commits base..HEAD in $1 (a git tree).
tree_patch_ids() {
	local c
	for c in $(git -C "$1" rev-list --reverse base..HEAD); do
		git -C "$1" show "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

# Stable patch-ids of the patch files listed in the series file.
series_patch_ids() {
	local p
	for p in $(series_patches); do
		git patch-id --stable <"$PATCHES/$p" | cut -d' ' -f1
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
