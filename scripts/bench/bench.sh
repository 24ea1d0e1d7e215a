#!/bin/bash
# make bench: run the kcore-load benchmark, baseline and series side by side.
#
# make bench: 'perf bench internals kcore-load' with the series against the
# baseline, side by side on the same inputs. The benchmark is our check
# layer's (checks/layer/), never posted; the baseline is the base with the
# benchmark patch alone, the series everything in build/src, so both run the
# same benchmark code. Writes build/results/bench.md.
#
# By default two tables: no eBPF program maps (the real layouts and N = 10
# to 100,000 synthetic segments), and 8 eBPF program maps loaded before
# kcore (N up to 10,000: every kcore map is then merged among maps that
# already exist); then each posting alone (scripts/bench/postings.sh).
# Arguments, if any (make bench BENCH_ARGS="..."), replace all of them and
# go to scripts/bench/compare.sh as one table (e.g. -s "10 100").
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

bench=$(git -C "$SRC" log --format=%H -1 --grep='^perf bench: Add internals kcore-load benchmark' base..HEAD)
[ -n "$bench" ] || die "the series has no kcore-load benchmark patch"
# The base with the benchmark's changes, uncommitted (the build is keyed by
# commit and diff, so an unchanged benchmark is not rebuilt).
"$TOP/scripts/build/worktree.sh" base "$BUILD/trees/bench-base"
git -C "$BUILD/trees/bench-base" reset -q --hard base
git -C "$BUILD/trees/bench-base" clean -fdq tools/perf/bench
git -C "$BUILD/trees/bench-base" cherry-pick --no-commit "$bench" >/dev/null ||
	die "the benchmark patch does not apply to the base alone"
"$TOP/scripts/build/perf.sh" "$BUILD/trees/bench-base" "$BUILD/bench-base"
"$TOP/scripts/build/perf.sh" "$SRC" "$BUILD/patched"

compare() { # TITLE ARGS...: one table, appended to bench.md
	local title=$1
	shift
	say "benchmarking: $title"
	{
		echo "## $title"
		echo
		"$TOP/scripts/bench/compare.sh" "$@" "$BUILD/bench-base/perf" "$BUILD/patched/perf"
		echo
	} | tee -a "$out"
}

mkdir -p "$BUILD/results"
out=$BUILD/results/bench.md
start=$SECONDS
{
	echo "# perf bench internals kcore-load: baseline against the series"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Baseline: the base with $(git -C "$SRC" log --format='%h ("%s")' -1 "$bench") alone;"
	echo "series: $(git -C "$SRC" log --format='%h ("%s")' -1 HEAD)."
	echo
} >"$out"
if [ $# -gt 0 ]; then
	compare "bench-compare.sh $*" "$@"
else
	say "the baseline needs ~20 min at 100,000 segments: it is quadratic"
	compare "No eBPF program maps" -b 0
	compare "8 eBPF program maps loaded before kcore" -b 8 -s "10 100 1000 10000"
fi
# The issue's targets, read off the first table (no eBPF program maps).
summary() {
	awk -F'|' '
		/^## / { table++ }
		table == 1 && $2 ~ /x86_64|arm64/ {
			gsub(/ /, "", $2)
			printf "- %s layout: series/baseline %.3f wall-clock, %.3f CPU (target: at most 1.05)\n", $2, $7, $10
		}
		table == 1 && $2 ~ /synthetic/ { n = $3 + 0; t[n] = $6; rb[n] = $11; rs[n] = $12 }
		END {
			if (t[1000] > 0 && t[100000] > 0)
				printf "- growth of the series from N = 1,000 to 100,000: %.0fx (target: at most 200x; n log n is ~167x)\n", t[100000] / t[1000]
			if (rs[100000] > 0)
				printf "- peak RSS per added segment from N = 1,000 to 100,000: baseline %.0f B, series %.0f B\n",
					(rb[100000] - rb[1000]) * 1024 / 99000, (rs[100000] - rs[1000]) * 1024 / 99000
		}' "$out"
}
if [ $# -eq 0 ]; then
	{
		echo "## Targets"
		echo
		summary
		echo
	} | tee -a "$out"
fi
echo "Total: $((SECONDS - start)) s." >>"$out"
# Each posting alone (build/results/bench-postings.md), appended here.
if [ $# -eq 0 ]; then
	"$TOP/scripts/bench/postings.sh"
	sed -E 's/^(#+) /\1# /' "$BUILD/results/bench-postings.md" >>"$out"
fi
say "bench done in $((SECONDS - start)) s: $out"
