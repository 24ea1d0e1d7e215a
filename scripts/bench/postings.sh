#!/bin/bash
# make bench BENCH=postings: what each posting alone costs a kcore load.
#
# For each posting of this base (patches/postings), a perf of the base with
# that posting alone (and the postings it names as needed first) and the
# kcore-load benchmark of our check layer; then the whole series. Each is
# compared with scripts/bench/compare.sh against the base with the
# benchmark alone, on the real layouts, with no eBPF program maps and with
# EBPF_MAPS of them (a busy eBPF host): CPU ratios from interleaved
# rounds, with their spread; then the instructions of one load, which
# repeat exactly (scripts/bench/instructions.sh), with the same eBPF maps
# and with MODULES modules. Writes build/results/bench-postings.md.
# ROUNDS sets the rounds per row (default 9), POSTINGS the postings to
# measure (default: all of them), TRIM=on leaves glibc's heap trimming on
# (compare.sh -T), CPU=off measures only instructions, MODULES the modules
# of the instruction counts (default 4 and 100).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

rounds=${ROUNDS:-9}
trim=()
[ "${TRIM:-off}" = off ] || trim=(-T)
ebpf_maps=${EBPF_MAPS:-2000}
cpu=${CPU:-on}
modules=${MODULES:-4 100}
tree=$BUILD/trees/bench-posting
out=$BUILD/results/bench-postings.md
logs=$BUILD/results/logs
mkdir -p "$logs"

bench=$(git -C "$SRC" log --format=%H -1 --grep='^perf bench: Add internals kcore-load benchmark' base..HEAD)
[ -n "$bench" ] || die "the series has no kcore-load benchmark patch"

# with_commits COMMIT...: a commit of the base with these commits and the
# benchmark, cherry-picked with fixed dates, so that the same commits give
# the same commit id (and perf.sh --rev does not build it again).
with_commits() {
	"$TOP/scripts/build/worktree.sh" base "$tree"
	git -C "$tree" reset -q --hard base
	GIT_COMMITTER_DATE="2000-01-01 00:00 +0000" \
		git -C "$tree" cherry-pick "$@" "$bench" >"$logs/bench-posting-pick.log" 2>&1 ||
		die "the commits do not apply to the base with the benchmark: see $logs/bench-posting-pick.log"
	git -C "$tree" rev-parse HEAD
}


# One perf for the base alone and one for each posting.
"$TOP/scripts/build/perf.sh" --rev "$(with_commits)" "$BUILD/bench-posting/base"
names=${POSTINGS:-$(postings)}
for name in $names; do
	mapfile -t commits < <(for n in $(posting_needs "$name") "$name"; do posting_commits "$n"; done)
	"$TOP/scripts/build/perf.sh" --rev "$(with_commits "${commits[@]}")" \
		"$BUILD/bench-posting/$name"
done

{
	echo "# perf bench internals kcore-load: each posting alone against the base"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Baseline: the base with the benchmark alone; each row's binary: the base"
	echo "with that posting (and what it needs first) and the benchmark; \"series\": $(git -C "$SRC" log --format=%h -1 HEAD)."
	echo
} >"$out"
start=$SECONDS
for maps in 0 "$ebpf_maps"; do
	[ "$cpu" = on ] || break
	for name in $names series; do
		perf=$BUILD/bench-posting/$name/perf
		[ "$name" != series ] || perf=$BUILD/patched/perf
		say "benchmarking $name, $maps eBPF program maps"
		{
			echo "## $name, $maps eBPF program maps"
			echo
			"$TOP/scripts/bench/compare.sh" -s "" -r "$rounds" -b "$maps" "${trim[@]}" \
				"$BUILD/bench-posting/base/perf" "$perf"
			echo
		} >>"$out"
	done
done
# One line per posting and number of eBPF maps: the CPU ratio of each real
# layout, with its spread, against the target.
{
	echo "## Summary: CPU ratio against the base (median; lowest-highest of a round)"
	echo
	echo "| posting | eBPF maps | x86_64 | arm64 | within 1.05 |"
	echo "|---|---:|---|---|---|"
	awk -F'|' '
		/^## / && !/Summary/ { split(substr($0, 4), h, ", "); name = h[1]; maps = h[2] + 0 }
		$2 ~ /^ (x86_64|arm64) $/ {
			gsub(/ /, "", $2); gsub(/ /, "", $10); gsub(/ /, "", $15)
			r[$2] = $10 " (" $15 ")"; ok = ok && $10 + 0 <= 1.05
			if ($2 == "arm64") printf "| %s | %d | %s | %s | %s |\n", name, maps, r["x86_64"], r["arm64"], ok ? "yes" : "NO"
		}
		/^\| layout/ { ok = 1 }' "$out"
	echo
} >>"$out.summary"
cat "$out.summary" >>"$out"
rm -f "$out.summary"

# Instructions of one load: one line per posting, eBPF maps and modules.
{
	echo "## Instructions of one load against the base"
	echo
	echo "| posting | eBPF maps | modules | x86_64 | arm64 | within 1.05 |"
	echo "|---|---:|---:|---|---|---|"
	for maps in 0 "$ebpf_maps"; do
		for m in $modules; do
			for name in $names series; do
				perf=$BUILD/bench-posting/$name/perf
				[ "$name" != series ] || perf=$BUILD/patched/perf
				say "counting instructions: $name, $maps eBPF program maps, $m modules"
				"$TOP/scripts/bench/instructions.sh" -b "$maps" -M "$m" \
					"$BUILD/bench-posting/base/perf" "$perf" |
					awk -F'|' -v name="$name" -v maps="$maps" -v m="$m" '
						$2 ~ /^ (x86_64|arm64) $/ {
							gsub(/ /, "", $2); gsub(/ /, "", $7)
							r[$2] = $7; ok = (ok == "" || ok) && $7 + 0 <= 1.05
						}
						END { printf "| %s | %d | %d | %s | %s | %s |\n", name, maps, m,
							r["x86_64"], r["arm64"], ok ? "yes" : "NO" }'
			done
		done
	done
	echo
	echo "Instructions of one load (valgrind cachegrind, the same on every run),"
	echo "the posting's perf over the base's."
	echo
} >>"$out"
echo "Total: $((SECONDS - start)) s." >>"$out"
say "bench of the postings done in $((SECONDS - start)) s: $out"
