#!/bin/bash
# make check-full: every perf test on this host, the 7.3 base against the series, in the distribution's configuration,
# and perf test's C suites of maps, symbols and kcore in an arm64 and an x86_64 QEMU guest.
#
# Builds perf from the base (build/src's commit 'base') and from the series
# (build/src's HEAD: the postings and our check layer), both with
# PERF_MAKE_FLAGS and PERF_DISTRO_FLAGS (base.conf), each in a worktree and
# an object directory of its own under build/full/. The series' build of
# make check-configs (build/configs/distro) is copied instead when it is of
# the same commit and configuration. Then runs every test of 'perf test',
# one test number at a time (perf test -S -vv N) under a timeout, the base's
# and the series' in turn, matched by description (the series adds suites,
# so the numbers differ). Shell tests are found in ./tests/shell, so each
# perf runs in its own tree's tools/perf, with its own directory first in
# PATH (the shell tests run 'perf').
#
# The host is a virtual machine (no CPU PMU, no kprobes, no /proc/kcore, its
# kernel may change), so much skips or fails on both: that is recorded with
# the reason, keyed to the host kernel, and never fails the target. What
# fails it: a test case (a suite without subtests, or one subtest) that is
# Ok on the base and is not Ok with the series (FAILED, Skip, timed out, no
# result or missing) on a first run, and then, over up to FULL_RERUNS (9)
# more runs of both, base and series in turn (base run k, series run k,
# base run k+1, ...; so that a spell of load falls on both), is not Ok with
# the series significantly more often than with the base run beside it: a
# one-sided exact sign test (McNemar's exact test) on the pairs of reruns
# where only one of the two is not Ok, k where it is the series, m the base,
# p = P(X >= k) for X ~ Binomial(k + m, 1/2), a regression when p < 0.05.
# The first run picked the suspect and is not counted (counting it, a case
# flaky on both sides alike is called a regression more often than 5%).
# Ok on the base and not with the series in every one of 9 reruns gives
# p = 1/512; it takes 5 such pairs, with none the other way, to reach 0.05
# (1/32), so fewer than 5 reruns can never show a regression. A suspect that
# is not a regression is listed as flaky with its counts and p, and passes.
# The reruns of a test stop as soon as no result of the pairs left could
# change its verdict (a test Ok on the base and failing with the series every
# time: after 8 reruns, p = 1/256, and the 9th cannot lift it to 0.05); at most
# FULL_RERUNS pairs, each at most 2 x (FULL_TIMEOUT + 10 s): 9 x 260 s = 39 min
# for a suspect whose runs all time out, 9 x 130 s for one that hangs with the
# series only; a quick test like "Number of exit events of a simple
# workload" takes a second for all its pairs.
#
# Then the same in QEMU guests of a 7.x kernel with KASLR, where /proc/kcore
# is real (matrix rows arm64-max-kaslr-7.3 and x86_64-kaslr-7.3, one after
# the other, booted by vm/host/run.sh): the C suites vm/guest/perf-tests.sh
# names, which exercise maps, symbols, DSOs and kcore, with the matrix's two
# perfs of the row's architecture (built as vm/host/matrix.sh -b builds them
# if need be). The guests have busybox sh and no bash, python or perl, so
# perf's shell tests cannot run there. The guest reruns a suite with a case
# Ok on the base and not with the series itself, in the same way (in turn,
# FULL_RERUNS times at most, stopping once the verdict is settled); this
# host applies the same rule to its runs, keyed to the guest's kernel (uname
# -r in the guest). A guest that does not run to its end (VM_RUN_TIMEOUT,
# 5400 s) counts as one failure: a suite that hangs with the series in a
# guest (9 x 600 s of reruns) ends there, and fails the target so.
#
# Writes build/results/perf-test.json: the host's results at the top level
# as before, each guest's under "guests" (ROW: kernel, tests, ...), what is
# not Ok on both under "not_ok_on_both" per kernel. The part a run leaves
# out (FULL_HOST=0, FULL_VM=0) is carried over from the last results
# (perf-test.json.prev), marked "host_from_earlier_run" or
# "guests_from_earlier_run". The logs of every test go under
# build/results/logs/full/, the guests' runs under build/results/full-vm/ROW/,
# and the list of what is not Ok on both to
# build/full/not-ok-on-both/KERNEL.txt, whose changes since the last run on
# the same kernel it prints as notes.
# Ends with "N passed, N failed" (test cases compared without regression,
# on the host and in the guests; regressions and guests that did not run);
# exits non-zero if any.
# Usage: scripts/check/full.sh   (FULL_TIMEOUT: seconds per test, 120;
# FULL_ONLY=REGEX: only the tests whose description matches, for a quick try,
# host and guests; FULL_RERUNS: reruns of a suspect at most, 9; FULL_HOST=0: the
# guests only; FULL_VM=0: this host only; FULL_VM_ROWS: the rows, default
# "arm64-max-kaslr-7.3 x86_64-kaslr-7.3"; FULL_VM_TIMEOUT: seconds per run
# of a suite in a guest, 600)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

