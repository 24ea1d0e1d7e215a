#!/bin/bash
# Print one benchmark table comparing two perf binaries on the same inputs.
#
# Compare 'perf bench internals kcore-load' between two perf binaries: the
# real x86_64 and arm64 layouts and synthetic layouts of N segments, each
# binary on the same (deterministic) inputs. Prints a markdown table to
# stdout; progress goes to stderr.
#
# usage: bench.sh [options] BASELINE_PERF SERIES_PERF
#   -s "N..."   synthetic segment counts (default: 10 100 1000 10000 100000)
#   -l "L..."   real layouts (default: x86_64 arm64; "" for none)
#   -b N        eBPF program maps present before loading (default: 0)
#   -M N        modules in kallsyms and modules (default: 4)
#   -r R        rounds per layout; a round runs each binary once, in
#               alternating order (default: 11)
#   -t SECONDS  time one run may take: sets its iterations (default: 2)
#   -m MAX      at most MAX iterations per run (default: 200)
#   -T          leave glibc's heap trimming on (see below)
#
# Both binaries run with glibc's heap trimming off
# (GLIBC_TUNABLES=glibc.malloc.trim_threshold): perf loads kcore once per
# process, but the benchmark loads it again and again, and a binary whose
# loads leave the top of the heap free at their end would otherwise give
# it back to the kernel and fault it in again at each load (seen: 150
# page faults a load more, a CPU ratio of 1.49, for the same
# instructions). -T measures that too.
#
# Each binary first runs once with one iteration (warm-up and probe). A
# binary whose single iteration already takes longer than -t is measured by
# that one iteration only. Times are medians over the rounds; ratios are
# medians of the ratio within each round, which cancels the drift of a
# shared machine's speed between rounds.
set -euo pipefail

segments="10 100 1000 10000 100000"
layouts="x86_64 arm64"
bpf=0
modules=4
rounds=11
budget=2
max_iters=200
trim=off

usage() {
	sed -n '/^# usage:/,/^# Each binary/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while getopts "s:l:b:M:r:t:m:Th" opt; do
	case $opt in
	s) segments=$OPTARG ;;
	l) layouts=$OPTARG ;;
	b) bpf=$OPTARG ;;
	M) modules=$OPTARG ;;
	r) rounds=$OPTARG ;;
	t) budget=$OPTARG ;;
	m) max_iters=$OPTARG ;;
	T) trim=on ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
perf=("$1" "$2")
for p in "${perf[@]}"; do
	[ -x "$p" ] || { echo "bench.sh: $p is not executable" >&2; exit 1; }
done

# run PERF ITERATIONS ARGS...: prints "mean_ms cpu_ms rss_kib maps"
run() {
	local p=$1 iters=$2 out
	shift 2
	local -a env=()
	[ "$trim" = on ] || env=(GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824)
	if ! out=$(env "${env[@]}" "$p" bench internals kcore-load -i "$iters" -b "$bpf" -m "$modules" \
		"$@" 2>&1); then
		echo "bench.sh: $p bench internals kcore-load $* failed:" >&2
		echo "$out" >&2
		return 1
	fi
	awk '
		/Average kcore load took:/ { mean = $5 }
		/Average CPU time:/ { cpu = $4 }
		/Kernel maps after loading:/ { maps = $5 }
		/Peak RSS:/ { rss = $3 }
		END {
			if (mean == "" || rss == "") exit 1
			print mean, (cpu == "" ? "nan" : cpu), rss, maps
		}' <<<"$out"
}

