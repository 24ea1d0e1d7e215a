#!/bin/bash
# Run one part of the proof and stamp what it was run on.
#
# Runs COMMAND (its output passes through) and writes
# build/results/stamps/PART.txt: the project's commit and whether the files
# the results depend on were clean, when it started, how long it took, the
# machine (CPU model, cores, memory) and the exit status. make check,
# check-vm, check-full, mutants and bench each run through it, alone or in
# make check-all; make results reads the stamps (scripts/check/results-page.sh).
# Usage: scripts/check/stamp.sh PART COMMAND [ARGS...]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ $# -ge 2 ] || die "usage: $0 PART COMMAND [ARGS...]"
part=$1
shift
stamps=$TOP/build/results/stamps
mkdir -p "$stamps"

commit=$(git -C "$TOP" rev-parse --short=12 HEAD)
# What the results depend on (results-page.sh watches the same paths).
dirty=$(git -C "$TOP" status --porcelain -- patches checks scripts bases vm base.conf Makefile)
clean=yes
[ -z "$dirty" ] || clean=no
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
machine="${cpu:-$(uname -m)}, $(nproc) cores, $(awk '/^MemTotal/ { printf "%d GiB", $2 / 1048576 + 0.5 }' /proc/meminfo), kernel $(uname -r)"
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
say "$part: commit $commit$([ $clean = yes ] || echo ' with uncommitted changes'), started $start on $machine"
t0=$SECONDS
rc=0
"$@" || rc=$?
duration=$((SECONDS - t0))
cat >"$stamps/$part.txt" <<EOF
part=$part
commit=$commit
clean=$clean
start=$start
duration_s=$duration
machine=$machine
command=$*
exit=$rc
EOF
# Nothing printed after the part's own output: make check's ends with its
# "N passed, N failed, N skipped" line.
exit $rc
