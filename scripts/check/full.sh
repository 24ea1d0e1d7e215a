#!/bin/bash
# make check-full: every perf test on this host, the 7.3 base against the series, in the distribution's configuration.
#
# Not covered yet: the same in the arm64 and x86_64 QEMU guests (this host only).
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
# result or missing) on a first run and again when both are run once more.
#
# Writes build/results/perf-test.json (cleared at the start of each run),
# the logs of every test under build/results/logs/full/, and the list of
# what is not Ok on both to build/full/not-ok-on-both/KERNEL.txt, whose
# changes since the last run on the same kernel it prints as notes.
# Ends with "N passed, N failed" (test cases compared without regression,
# regressions); exits non-zero if any regressed.
# Usage: scripts/check/full.sh   (FULL_TIMEOUT: seconds per test, 120;
# FULL_ONLY=REGEX: only the tests whose description matches, for a quick try)
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
mkdir -p "$full" "$results"
rm -f "$json"
rm -rf "$logs"
mkdir -p "$logs"

"$TOP/scripts/build/install-deps.sh" "${DISTRO_PACKAGES[@]}" >&2

# 1. The two perfs.
base_rev=$(git -C "$SRC" rev-parse --verify 'base^{commit}')
series_rev=$(git -C "$SRC" rev-parse --verify 'HEAD^{commit}')
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

# 3. A test Ok on the base and not with the series runs again, both sides,
# FULL_RERUNS times (3): some of perf's tests are flaky on these machines
# ("Number of exit events of a simple workload" failed 7 of 12 runs of the
# base, 5 of 12 of the series), so one rerun is not enough to tell.
mapfile -t again < <(compare rerun)
for desc in "${again[@]}"; do
	say "[$((SECONDS - start)) s] again: $desc (Ok on the base, not with the series)"
	for ((run = 2; run <= ${FULL_RERUNS:-3} + 1; run++)); do
		run_test base "$desc" "$run"
		run_test series "$desc" "$run"
	done
done

# 4. The comparison: perf-test.json, the summary and the verdict.
rc=0
compare report || rc=$?
say "make check-full took $((SECONDS - start)) s"
return $rc
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

