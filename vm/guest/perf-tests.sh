#!/bin/sh
# The guest script of make check-full (scripts/check/full.sh): runs the C
# suites of 'perf test' that touch maps, symbols, DSOs and kcore with the
# base's perf (/perf-baseline) and the series' (/perf-series), as root
# against the guest's real /proc/kcore. busybox sh: the guests have no bash,
# python or perl, which is why perf's shell tests cannot run here.
#
# Started by vm/guest/init.sh through vm/host/run.sh. full.sh may put
# PT_TIMEOUT (seconds per run of a suite, 300), PT_RERUNS (9: reruns of a
# suspect suite at most) and PT_ONLY (an extended regex: only the suites it
# matches) in front of this script.
#
# Prints, between init.sh's result markers:
#   PT_KERNEL=uname -r          the guest's kernel, which the results are keyed to
#   PT_RUN=DESC|SIDE|RUN|NUM|RC|SECONDS   one per run of a suite with one perf
#                                (SIDE base or series; RC 137: killed at PT_TIMEOUT)
#   vm-progress: ...            a line per suite, echoed on the host as it comes
# and leaves in /tmp/out/files (copied out over the console):
#   SIDE-list.txt               that perf's 'perf test list'
#   SIDE-NUM-RUN.log            perf test -vv's output of one run, its verdict
#                               lines whole and the last 40 lines of each test's
#                               own output (the console is slow)
# The host (full.sh) reads these as it reads its own runs: same parser, same
# rule.

# The suites, as 'perf test list' names them, and why each is here: C suites
# that exercise the maps, symbol, DSO and kcore code the series changes or
# relies on. One in a single perf (the series adds suites) is run with that
# perf only and reported "only in the series". The only list of them.
suites() {
	cat <<'EOF'
Object code reading|reads kernel code through the kernel maps made from /proc/kcore and compares it with objdump
Kernel maps from kcore|the series: the kernel maps made from this kernel's /proc/kcore (only in the series)
kcore maps|the series: kcore maps of every layout, from synthetic kcore files (only in the series)
Maps - per process mmaps abstraction|maps__merge_in() and the sorted maps the series changes
vmlinux symtab matches kallsyms|the kernel maps and symbols of kallsyms against vmlinux (Skip without a vmlinux)
Symbols|symbol loading from the DSOs of a running process and the kernel
split kallsyms|kallsyms symbols split into the kernel maps
DSO data tests|reading a DSO's data through its cache and file descriptors, as object code is read
Lookup mmap thread|finding a thread's map of an address from synthesized mmap events
Share thread maps|maps shared by the threads of a process, and their references
kmod_path__parse|module names from paths, as the kernel's module maps are named
Test dwarf unwind|unwinding through a thread's maps and its DSOs' data
Session ELF machine of a perf.data from another machine|the series: the ELF machine a thread's maps tell, a kernel sample's arch (only in the series)
EOF
}
PT_TIMEOUT=${PT_TIMEOUT:-300}
PT_RERUNS=${PT_RERUNS:-9}
PT_ONLY=${PT_ONLY:-.}
FILES=/tmp/out/files

progress() { echo "vm-progress: [$(cut -d' ' -f1 /proc/uptime)] $*"; }

# busybox's timeout: 'timeout [-s SIG] SECS PROG' since 1.30, before that
# 'timeout -t SECS'. KILL: perf test's own child would outlive a TERM.
if timeout -s KILL 5 true 2>/dev/null; then
	TIMEOUT="timeout -s KILL $PT_TIMEOUT"
elif timeout -t 5 -s KILL true 2>/dev/null; then
	TIMEOUT="timeout -t $PT_TIMEOUT -s KILL"
else
	TIMEOUT=
	progress "no timeout program: suites run without a time limit"
fi

perf_of() { # SIDE: the perf's path
	if [ "$1" = base ]; then echo /perf-baseline; else echo /perf-series; fi
}

# The number of the suite described $2 in SIDE $1's list, if it has one
# (descriptions match whole: 'kcore maps' is not 'Kernel maps from kcore').
num_of() {
	awk -v want="$2" 'match($0, /^ *[0-9]+: /) {
		if (substr($0, RLENGTH + 1) == want) { n = $1; sub(/:.*/, "", n); print n; exit } }' \
		"$FILES/$1-list.txt"
}

# Run suite DESC with SIDE's perf, run RUN: its log to FILES, a PT_RUN line.
run_suite() { # SIDE DESC RUN
	num=$(num_of "$1" "$2")
	[ -n "$num" ] || return 0
	t0=$(date +%s)
	# shellcheck disable=SC2086 # TIMEOUT is a command and its arguments
	$TIMEOUT "$(perf_of "$1")" test -S -vv "$num" </dev/null >/tmp/pt.log 2>&1
	rc=$?
	# Verdict lines whole; of each test's own output (between '---- start
	# ----' and '---- end'), the last 40 lines, which say why it failed.
	awk '/^---- start ----$/ { inside = 1; n = 0; print; next }
		inside && /^---- end/ {
			for (i = (n > 40 ? n - 40 : 0); i < n; i++) print kept[i % 40]
			inside = 0; print; next }
		inside { kept[n % 40] = $0; n++; next }
		{ print }' /tmp/pt.log >"$FILES/$1-$num-$3.log"
	echo "PT_RUN=$2|$1|$3|$num|$rc|$(($(date +%s) - t0))"
}

# The cases Ok in a log: the text before ' : Ok' of each verdict line.
oks() { # LOG
	[ -f "$1" ] || return 0
	sed -n 's/^ *[0-9][0-9.]*: \(.*[^ ]\) *: Ok$/\1/p' "$1" | sort
}