# All in a function, so that bash has read the whole script before it runs.
main() {

start=$SECONDS
timeout_s=${FULL_TIMEOUT:-120}
full=$BUILD/full
results=$BUILD/results
logs=$results/logs/full
json=$results/perf-test.json
kernel=$(uname -r)
host_logs='' guests=''
mkdir -p "$full" "$results"
# The last results stay as perf-test.json.prev: the part a run leaves out
# (FULL_HOST=0 or FULL_VM=0) is carried over from them, marked as such.
if [ -f "$json" ]; then mv -f "$json" "$json.prev"; fi

base_rev=$(git -C "$SRC" rev-parse --verify 'base^{commit}')
series_rev=$(git -C "$SRC" rev-parse --verify 'HEAD^{commit}')
if [ "${FULL_HOST:-1}" != 0 ]; then
	host_tests
	host_logs=$logs
fi
if [ "${FULL_VM:-1}" != 0 ]; then
	guest_tests
fi

# 5. The comparison: perf-test.json, the summary and the verdict.
rc=0
compare report || rc=$?
say "make check-full took $((SECONDS - start)) s"
return $rc
}

# Every perf test on this host, base and series (steps 1 to 3).
host_tests() {
rm -rf "$logs"
mkdir -p "$logs"
"$TOP/scripts/build/install-deps.sh" "${DISTRO_PACKAGES[@]}" >&2

# 1. The two perfs.
build_side base "$base_rev"
build_side series "$series_rev"
say "[$((SECONDS - start)) s] base $(git -C "$SRC" log -1 --format='%h %s' "$base_rev")"
say "[$((SECONDS - start)) s] series $(git -C "$SRC" log -1 --format='%h %s' "$series_rev")"

# 2. Every test of either perf, in the series' order, then the base's own.
for side in base series; do
	(cd "$full/trees/$side/tools/perf" && "$full/obj/$side/perf" test list) \
		>"$logs/$side-list.txt" 2>/dev/null
done
mapfile -t descs < <(cat "$logs/series-list.txt" "$logs/base-list.txt" |
	sed -nE 's/^ *[0-9]+: (.*)$/\1/p' | awk '!seen[$0]++' | grep -E -- "${FULL_ONLY:-.}")
say "[$((SECONDS - start)) s] running ${#descs[@]} tests with each perf ($timeout_s s at most each;" \
	"logs: ${logs#"$TOP"/}/)"
printf 'desc\tside\trun\tnum\trc\tseconds\n' >"$logs/index.tsv"
i=0
for desc in "${descs[@]}"; do
	i=$((i + 1))
	t0=$SECONDS
	run_test base "$desc" 1
	run_test series "$desc" 1
	say "[$((SECONDS - start)) s] $i/${#descs[@]} $desc ($((SECONDS - t0)) s)"
done

# 3. The reruns.
host_logs=$logs
rerun_suspects
}

