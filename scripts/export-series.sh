#!/bin/bash
# Write the commits base..HEAD of build/src to patches/ as git format-patch
# files and list them in patches/series. The output is stable: exporting the
# same commits again changes no byte (zero commit ids, no git version).
# The hand-written cover letter, patches/0000-cover-letter.patch, is kept,
# and notes for reviewers in patches/notes/ are put below each patch's '---'.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no $SRC_NAME: run 'make tree' first"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
	say "warning: $SRC_NAME has uncommitted changes; they are not exported"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$SRC" format-patch -q --zero-commit --no-signature \
	--subject-prefix="$SERIES_SUBJECT_PREFIX" -o "$tmp" base..HEAD

find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' -delete
n=0
{
	echo "# The series, in the order git am applies it (scripts/export-series.sh)."
	for p in "$tmp"/*.patch; do
		[ -e "$p" ] || continue
		# A note for reviewers (patches/notes/NAME.txt, NAME without the
		# number) goes below the '---' line, which git am ignores.
		note=$PATCHES/notes/$(basename "$p" .patch | cut -d- -f2-).txt
		if [ -f "$note" ]; then
			sed -i "0,/^---\$/{/^---\$/r $note
}" "$p"
		fi
		cp "$p" "$PATCHES/"
		basename "$p"
		n=$((n + 1))
	done
} >"$PATCHES/series"
say "exported $n patches to ${PATCHES#"$TOP"/}/"
