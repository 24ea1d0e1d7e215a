#!/bin/bash
# Check each posting's index lines against the tree it declares.
#
# A reviewer applies a posting with git am on the tree it declares: the base
# with the postings it needs first (patches/postings). Each patch's index
# lines name the blobs it was made from. For every posting of this base, in
# a scratch worktree made that tree, this compares each patch's pre-image
# ids with the tree (by prefix; a new file, 0000000, must not exist), then
# applies the patch and goes on with the next. Git only: nothing is built.
# Prints one line per posting, "PASS<TAB>NAME<TAB>detail" or
# "FAIL<TAB>NAME<TAB>what differs", for check.sh to count.
#
# usage: scripts/check/index-lines.sh
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

wt=$BUILD/trees/index

# Prints "PATH ID" for each file a patch changes: its pre-image blob id.
pre_images() { # PATCH
	awk '/^diff --git / { path = substr($3, 3) }
	     /^index / { split($2, id, /\.\./); print path, id[1] }' "$1"
}

for name in $(postings); do
	if ! declared_tree "$name" "$wt"; then
		printf 'FAIL\t%s\t%s\n' "$name" "what it needs first does not apply on the base"
		continue
	fi
	bad=() n=0
	for p in $(posting_files "$name"); do
		while read -r path id; do
			have=$(git -C "$wt" rev-parse -q --verify "HEAD:$path" 2>/dev/null) || have=0000000
			[[ $have == "$id"* ]] || bad+=("$(basename "$p"): $path is ${have:0:7} there, not $id")
		done < <(pre_images "$p")
		if ! git -C "$wt" am -q --committer-date-is-author-date "$p" >/dev/null 2>&1; then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			bad+=("$(basename "$p") does not apply")
			break
		fi
		n=$((n + 1))
	done
	needs=$(posting_needs "$name" | paste -sd, -)
	if [ ${#bad[@]} -eq 0 ]; then
		printf 'PASS\t%s\t%s\n' "$name" "$n patches, index lines of the base${needs:+ with $needs}"
	else
		printf 'FAIL\t%s\t%s\n' "$name" "$(printf '%s; ' "${bad[@]}")"
	fi
done
