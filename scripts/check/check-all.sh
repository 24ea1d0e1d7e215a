#!/bin/bash
# make check-all: every tier of the proof, one part after the other.
#
# Runs, in sequence, each through scripts/check/stamp.sh (so each part
# records its commit, start, duration and machine in build/results/stamps/,
# and can as well be run alone with its own make target):
#   check       make check's host steps (VM=0: its two rows are also rows
#               of check-vm, which runs them)
#   check-vm    every row of the real-kernel matrix (vm/host/matrix.sh)
#   check-full  every perf test suite, base against series, and two guests
#   mutants     the planted mistakes against the posted test and our suite
#   bench       perf bench internals kcore-load, base against series
# make bench measures time: nothing else should run on the machine then.
# Ends with one line per part and exits non-zero if any part failed.
# make results then writes Documentation/results.md from the stamps.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

C=$TOP/scripts/check
summary=()
rc_all=0
part() { # NAME COMMAND...
	local rc=0
	"$C/stamp.sh" "$@" || rc=$?
	summary+=("$1: exit $rc, $(sed -n 's/^duration_s=//p' "$TOP/build/results/stamps/$1.txt") s")
	[ $rc = 0 ] || rc_all=1
}
part check env VM=0 "$C/check.sh"
part check-vm "$TOP/vm/host/matrix.sh"
part check-full "$C/full.sh"
part mutants "$C/mutants.sh"
part bench "$TOP/scripts/bench/bench.sh"
printf '%s\n' "${summary[@]}"
exit $rc_all