# ratios A B: the ratios B[i] / A[i] of two lists of numbers (one per line)
ratios() {
	paste -d ' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) |
		awk '$1 > 0 { print $2 / $1 }'
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print ((NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# measure LABEL N ARGS...: one table row
measure() {
	local label=$1 n=$2 b r k i
	shift 2
	local -a iters times cpu rss maps
	local -a probe

	for b in 0 1; do
		read -r -a probe <<<"$(run "${perf[b]}" 1 "$@")"
		echo "  ${label}: probe $((b + 1)): ${probe[0]} ms, ${probe[2]} KiB, ${probe[3]} maps" >&2
		maps[b]=${probe[3]}
		iters[b]=$(awk -v t="${probe[0]}" -v budget="$budget" -v max="$max_iters" \
			'BEGIN { i = t > 0 ? int(budget * 1000 / t) : max; if (i > max) i = max; print i }')
		if [ "${iters[b]}" -lt 1 ]; then
			times[b]=${probe[0]}
			cpu[b]=${probe[1]}
			rss[b]=${probe[2]}
		else
			times[b]=""
			cpu[b]=""
			rss[b]=""
		fi
	done
	[ "${maps[0]}" = "${maps[1]}" ] ||
		echo "  ${label}: the binaries end with ${maps[0]} and ${maps[1]} maps" >&2

	for ((r = 0; r < rounds; r++)); do
		# alternate which binary goes first
		for k in 0 1; do
			b=$(((r + k) % 2))
			[ "${iters[b]}" -ge 1 ] || continue
			read -r -a probe <<<"$(run "${perf[b]}" "${iters[b]}" "$@")"
			times[b]+="${probe[0]} "
			cpu[b]+="${probe[1]} "
			rss[b]+="${probe[2]} "
		done
	done

	local -a t c m
	local rt rc rm spread=-
	if [ "${iters[0]}" -ge 1 ] && [ "${iters[1]}" -ge 1 ]; then
		rt=$(ratios "${times[0]}" "${times[1]}" | median)
		rc=$(ratios "${cpu[0]}" "${cpu[1]}" | median)
		rm=$(ratios "${rss[0]}" "${rss[1]}" | median)
		# the lowest and highest CPU ratio of a round
		spread=$(ratios "${cpu[0]}" "${cpu[1]}" | sort -g |
			awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }')
	fi
	for b in 0 1; do
		t[b]=$(tr ' ' '\n' <<<"${times[b]}" | grep . | median)
		c[b]=$(tr ' ' '\n' <<<"${cpu[b]}" | grep . | median)
		m[b]=$(tr ' ' '\n' <<<"${rss[b]}" | grep . | median)
		i=${iters[b]}
		[ "$i" -ge 1 ] && i="${rounds}x$i" || i=1
		iters[b]=$i
	done
	awk -v label="$label" -v n="$n" -v t0="${t[0]}" -v t1="${t[1]}" \
		-v c0="${c[0]}" -v c1="${c[1]}" -v m0="${m[0]}" -v m1="${m[1]}" \
		-v rt="${rt:-}" -v rc="${rc:-}" -v rm="${rm:-}" \
		-v i0="${iters[0]}" -v i1="${iters[1]}" -v maps="${maps[1]}" -v spread="$spread" '
		function ratio(r, a, b) {
			if (r != "")
				return sprintf("%.3f", r)
			return a > 0 ? sprintf("%.3f", b / a) : "-"
		}
		BEGIN {
			printf "| %s | %s | %s | %.3f | %.3f | %s | %.3f | %.3f | %s | %d | %d | %s | %s / %s | %s |\n",
				label, n, maps, t0, t1, ratio(rt, t0, t1), c0, c1, ratio(rc, c0, c1),
				m0, m1, ratio(rm, m0, m1), i0, i1, spread
		}'
}

echo "| layout | N | maps | baseline ms | series ms | ratio | baseline CPU ms | series CPU ms | CPU ratio | baseline RSS KiB | series RSS KiB | RSS ratio | runs x iterations | CPU ratio range |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
for l in $layouts; do
	echo "$l ..." >&2
	n=$(case $l in x86_64) echo 7 ;; arm64) echo 5 ;; *) echo "?" ;; esac)
	measure "$l" "$n" --layout "$l"
done
for n in $segments; do
	echo "synthetic $n ..." >&2
	measure synthetic "$n" --segments "$n"
done
echo
echo "baseline: ${perf[0]}; series: ${perf[1]}; eBPF programs: $bpf; modules: $modules; glibc heap trimming: $trim."
echo "Times: median over rounds of the mean wall-clock and CPU time of one load;"
echo "ratio: series/baseline, median of the ratios within each round;"
echo "CPU ratio range: the lowest and the highest CPU ratio of a round;"
echo "RSS: median peak RSS of the benchmark process (inputs are written by a child process)."
