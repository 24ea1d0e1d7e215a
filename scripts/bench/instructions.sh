#!/bin/bash
# Instructions one kcore load executes, two perf binaries side by side.
#
# The CPU time of a load on a shared 2-core machine varies by 30% from
# round to round, too much to tell a 5% cost. The instructions a load
# executes do not: valgrind's cachegrind (no cache simulation) counts them
# exactly, the same on every run. Each binary runs 'perf bench internals
# kcore-load' once with 1 iteration and once with 1 + K: the difference,
# divided by K, is one load without the start-up. Prints a markdown table
# to stdout, progress to stderr.
#
# usage: instructions.sh [options] BASELINE_PERF SERIES_PERF
#   -l "L..."   real layouts (default: x86_64 arm64)
#   -b N        eBPF program maps present before loading (default: 0)
#   -M N        modules in kallsyms and modules (default: 4)
#   -k K        loads counted (default: 4)
set -euo pipefail

layouts="x86_64 arm64"
bpf=0
modules=4
loads=4

usage() {
	sed -n '/^# usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while getopts "l:b:M:k:h" opt; do
	case $opt in
	l) layouts=$OPTARG ;;
	b) bpf=$OPTARG ;;
	M) modules=$OPTARG ;;
	k) loads=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
perf=("$1" "$2")

# count PERF ITERATIONS LAYOUT: the instructions of the benchmark process
# (its child, which writes the inputs, reports its own count: left out).
count() {
	local out
	if ! out=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$1" bench internals kcore-load -i "$2" -b "$bpf" -m "$modules" --layout "$3" 2>&1); then
		echo "instructions.sh: $1 bench internals kcore-load --layout $3 failed:" >&2
		echo "$out" >&2
		return 1
	fi
	awk '/== Command: / && !pid { pid = $1 }
	     $1 == pid && /I +refs:/ { gsub(/,/, "", $NF); print $NF }' <<<"$out"
}

echo "| layout | eBPF maps | modules | baseline instructions/load | series instructions/load | ratio |"
echo "|---|---:|---:|---:|---:|---:|"
for l in $layouts; do
	per_load=()
	for b in 0 1; do
		echo "  $l, $bpf eBPF maps: ${perf[b]}" >&2
		one=$(count "${perf[b]}" 1 "$l")
		more=$(count "${perf[b]}" $((1 + loads)) "$l")
		per_load[b]=$(((more - one) / loads))
	done
	awk -v l="$l" -v bpf="$bpf" -v m="$modules" -v a="${per_load[0]}" -v b="${per_load[1]}" \
		'BEGIN { printf "| %s | %d | %d | %d | %d | %.4f |\n", l, bpf, m, a, b, b / a }'
done