# Whether RUNS pairs of runs of a suite settle the verdict on each case
# Ok on the base and not with the series in run 1 (the host's rule, in
# full.sh's 'compare'): over the reruns (runs 2 to RUNS; run 1 picked the
# case), k pairs where only the series is not Ok, m where only the base; p = P(X >= k), X ~ Binomial(k + m, 1/2); a regression when
# p < 0.05. Settled (status 0) when no result of the pairs left can change
# that: p only falls with a pair where only the series is not Ok, only rises
# with one where only the base is not. Prints the counts of each case (named
# unless it is the whole suite DESC).
settled() { # BNUM SNUM RUNS [DESC]
	oks "$FILES/base-$1-1.log" >/tmp/base-oks
	oks "$FILES/series-$2-1.log" >/tmp/series-oks
	comm -23 /tmp/base-oks /tmp/series-oks >/tmp/suspects
	r=1
	while [ "$r" -le "$3" ]; do
		oks "$FILES/base-$1-$r.log" | sed "s/^/$r b /"
		oks "$FILES/series-$2-$r.log" | sed "s/^/$r s /"
		r=$((r + 1))
	done >/tmp/pairs-oks
	awk -v runs="$3" -v pairs=$((PT_RERUNS + 1)) -v alpha=0.05 -v desc="${4:-}" '
		function p(k, m,   n, i, c, s) { # P(X >= k), X ~ Binomial(k + m, 1/2)
			n = k + m; c = 1; s = 0
			for (i = 0; i <= n; i++) { if (i >= k) s += c; c = c * (n - i) / (i + 1) }
			return s / 2 ^ n
		}
		FILENAME == ARGV[1] { sus[$0] = 1; next }
		{ r = $1; side = $2; c = $0; sub(/^[0-9]+ [bs] /, "", c); ok[r SUBSEP side SUBSEP c] = 1 }
		END {
			left = pairs - runs; if (left < 0) left = 0
			unsettled = 0
			for (c in sus) {
				k = m = nb = ns = 0
				# The reruns only: run 1 picked the suspect.
				for (r = 2; r <= runs; r++) {
					b = ((r SUBSEP "b" SUBSEP c) in ok); s = ((r SUBSEP "s" SUBSEP c) in ok)
					nb += !b; ns += !s
					if (b && !s) k++; else if (s && !b) m++
				}
				pk = p(k, m)
				if (p(k + left, m) < alpha && p(k, m + left) >= alpha) { unsettled = 1; v = "" }
				else v = (pk < alpha ? " (a regression)" : " (flaky)")
				printf "%s%sbase not Ok %d of %d, series not Ok %d of %d; only the series %d, only the base %d: p=%.3g%s", \
					(said++ ? "; " : ""), (c == desc ? "" : c ": "), nb, runs - 1, ns, runs - 1, k, m, pk, v
			}
			print ""
			exit unsettled
		}' /tmp/suspects /tmp/pairs-oks
}

# A short word of a log's verdicts for the progress line.
said() { # SIDE DESC RUN
	num=$(num_of "$1" "$2")
	if [ -z "$num" ]; then echo "not in this perf"; return; fi
	awk -F': ' '/: (Ok|FAILED!|Skip.*)$/ { v = $NF; sub(/ .*/, "", v); n[v]++ }
		END { for (v in n) printf "%s%d %s", (s++ ? ", " : ""), n[v], v; if (!s) printf "no verdict" }' \
		"$FILES/$1-$num-$3.log"
}

echo "PT_KERNEL=$(uname -r)"
echo "PT_MACHINE=$(uname -m)"
echo "PT_TIMEOUT=$PT_TIMEOUT"
for side in base series; do
	"$(perf_of $side)" test list </dev/null >"$FILES/$side-list.txt" 2>/dev/null
done

suites | sed -n 's/|.*//p' | grep -E -- "$PT_ONLY" >/tmp/suites.txt
total=$(wc -l </tmp/suites.txt)
progress "$total suites with each perf ($PT_TIMEOUT s at most each run)"
i=0
while IFS= read -r desc; do
	i=$((i + 1))
	t=$(date +%s)
	run_suite base "$desc" 1
	run_suite series "$desc" 1
	progress "$i/$total $desc: base $(said base "$desc" 1); series $(said series "$desc" 1) ($(($(date +%s) - t)) s)"
	# A case Ok on the base and not with the series is a regression only if
	# it is not Ok with the series significantly more often than with the
	# base: both run PT_RERUNS more times at most, base and series in turn
	# (base run k, series run k, base run k+1, ...), until the verdict is
	# settled (the host applies the rule). A suite only one perf has is not
	# compared.
	bnum=$(num_of base "$desc")
	snum=$(num_of series "$desc")
	if [ -z "$bnum" ] || [ -z "$snum" ]; then continue; fi
	oks "$FILES/base-$bnum-1.log" >/tmp/base-oks
	oks "$FILES/series-$snum-1.log" >/tmp/series-oks
	[ -n "$(comm -23 /tmp/base-oks /tmp/series-oks)" ] || continue
	run=2 last=1
	while [ $run -le $((PT_RERUNS + 1)) ]; do
		progress "again ($run): $desc (Ok on the base, not with the series)"
		run_suite base "$desc" $run
		run_suite series "$desc" $run
		last=$run
		settled "$bnum" "$snum" $run >/dev/null && break
		run=$((run + 1))
	done
	progress "$desc: $(settled "$bnum" "$snum" "${last:-1}" "$desc")"
done </tmp/suites.txt
progress "done"