# Parse the logs. 'compare rerun' prints the tests to run again; 'compare
# report' writes perf-test.json and the summary, and fails on a regression.
compare() { # MODE
	MODE=$1 LOGS=$logs JSON=$json KERNEL=$kernel FULL=$full TOP=$TOP \
		BASE_REV="$(git -C "$SRC" describe --tags --always "$base_rev") ($base_rev)" \
		SERIES_REV="$(git -C "$SRC" describe --tags --always "$series_rev") ($series_rev)" \
		TIMEOUT=$timeout_s ELAPSED=$((SECONDS - start)) ONLY=${FULL_ONLY:-} python3 - <<'PY'
import csv, json, os, re, sys

logs, mode = os.environ["LOGS"], os.environ["MODE"]
OK = "Ok"

def listed(side):
    """{desc: [subtest descs]} of SIDE's 'perf test list'."""
    tests, cur = {}, None
    for line in open(f"{logs}/{side}-list.txt", errors="replace"):
        m = re.match(r"^ *(\d+)(\.\d+)?: (.*)$", line.rstrip("\n"))
        if not m:
            continue
        if m.group(2):
            tests[cur].append(m.group(3))
        else:
            cur = m.group(3)
            tests[cur] = []
    return tests

lists = {s: listed(s) for s in ("base", "series")}
runs = {}  # (desc, side, run) -> (num, rc, seconds)
with open(f"{logs}/index.tsv") as f:
    for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
        runs[(row["desc"], row["side"], int(row["run"]))] = (row["num"], int(row["rc"]), int(row["seconds"]))

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

def parse(desc, side, run):
    """{case: (verdict, reason)} of one run; case "" is a suite without subtests."""
    subs = lists[side].get(desc)
    if subs is None:
        return {c: ("Missing", "no such test in this perf") for c in cases(desc)}
    num, rc, secs = runs[(desc, side, run)]
    found, block, inside = {}, [], False
    for line in open(f"{logs}/{side}/{num}-{run}.log", errors="replace"):
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
        missing = ("Timeout", f"no verdict after {os.environ['TIMEOUT']} s")
        # perf test reports the case it was in when killed as FAILED.
        if found and found[last][0] == "FAILED":
            found[last] = missing
    else:
        missing = ("NoResult", f"no verdict; perf test exited with {rc}")
    return {c: found.get(c, missing) for c in (subs or [""])}

def cases(desc):
    """The cases of DESC in either perf: "" alone, or its subtests."""
    out = []
    for s in ("series", "base"):
        for c in lists[s].get(desc) or [""] if desc in lists[s] else []:
            if c not in out:
                out.append(c)
    if len(out) > 1 and "" in out:
        out.remove("")
    return out

def compared(desc, run):
    b, s = parse(desc, "base", run), parse(desc, "series", run)
    all_cases = cases(desc)
    # A suite one perf runs whole and the other in subtests: the whole
    # suite's verdict stands for each subtest.
    if list(b) == [""]:
        b = {c: b[""] for c in all_cases}
    if list(s) == [""]:
        s = {c: s[""] for c in all_cases}
    miss = ("Missing", "not in this perf's test list")
    return {c: (b.get(c, miss), s.get(c, miss)) for c in all_cases}

descs = list(dict.fromkeys(d for d, side, run in runs if run == 1))

def suspect(pair):
    return pair[0][0] == OK and pair[1][0] != OK

if mode == "rerun":
    for d in descs:
        if any(suspect(p) for p in compared(d, 1).values()):
            print(d)
    sys.exit(0)

tests, regressions, flaky, pairs, both, new_not_ok = [], [], [], {}, [], []
for d in descs:
    first = compared(d, 1)
    agains = [compared(d, r) for r in sorted({k[2] for k in runs if k[0] == d and k[2] > 1})]
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
            # A regression only if every rerun is Ok on the base and not
            # with the series.
            again = [a[c] for a in agains if c in a] or [(b, s)]
            rec["rerun"] = [{"base": b2[0], "series": s2[0]} for b2, s2 in again]
            regressed = all(suspect(p) for p in again)
            (regressions if regressed else flaky).append(
                {"test": name, "base": b[0], "series": s[0], "rerun": rec["rerun"], "reason": reasons})
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

kernel = os.environ["KERNEL"]
report = {"host_kernel": kernel, "host_kernel_version": os.uname().version,
          "machine": os.uname().machine,
          "base": os.environ["BASE_REV"], "series": os.environ["SERIES_REV"],
          "seconds": int(os.environ["ELAPSED"]),
          "timeout_seconds": int(os.environ["TIMEOUT"]),
          "pairs": dict(sorted(pairs.items(), key=lambda kv: -kv[1])),
          "regressions": regressions, "flaky": flaky,
          "not_ok_on_both": {kernel: [dict(zip(("test", "verdicts", "reason"), l.split("\t"))) for l in both]},
          "series_only_not_ok": [dict(zip(("test", "series", "reason"), l.split("\t"))) for l in new_not_ok],
          "tests": tests}
with open(os.environ["JSON"], "w") as f:
    json.dump(report, f, indent=1, ensure_ascii=False)
    f.write("\n")

# What is not Ok on both, kept per host kernel: its changes are notes only.
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

top = os.environ["TOP"]
print(f"host kernel {kernel}; base {os.environ['BASE_REV']}, series {os.environ['SERIES_REV']}")
print(f"test cases by verdict, base/series ({sum(pairs.values())} cases in {len(tests)} tests):")
for p, n in report["pairs"].items():
    print(f"  {n:5d}  {p}")
print(f"not Ok on both ({len(both)}; {known.replace(top + '/', '')}):")
for l in both:
    name, pair, why = l.split("\t")
    print(f"  {pair:16s} {name}: {why}")
if new_not_ok:
    print(f"not Ok in tests only the series has ({len(new_not_ok)}):")
    for l in new_not_ok:
        name, v, why = l.split("\t")
        print(f"  {v:16s} {name}: {why}")
for f in flaky:
    then = ", ".join(f"{r['base']}/{r['series']}" for r in f["rerun"])
    print(f"FLAKY {f['test']}: {f['base']}/{f['series']}, then {then}")
for r in regressions:
    why = r["reason"].get("series", "")
    print(f"FAIL  {r['test']}: Ok on the base, {r['series']} with the series in every run{': ' + why if why else ''}")
print(f"results: {os.environ['JSON'].replace(top + '/', '')}")
passed = sum(pairs.values()) - len(regressions)
print(f"{passed} passed, {len(regressions)} failed")
sys.exit(1 if regressions else 0)
PY
}

mkdir -p "$BUILD/results/logs"
main "$@" 2>&1 | tee "$BUILD/results/logs/check-full.log"
exit "${PIPESTATUS[0]}"
