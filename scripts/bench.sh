#!/bin/bash
# make bench: 'perf bench internals kcore-load' with the series against the
# baseline, side by side on the same inputs. The baseline is the base with
# the series' patches up to and including the benchmark patch (bug fixes
# and the benchmark, none of the kcore behaviour changes), so both run the
# same benchmark code. Writes build/results/bench.md.
# Extra arguments go to scripts/bench-compare.sh (e.g. -s "10 100").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bench=$(git -C "$SRC" log --format=%H -1 --grep='^perf bench: Add internals kcore-load benchmark' base..HEAD)
[ -n "$bench" ] || die "the series has no kcore-load benchmark patch"
"$TOP/scripts/worktree.sh" "$bench" "$BUILD/trees/bench-base"
"$TOP/scripts/build-perf.sh" "$BUILD/trees/bench-base" "$BUILD/bench-base"
"$TOP/scripts/build-perf.sh" "$SRC" "$BUILD/patched"

mkdir -p "$BUILD/results"
say "benchmarking (the baseline needs ~20 min at 100,000 segments: it is quadratic)"
"$TOP/scripts/bench-compare.sh" "$@" "$BUILD/bench-base/perf" "$BUILD/patched/perf" |
	tee "$BUILD/results/bench.md"