# A test Ok on the base and not with the series runs again, base and series
# in turn (base run k, series run k, base run k+1, ...), FULL_RERUNS times
# (9) at most: some of perf's tests are flaky on these machines, the more so
# under load ("Number of exit events of a simple workload" failed 3 of 10
# runs of the base, 4 of 10 of the series, with other builds running), and
# load that comes and goes must fall on both. It stops once no result of the
# pairs left can change the verdict ('compare settled').
rerun_suspects() {
local desc run rc state list pairs=$((${FULL_RERUNS:-9} + 1))
local -a again
list=$(compare rerun) || die "compare rerun failed"
mapfile -t again < <(printf '%s' "$list" | sed '/^$/d')
if [ ${#again[@]} -gt 0 ] && [ "${FULL_RERUNS:-9}" -lt 5 ]; then
	say "FULL_RERUNS=${FULL_RERUNS:-9}: fewer than 5 reruns of each cannot show a regression at p < 0.05;" \
		"every suspect will be listed as flaky"
fi
for desc in "${again[@]}"; do
	say "[$((SECONDS - start)) s] again: $desc (Ok on the base, not with the series;" \
		"up to $((pairs - 1)) more runs of each, in turn)"
	state=''
	for ((run = 2; run <= pairs; run++)); do
		run_test base "$desc" "$run"
		run_test series "$desc" "$run"
		rc=0
		state=$(compare settled "$desc") || rc=$?
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 10 ] || die "compare settled failed for '$desc'"
	done
	[ -n "$state" ] || state=$(compare settled "$desc") || :
	say "[$((SECONDS - start)) s] $desc: $state"
done
}

# 4. The C suites of vm/guest/perf-tests.sh in QEMU guests of a 7.x kernel
# with KASLR, where /proc/kcore is real and of the layouts the series is
# about (this host has none). The guests have busybox sh only: perf's shell
# tests cannot run there. One guest at a time: each QEMU takes a CPU for
# itself for minutes (TCG), and this machine is shared. Each row's run goes
# to build/results/full-vm/ROW/ (vm/host/run.sh's files, and logs/: the
# guest's runs laid out as this host's, for the same comparison).
guest_tests() {
local rows row arch dir out=$results/full-vm rc t0
read -ra rows <<<"${FULL_VM_ROWS:-arm64-max-kaslr-7.3 x86_64-kaslr-7.3}"
rm -rf "$out"
mkdir -p "$out"
# The perfs are the matrix's: build/vm/perf/ARCH/ for another architecture
# than this host's, built (or found up to date) as vm/host/matrix.sh -b
# builds them; amd64's are build/{baseline,patched}/perf (make perf).
for arch in $(for row in "${rows[@]}"; do row_arch "$row"; done | sort -u); do
	say "[$((SECONDS - start)) s] $arch perfs for the guests (vm/host/build-perf.sh $arch;" \
		"a cross build takes minutes the first time)"
	nice -n 10 "$TOP/vm/host/build-perf.sh" "$arch" >&2 ||
		die "no $arch perfs for the guests (vm/host/build-perf.sh $arch failed)"
done
# run.sh copies the guest script as it is: the settings go in front of it.
# FULL_VM_TIMEOUT: seconds per run of a suite in a guest (TCG is slow).
{
	head -1 "$TOP/vm/guest/perf-tests.sh"
	echo "PT_TIMEOUT=${FULL_VM_TIMEOUT:-600}"
	echo "PT_RERUNS=${FULL_RERUNS:-9}"
	printf "PT_ONLY='%s'\n" "$(printf '%s' "${FULL_ONLY:-.}" | sed "s/'/'\\\\''/g")"
	tail -n +2 "$TOP/vm/guest/perf-tests.sh"
} >"$out/perf-tests.sh"
for row in "${rows[@]}"; do
	dir=$out/$row
	mkdir -p "$dir"
	t0=$SECONDS
	say "[$((SECONDS - start)) s] guest $row: boot, then the suites with each perf" \
		"(log: ${dir#"$TOP"/}/run.log)"
	rc=0
	# The whole run's limit: every suite twice, and the reruns.
	VM_RUN_TIMEOUT=${VM_RUN_TIMEOUT:-5400} nice -n 5 "$TOP/vm/host/run.sh" "$row" "$out/perf-tests.sh" "$dir" 2>&1 |
		tee "$dir/run.log" >&2 || rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || say "guest $row: vm/host/run.sh exited with $rc"
	if [ "$(row_arch "$row")" = amd64 ]; then
		printf '%s\n' "${PERF_BASELINE:-build/baseline/perf}" "${PERF_SERIES:-build/patched/perf}"
	else
		printf '%s\n' "build/vm/perf/$(row_arch "$row")/"{baseline,series}/perf
	fi >"$dir/perfs.txt"
	guest_logs "$dir"
	guests+=$row$'\t'$dir$'\n'
	say "[$((SECONDS - start)) s] guest $row: done in $((SECONDS - t0)) s"
done
}

# The Debian architecture of a matrix row.
row_arch() { # ROW
	sed -n 's/^DEB_ARCH=\([a-z0-9]*\).*/\1/p' "$TOP/vm/configs/$1.conf"
}

# Lay out a guest's runs (its PT_RUN lines and files) as this host's logs:
# DIR/logs/{SIDE-list.txt,index.tsv,SIDE/NUM-RUN.log}.
guest_logs() { # DIR
	local d=$1 f name side
	grep -q '^PT_KERNEL=' "$d/results.txt" 2>/dev/null || return 0
	mkdir -p "$d/logs/base" "$d/logs/series"
	for side in base series; do
		cp "$d/guest/$side-list.txt" "$d/logs/" 2>/dev/null || : >"$d/logs/$side-list.txt"
	done
	{
		printf 'desc\tside\trun\tnum\trc\tseconds\n'
		sed -n 's/^PT_RUN=//p' "$d/results.txt" | tr '|' '\t'
	} >"$d/logs/index.tsv"
	for f in "$d"/guest/base-*-*.log "$d"/guest/series-*-*.log; do
		[ -f "$f" ] || continue
		name=${f##*/}
		side=${name%%-*}
		cp "$f" "$d/logs/$side/${name#*-}"
	done
}

# Build perf of REV for SIDE (base or series) in build/full/{trees,obj}/SIDE.
build_side() { # SIDE REV
	local side=$1 rev=$2 tree=$full/trees/$1 obj=$full/obj/$1 key t0=$SECONDS
	local cfg_tree=$BUILD/trees/config-distro cfg_obj=$BUILD/configs/distro
	"$TOP/scripts/build/worktree.sh" "$rev" "$tree"
	key=$(printf '%s\n' "$rev" "${PERF_MAKE_FLAGS[@]}" "${PERF_DISTRO_FLAGS[@]}" | sha256sum | cut -c1-16)
	mkdir -p "$obj"
	if [ -x "$obj/perf" ] && [ "$(cat "$obj/.full-key" 2>/dev/null)" = "$key" ]; then
		say "build/full/obj/$side/perf is up to date ($(git -C "$SRC" describe --tags --always "$rev"))"
		return
	fi
	rm -f "$obj/.full-key"
	# make check-configs' distro build is the series' in the same
	# configuration if its tree is at REV, unchanged, and it was built after
	# that tree's checkout and the last change of base.conf.
	if [ "$side" = series ] && [ -x "$cfg_obj/perf" ] &&
		[ "$(git -C "$cfg_tree" rev-parse HEAD 2>/dev/null)" = "$rev" ] &&
		[ -z "$(git -C "$cfg_tree" status --porcelain --untracked-files=no)" ] &&
		[ "$cfg_obj/perf" -nt "$(git -C "$cfg_tree" rev-parse --absolute-git-dir)/HEAD" ] &&
		[ "$cfg_obj/perf" -nt "$TOP/base.conf" ]; then
		say "copying the series' perf of make check-configs (build/configs/distro, same commit and flags)"
		cp -a "$cfg_obj/." "$obj/"
		echo "copied from build/configs/distro at $(date -u +%FT%TZ)" >"$obj/REUSED"
	else
		rm -f "$obj/REUSED"
		say "building build/full/obj/$side/perf from $(git -C "$SRC" describe --tags --always "$rev")" \
			"(5-10 min at nice 10 with -j2; log: build/full/obj/$side/build.log)"
		nice -n 10 make -C "$tree/tools/perf" -j2 O="$obj" "${PERF_MAKE_FLAGS[@]}" "${PERF_DISTRO_FLAGS[@]}" \
			>"$obj/build.log" 2>&1 || {
			grep -E 'error|Error' "$obj/build.log" | head -20 >&2 || true
			die "the $side perf does not build: see build/full/obj/$side/build.log"
		}
		say "built build/full/obj/$side/perf in $((SECONDS - t0)) s"
	fi
	echo "$key" >"$obj/.full-key"
}

# Run the test described DESC with SIDE's perf, if it has one, into
# logs/SIDE/NUM-RUN.log, and add a line to logs/index.tsv.
run_test() { # SIDE DESC RUN
	local side=$1 desc=$2 run=$3 num rc=0 t0=$SECONDS
	num=$(awk -v want="$desc" 'match($0, /^ *[0-9]+: /) {
			if (substr($0, RLENGTH + 1) == want) { sub(/:.*/, "", $1); print $1; exit } }' \
		"$logs/$side-list.txt")
	[ -n "$num" ] || return 0
	mkdir -p "$logs/$side"
	(cd "$full/trees/$side/tools/perf" &&
		PATH=$full/obj/$side:$PATH timeout -k 10 "$timeout_s" "$full/obj/$side/perf" test -S -vv "$num") \
		</dev/null >"$logs/$side/$num-$run.log" 2>&1 || rc=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$desc" "$side" "$run" "$num" "$rc" "$((SECONDS - t0))" >>"$logs/index.tsv"
}

# Parse the logs. 'compare rerun' prints the host's tests to run again (the
# guests rerun their own); 'compare settled DESC' prints the counts of the
# runs so far of the host's test DESC and exits 0 if no result of the runs
# left can change its verdict, 10 if one can; 'compare report' writes
# perf-test.json and the summary, and fails on a regression or a guest that
# did not run.
compare() { # MODE [DESC]
	MODE=$1 DESC=${2:-} PAIRS=$((${FULL_RERUNS:-9} + 1)) LOGS=$host_logs GUESTS=$guests JSON=$json PREV=$json.prev KERNEL=$kernel FULL=$full TOP=$TOP \
		BASE_REV="$(git -C "$SRC" describe --tags --always "$base_rev") ($base_rev)" \
		SERIES_REV="$(git -C "$SRC" describe --tags --always "$series_rev") ($series_rev)" \
		TIMEOUT=$timeout_s ELAPSED=$((SECONDS - start)) ONLY=${FULL_ONLY:-} python3 - <<'PY'
import csv, json, math, os, re, sys, time

mode, top = os.environ["MODE"], os.environ["TOP"]
OK = "Ok"
VERDICT = re.compile(r"^ *(\d+)(?:\.(\d+))?: (.*?) *: (Ok|FAILED!|Skip(?: \((.*)\))?)$")

def why(verdict, block):
    """The line of a test's output that best says why it failed or skipped:
    the last that names the verdict, else the last naming a cause, else
    the last line."""
    said = [l.strip() for l in block
            if l.strip() and not re.match(r"test child forked|Using CPUID", l)]
    own = r"fail|error|wrong|unexpected|expected|didn't" if verdict == "FAILED" else r"skip"
    cause = (r"not supported|unsupported|support|missing|not found|no such|not available|unable|"
             r"cannot|can't|couldn't|could not|permission|not compiled|denied|does not exist|no .* found")
    for pattern in (own, cause):
        hits = [l for l in said if re.search(pattern, l, re.I) and not re.search(r"\[(success|ok)\]", l, re.I)]
        if hits:
            return hits[-1]
    return said[-1] if said else "(the test printed no reason)"

class Place:
    """The runs of one machine, the host or a guest: LOGS holds each perf's
    'perf test list' (SIDE-list.txt), index.tsv (a line per run) and the
    runs' output (SIDE/NUM-RUN.log)."""

    def __init__(self, logs, timeout):
        self.logs, self.timeout = logs, timeout
        self.lists = {s: self.listed(s) for s in ("base", "series")}
        self.runs = {}  # (desc, side, run) -> (num, rc, seconds)
        with open(f"{logs}/index.tsv") as f:
            for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                self.runs[(row["desc"], row["side"], int(row["run"]))] = (
                    row["num"], int(row["rc"]), int(row["seconds"]))
        self.descs = list(dict.fromkeys(d for d, side, run in self.runs if run == 1))

    def listed(self, side):
        """{desc: [subtest descs]} of SIDE's 'perf test list'."""
        tests, cur = {}, None
        for line in open(f"{self.logs}/{side}-list.txt", errors="replace"):
            m = re.match(r"^ *(\d+)(\.\d+)?: (.*)$", line.rstrip("\n"))
            if not m:
                continue
            if m.group(2):
                tests[cur].append(m.group(3))
            else:
                cur = m.group(3)
                tests[cur] = []
        return tests

    def parse(self, desc, side, run):
        """{case: (verdict, reason)} of one run; case "" is a suite without subtests."""
        subs = self.lists[side].get(desc)
        if subs is None:
            return {c: ("Missing", "no such test in this perf") for c in self.cases(desc)}
        num, rc, secs = self.runs[(desc, side, run)]
        found, block, inside, last = {}, [], False, ""
        for line in open(f"{self.logs}/{side}/{num}-{run}.log", errors="replace"):
            line = line.rstrip("\n")
            if line == "---- start ----":
                block, inside = [], True
                continue
            if line.startswith("---- end"):
                inside = False
                continue
            if inside:
                block.append(line)
                continue
            m = VERDICT.match(line)
            if not m or m.group(1) != num:
                continue
            verdict = {"Ok": "Ok", "FAILED!": "FAILED"}.get(m.group(4), "Skip")
            reason = m.group(5) or ""
            if verdict != OK and not reason:
                reason = why(verdict, block)
            last = m.group(3) if m.group(2) else ""
            found[last] = (verdict, reason[:300])
        if rc in (124, 137):
            missing = ("Timeout", f"no verdict after {self.timeout} s")
            # perf test reports the case it was in when killed as FAILED.
            if found and found[last][0] == "FAILED":
                found[last] = missing
        else:
            missing = ("NoResult", f"no verdict; perf test exited with {rc}")
        return {c: found.get(c, missing) for c in (subs or [""])}

    def cases(self, desc):
        """The cases of DESC in either perf: "" alone, or its subtests."""
        out = []
        for s in ("series", "base"):
            for c in self.lists[s].get(desc) or [""] if desc in self.lists[s] else []:
                if c not in out:
                    out.append(c)
        if len(out) > 1 and "" in out:
            out.remove("")
        return out

    def compared(self, desc, run):
        b, s = self.parse(desc, "base", run), self.parse(desc, "series", run)
        all_cases = self.cases(desc)
        # A suite one perf runs whole and the other in subtests: the whole
        # suite's verdict stands for each subtest.
        if list(b) == [""]:
            b = {c: b[""] for c in all_cases}
        if list(s) == [""]:
            s = {c: s[""] for c in all_cases}
        miss = ("Missing", "not in this perf's test list")
        return {c: (b.get(c, miss), s.get(c, miss)) for c in all_cases}

def suspect(pair):
    return pair[0][0] == OK and pair[1][0] != OK

# The verdict on a suspect: its pairs of reruns (base and series in turn; not
# the first run, which picked it), a one-sided exact sign test (McNemar's exact test) on
# the pairs where only one of the two is not Ok. k: only the series is not
# Ok; m: only the base. p = P(X >= k) for X ~ Binomial(k + m, 1/2), the
# chance of k or more of the k + m going against the series if each went
# either way alike. A regression when p < ALPHA.
ALPHA = 0.05
RULE = ("a case Ok on the base and not with the series on its first run is run again, base and series in turn; "
        "a regression when, over its pairs of reruns (the first run not counted), k where only the series is not Ok and m where only the base "
        f"is not, p = P(X >= k | X ~ Binomial(k + m, 1/2)) < {ALPHA} (one-sided exact sign test); flaky otherwise")

def sign_p(k, m):
    n = k + m
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n

def tally(pairs):
    """The counts and p of a case's pairs [(base (verdict, reason), series (...)), ...]."""
    def kinds(side):
        v = {}
        for p in pairs:
            if p[side][0] != OK:
                v[p[side][0]] = v.get(p[side][0], 0) + 1
        return v
    k = sum(1 for b, s in pairs if b[0] == OK and s[0] != OK)
    m = sum(1 for b, s in pairs if b[0] != OK and s[0] == OK)
    return {"runs": len(pairs),
            "base_not_ok": sum(1 for b, s in pairs if b[0] != OK), "base_not_ok_as": kinds(0),
            "series_not_ok": sum(1 for b, s in pairs if s[0] != OK), "series_not_ok_as": kinds(1),
            "only_series_not_ok": k, "only_base_not_ok": m, "p": sign_p(k, m)}

def settled(t, left):
    """Whether no result of LEFT more pairs can change the verdict: p only
    falls with a pair where only the series is not Ok, only rises with one
    where only the base is not, and stays with any other."""
    k, m = t["only_series_not_ok"], t["only_base_not_ok"]
    return sign_p(k + left, m) >= ALPHA or sign_p(k, m + left) < ALPHA

def counts(t):
    def side(name):
        n, kinds = t[f"{name}_not_ok"], t[f"{name}_not_ok_as"]
        said = f" ({', '.join(f'{v} {c}' for v, c in kinds.items())})" if kinds and set(kinds) != {"FAILED"} else ""
        return f"{name} not Ok {n} of {t['runs']}{said}"
    return (f"{side('base')}, {side('series')}; only the series {t['only_series_not_ok']}, "
            f"only the base {t['only_base_not_ok']}: p={t['p']:.3g}")

if mode == "rerun":
    host = Place(os.environ["LOGS"], os.environ["TIMEOUT"])
    for d in host.descs:
        if any(suspect(p) for p in host.compared(d, 1).values()):
            print(d)
    sys.exit(0)

if mode == "settled":
    # The host's test DESC: its suspects' counts so far; exit 0 if settled.
    host, d = Place(os.environ["LOGS"], os.environ["TIMEOUT"]), os.environ["DESC"]
    done = sorted({k[2] for k in host.runs if k[0] == d})
    later = [host.compared(d, r) for r in done if r > 1]
    left = max(int(os.environ["PAIRS"]) - len(done), 0)
    said, open_ = [], False
    for c, pair in host.compared(d, 1).items():
        if suspect(pair):
            t = tally([a[c] for a in later])
            open_ = open_ or not settled(t, left)
            said.append(f"{c + ': ' if c else ''}{counts(t)}"
                        f"{'' if not settled(t, left) else ' (a regression)' if t['p'] < ALPHA else ' (flaky)'}")
    print("; ".join(said))
    sys.exit(10 if open_ else 0)

def judge(place):
    """Every case of PLACE, base against series: the report's part of it."""
    tests, regressions, flaky, pairs, both, new_not_ok = [], [], [], {}, [], []
    runs = place.runs
    for d in place.descs:
        first = place.compared(d, 1)
        agains = [place.compared(d, r) for r in sorted({k[2] for k in runs if k[0] == d and k[2] > 1})]
        entry = {"desc": d,
                 "base_id": next((r[0] for k, r in runs.items() if k[:2] == (d, "base")), None),
                 "series_id": next((r[0] for k, r in runs.items() if k[:2] == (d, "series")), None),
                 "seconds": {s: runs[(d, s, 1)][2] for s in ("base", "series") if (d, s, 1) in runs},
                 "subtests": []}
        for c, (b, s) in first.items():
            name = f"{d}: {c}" if c else d
            rec = {"base": b[0], "series": s[0]}
            reasons = {k: v[1] for k, v in (("base", b), ("series", s)) if v[0] != OK and v[1]}
            if reasons:
                rec["reason"] = reasons
            regressed = False
            if suspect((b, s)):
                # A regression only if, over the reruns, the series is not
                # Ok significantly more often than the base run beside it
                # (ALPHA). The first run, which made it a suspect, is not
                # counted: a case flaky on both sides would else be called
                # a regression more often than ALPHA says.
                again = [a[c] for a in agains if c in a]
                rec["rerun"] = [{"base": b2[0], "series": s2[0]} for b2, s2 in again]
                t = tally(again)
                rec.update(t)
                regressed = t["p"] < ALPHA
                (regressions if regressed else flaky).append(
                    dict({"test": name, "base": b[0], "series": s[0], "rerun": rec["rerun"], "reason": reasons}, **t))
            rec["regression"] = regressed
            pair = f"{b[0]}/{s[0]}"
            pairs[pair] = pairs.get(pair, 0) + 1
            if OK not in (b[0], s[0]) and "Missing" not in (b[0], s[0]):
                both.append(f"{name}\t{b[0]}/{s[0]}\t{s[1] or b[1]}")
            elif b[0] == "Missing" and s[0] != OK:
                new_not_ok.append(f"{name}\t{s[0]}\t{s[1]}")
            if c:
                entry["subtests"].append(dict(desc=c, **rec))
            else:
                entry.update(rec)
        if entry["subtests"]:
            def worst(side):
                v = [t[side] for t in entry["subtests"] if t[side] != "Missing"]
                if not v:
                    return "Missing"
                for w in ("NoResult", "Timeout", "FAILED"):
                    if w in v:
                        return w
                return OK if OK in v else "Skip"
            entry["base"], entry["series"] = worst("base"), worst("series")
            entry["regression"] = any(t["regression"] for t in entry["subtests"])
        else:
            del entry["subtests"]
        tests.append(entry)
    part = {"pairs": dict(sorted(pairs.items(), key=lambda kv: -kv[1])),
            "verdict_rule": RULE, "regressions": regressions, "flaky": flaky,
            "not_ok_on_both": both,
            "series_only_not_ok": [dict(zip(("test", "series", "reason"), l.split("\t"))) for l in new_not_ok],
            "tests": tests}
    return part

def notes(kernel, both):
    """What is not Ok on both, kept per kernel: its changes are notes only.
    Returns the list's file, relative to TOP."""
    known_dir = os.path.join(os.environ["FULL"], "not-ok-on-both")
    os.makedirs(known_dir, exist_ok=True)
    known = os.path.join(known_dir, kernel + ".txt")
    if os.environ["ONLY"]:  # a partial run says nothing of the list
        known = os.devnull
    elif os.path.exists(known):
        # A test and its verdicts; a reason may name a pid or an address.
        key = lambda l: "\t".join(l.split("\t")[:2])
        old = {key(l) for l in open(known).read().splitlines()}
        now = {key(l) for l in both}
        for l in sorted(old - now):
            print(f"note: no longer not Ok on both on {kernel}: {l}")
        for l in sorted(now - old):
            print(f"note: newly not Ok on both on {kernel}: {l}")
    with open(known, "w") as f:
        f.write("".join(l + "\n" for l in both))
    return known.replace(top + "/", "")

def summary(title, kernel, part, known, where=""):
    pairs, both, tests = part["pairs"], part["not_ok_on_both"], part["tests"]
    print(f"{title}: test cases by verdict, base/series ({sum(pairs.values())} cases in {len(tests)} tests):")
    for p, n in pairs.items():
        print(f"  {n:5d}  {p}")
    print(f"not Ok on both ({len(both)}; {known}):")
    for l in both:
        name, pair, why = l.split("\t")
        print(f"  {pair:16s} {name}: {why}")
    if part["series_only_not_ok"]:
        print(f"not Ok in tests only the series has ({len(part['series_only_not_ok'])}):")
        for t in part["series_only_not_ok"]:
            print(f"  {t['series']:16s} {t['test']}: {t['reason']}")
    for f in part["flaky"]:
        print(f"FLAKY {where}{f['test']}: {counts(f)} (not < {ALPHA}: not a regression)")
    for r in part["regressions"]:
        why = r["reason"].get("series", "")
        print(f"FAIL  {where}{r['test']}: {counts(r)} < {ALPHA}{': ' + why if why else ''}")

def as_json(kernel, part):
    both = part["not_ok_on_both"]
    return dict(part, not_ok_on_both={kernel: [dict(zip(("test", "verdicts", "reason"), l.split("\t"))) for l in both]})

passed = failed = 0
kernel = os.environ["KERNEL"]
report = {"finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
          "base": os.environ["BASE_REV"], "series": os.environ["SERIES_REV"],
          "seconds": int(os.environ["ELAPSED"])}
prev = {}
if os.path.exists(os.environ["PREV"]):
    try:
        prev = json.load(open(os.environ["PREV"]))
    except ValueError:
        pass
    # Results of before "finished" was written: the file's time says when.
    prev.setdefault("finished", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(os.environ["PREV"]))))
HOST_KEYS = ("host_kernel", "host_kernel_version", "machine", "timeout_seconds", "pairs", "verdict_rule", "regressions",
             "flaky", "not_ok_on_both", "series_only_not_ok", "tests")
print(f"base {os.environ['BASE_REV']}, series {os.environ['SERIES_REV']}")
if os.environ["LOGS"]:
    part = judge(Place(os.environ["LOGS"], os.environ["TIMEOUT"]))
    report.update({"host_kernel": kernel, "host_kernel_version": os.uname().version,
                   "machine": os.uname().machine, "timeout_seconds": int(os.environ["TIMEOUT"])})
    report.update(as_json(kernel, part))
    summary(f"host kernel {kernel}", kernel, part, notes(kernel, part["not_ok_on_both"]))
    passed += sum(part["pairs"].values()) - len(part["regressions"])
    failed += len(part["regressions"])
elif "host_kernel" in prev:
    # FULL_HOST=0: the host's part of the last run that had one stays, marked.
    report.update({k: prev[k] for k in HOST_KEYS if k in prev})
    report["not_ok_on_both"] = {k: v for k, v in prev.get("not_ok_on_both", {}).items() if k == prev["host_kernel"]}
    report["host_from_earlier_run"] = prev.get("host_from_earlier_run") or prev["finished"]
    print(f"host: not run (FULL_HOST=0); perf-test.json keeps the host's part of the run of {report['host_from_earlier_run']}")

# The guests: GUESTS has a line "ROW<TAB>DIR" per row booted.
guests = {}
for line in filter(None, os.environ["GUESTS"].split("\n")):
    row, d = line.split("\t")
    res = {}
    if os.path.exists(f"{d}/results.txt"):
        for l in open(f"{d}/results.txt", errors="replace"):
            k, _, v = l.rstrip("\n").partition("=")
            res.setdefault(k, v)
    g = {"status": res.get("STATUS", "not-run"), "kernel_package": res.get("KERNEL_PACKAGE"),
         "boot_seconds": res.get("BOOT_SECONDS"), "run_seconds": res.get("RUN_SECONDS"),
         "perfs": open(f"{d}/perfs.txt").read().split("\n")[:2] if os.path.exists(f"{d}/perfs.txt") else None}
    if g["status"] != "done" or "PT_KERNEL" not in res or not os.path.exists(f"{d}/logs/index.tsv"):
        g["error"] = res.get("ERROR") or f"the guest did not finish (status {g['status']}; see {d.replace(top + '/', '')}/run.log)"
        guests[row] = g
        print(f"FAIL  guest {row}: {g['error']}")
        failed += 1
        continue
    gk = res["PT_KERNEL"]
    part = judge(Place(f"{d}/logs", res.get("PT_TIMEOUT", "?")))
    g.update({"kernel": gk, "machine": res.get("PT_MACHINE"), "timeout_seconds": int(res.get("PT_TIMEOUT", 0))})
    g.update(as_json(gk, part))
    guests[row] = g
    report.setdefault("not_ok_on_both", {})[gk] = g["not_ok_on_both"][gk]
    summary(f"guest {row} (kernel {gk}; {g['run_seconds']} s)", gk, part, notes(gk, part["not_ok_on_both"]),
            f"{row}: ")
    passed += sum(part["pairs"].values()) - len(part["regressions"])
    failed += len(part["regressions"])
if guests:
    report["guests"] = guests
elif prev.get("guests"):
    # FULL_VM=0: the guests' part of the last run that had one stays, marked.
    report["guests"] = prev["guests"]
    report["guests_from_earlier_run"] = prev.get("guests_from_earlier_run") or prev["finished"]
    for g in prev["guests"].values():
        if g.get("kernel"):
            report.setdefault("not_ok_on_both", {})[g["kernel"]] = g["not_ok_on_both"][g["kernel"]]
    print(f"guests: not run (FULL_VM=0); perf-test.json keeps those of the run of {report['guests_from_earlier_run']}")

with open(os.environ["JSON"], "w") as f:
    json.dump(report, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"results: {os.environ['JSON'].replace(top + '/', '')}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
}

mkdir -p "$BUILD/results/logs"
main "$@" 2>&1 | tee "$BUILD/results/logs/check-full.log"
exit "${PIPESTATUS[0]}"
