#!/bin/bash
# Build the base's pair of perfs: BUILD/baseline/perf from the pinned base
# and BUILD/patched/perf from the base with its series (BUILD/src).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

say "base $BASE ($BASE_PACKAGE): building the baseline and the series' perf"
"$TOP/scripts/worktree.sh" base "$BUILD/trees/base"
"$TOP/scripts/build-perf.sh" "$BUILD/trees/base" "$BUILD/baseline"
"$TOP/scripts/build-perf.sh" "$SRC" "$BUILD/patched"
