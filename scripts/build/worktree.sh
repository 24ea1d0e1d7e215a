#!/bin/bash
# Check out one commit of build/src in its own directory.
#
# Check out commit REV of build/src, detached, in directory DIR (a git
# worktree of build/src), so a build of REV does not disturb build/src.
# Usage: scripts/build/worktree.sh REV DIR
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ $# -eq 2 ] || die "usage: $0 REV DIR"
rev=$(git -C "$SRC" rev-parse --verify "$1^{commit}") || die "no commit $1 in $SRC_NAME"
dir=$(realpath -m "$2")

if [ -e "$dir/.git" ] && git -C "$dir" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	[ "$(git -C "$dir" rev-parse HEAD)" = "$rev" ] && exit 0
	git -C "$dir" checkout -q --detach -f "$rev"
else
	rm -rf "$dir"
	git -C "$SRC" worktree prune
	mkdir -p "$(dirname "$dir")"
	git -C "$SRC" worktree add -q --detach "$dir" "$rev"
fi
