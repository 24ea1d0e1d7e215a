#!/bin/bash
# make perf: build the baseline perf and the series perf.
#
# Build the base's pair of perfs: BUILD/baseline/perf from the pinned base
# and BUILD/patched/perf from the base with its series (BUILD/src). Both are
# built in one worktree and object directory (scripts/build/perf.sh --rev),
# the series after the base, so the second build recompiles only what the
# series changes. A BUILD/src with changes not yet committed is built as it
# is, in BUILD/patched itself.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

say "base $BASE ($BASE_PACKAGE): building the baseline and the series' perf"
"$TOP/scripts/build/perf.sh" --rev base "$BUILD/baseline"
if [ -z "$(git -C "$SRC" status --porcelain)" ]; then
	"$TOP/scripts/build/perf.sh" --rev HEAD "$BUILD/patched"
else
	say "$SRC_NAME has changes not committed: building it as it is"
	"$TOP/scripts/build/perf.sh" "$SRC" "$BUILD/patched"
fi
