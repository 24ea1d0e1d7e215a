#!/bin/bash
# make check: every check of the series, ending with "N passed, N failed".
#
# The project's test command (make check): checks the series and runs perf's
# own test suites that touch kernel maps. Prints one line per check and ends
# with "N passed, N failed, N skipped"; the same goes to
# build/results/check.txt. Exits non-zero if any check failed.
# Expects 'make perf' to have run (the Makefile sees to it).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

# All in a function, so that bash has read the whole script before it runs:
# editing it during a run cannot change what the run does.
main() {

check_start=$SECONDS
results=$BUILD/results
logs=$results/logs
mkdir -p "$logs"
out=$results/check.txt
: >"$out"
passed=0 failed=0 skipped=0

report() { # STATUS NAME [DETAIL]
	local line
	line=$(printf '%-5s %s%s' "$1" "$2" "${3:+ ($3)}")
	echo "$line" | tee -a "$out"
	case $1 in
	PASS | XFAIL) passed=$((passed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
}

# How long each step took: printed at the end, since a run's output is all
# that CI keeps.
steps=() step_start=$SECONDS
# The CPU time of this script's own processes, in clock ticks: this shell's
# and that of every child it has reaped (/proc/PID/stat fields 14-17,
# utime, stime, cutime, cstime), so whatever else runs on the machine is
# not counted. A background job (bg_start) records its own CPU time when it
# ends (bg_end); bash reaps it whenever it exits, so its time is taken out
# of the step it ended in and reported on a line of its own.
# And the machine's busy and total time (/proc/stat's first line): how busy
# the machine was during the run says whether it was short of CPU.
proc_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat"; }
cpu_jiffies() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
read -r busy_start all_start < <(cpu_jiffies)
hz=$(getconf CLK_TCK)
declare -A bg_pid=()
bg_start() { echo "$SECONDS" >"$logs/bg-$1.start"; rm -f "$logs/bg-$1.cpu"; } # NAME, before '&'
bg_end() { # NAME, the job's last command: its CPU ticks and wall seconds
	local pid=$BASHPID # the job's shell (in $(...), BASHPID is another)
	echo "$(proc_ticks "$pid") $((SECONDS - $(cat "$logs/bg-$1.start")))" >"$logs/bg-$1.cpu"
}
step_own=$(proc_ticks $$)
step_done() { # NAME: its wall time, and its own processes' CPU time
	local own name ended=() bg=0 ticks wall
	# Jobs that have ended and been reaped (not even a zombie): their
	# time is in this shell's cutime, read after this check.
	for name in "${!bg_pid[@]}"; do
		if ! kill -0 "${bg_pid[$name]}" 2>/dev/null && [ -s "$logs/bg-$name.cpu" ]; then
			ended+=("$name")
		fi
	done
	own=$(proc_ticks $$)
	for name in "${ended[@]}"; do
		read -r ticks wall <"$logs/bg-$name.cpu"
		bg=$((bg + ticks))
		unset "bg_pid[$name]"
		steps+=("(background: $name $wall s (CPU $((ticks / hz)) s))")
	done
	steps+=("$1 $((SECONDS - step_start)) s (CPU $(((own - step_own - bg) / hz)) s)")
	step_start=$SECONDS step_own=$own
}

mapfile -t patches < <(series_patches)

# make check's two rows of the real-kernel matrix (step 9), which stand for
# the mission: arm64 with KASLR, its text segment inside vmalloc, modules,
# and a --kcore copy with a module above _end; x86_64 with KASLR, where
# "Object code reading" reads kernel code through kcore. Both boot the
# base's own kernel, pinned strictly (vm/configs/). make check-vm runs every
# row.
CHECK_ROWS=(arm64-max-kaslr-7.3 x86_64-kaslr-7.3)

# Work that waits on the network or on timeouts runs in the background from
# the start, beside the builds that keep the CPUs busy: the 6.12 base's
# download (step 8), then what the two rows fetch (sysroot, kernels, root
# file systems) and the QEMU harness's own tests, which spend most of their
# two minutes waiting for timeouts, and the arm64 guest's perfs, built at
# the lowest priority (step 9). Each step waits for its job before it
# starts.
stable_fetch_pid= vm_early_pid=
if [ "$BASE" = 7.3 ] && [ "${STABLE:-1}" != 0 ]; then
	bg_start stable-fetch
	{
		BASE=6.12 "$TOP/scripts/build/fetch-base.sh" >"$logs/stable-fetch.log" 2>&1 || rc=$?
		bg_end stable-fetch
		exit "${rc:-0}"
	} &
	stable_fetch_pid=$! bg_pid[stable-fetch]=$!
fi
if [ "${VM:-1}" != 0 ]; then
	bg_start rows-prep
	{
		# The sysroots first: the cross builds need them, and after
		# them the downloads and the builds below share no file they
		# write.
		"$TOP/vm/host/matrix.sh" -s -o "$results/vm" "${CHECK_ROWS[@]}" >"$logs/vm-fetch.log" 2>&1 || true
		# Kernels and root file systems, then the harness's own tests.
		# Not niced: the matrix waits for them (at nice 19 beside the
		# builds the downloads took 1,481 s, not 342 s).
		{
			"$TOP/vm/host/matrix.sh" -f -o "$results/vm" "${CHECK_ROWS[@]}" >>"$logs/vm-fetch.log" 2>&1 || true
			"$TOP/checks/vm-harness.sh" "$results/vm-harness" 2>"$logs/vm-harness.log" \
				>"$logs/vm-harness.txt" || true
		} &
		# Beside them, the guests' cross-built perfs, at the lowest
		# priority: they take the CPU time the steps below leave idle,
		# and the matrix finds them built. (After the downloads, they
		# started 12 minutes in and were still building when the steps
		# below had finished.)
		nice -n 19 "$TOP/vm/host/matrix.sh" -b -o "$results/vm" "${CHECK_ROWS[@]}" >"$logs/vm-build.log" 2>&1 || true
		wait
		bg_end rows-prep
	} &
	vm_early_pid=$! bg_pid[rows-prep]=$!
fi

# Extra builds of the series, and their make arguments. sanitize is a
# DEBUG=1 build (perf's make_debug, maps' invariants asserted) with the
# sanitizers on: a separate plain DEBUG=1 build would run the same
# assertions on the same code without them, for 3-5 minutes of CPU.
VARIANTS=(sanitize)
variant_args() {
	case $1 in
	# ASan turns on reference count checking (tools/lib/perf rc_check.h).
	sanitize) args=(DEBUG=1
		"EXTRA_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer") ;;
	esac
}
n=${#patches[@]}

# 1. The series applies to the pinned base, in a scratch worktree.
"$TOP/scripts/build/worktree.sh" base "$BUILD/trees/apply"
apply_ok=1
for i in "${!patches[@]}"; do
	if ! git -C "$BUILD/trees/apply" am -q --committer-date-is-author-date \
		"$TOP/${patches[$i]}" >"$logs/apply.log" 2>&1; then
		git -C "$BUILD/trees/apply" am --abort >/dev/null 2>&1 || true
		report FAIL "series applies to the base" "patch $((i + 1)) ${patches[$i]} does not apply"
		apply_ok=0
		break
	fi
done
[ $apply_ok = 1 ] && report PASS "series applies to the base" \
	"$n patches: $(postings | wc -l) postings and the check layer"

step_done apply

# 1b. Each posting made on the tree it declares: its index lines are the
# blobs of the base with the postings it needs first (index-lines.sh).
while IFS=$'\t' read -r verdict name detail; do
	report "$verdict" "$name: index lines of its declared tree" "$detail"
done < <("$TOP/scripts/check/index-lines.sh")
step_done "index lines"

# 2. build/src is what patches/ and checks/layer/ say (nothing unexported
# is being tested).
where="${PATCHES_NAME}${LAYER_DIR:+ and $LAYER_DIR/}"
if [ "$(tree_patch_ids "$SRC")" = "$(series_patch_ids)" ]; then
	report PASS "$SRC_NAME matches $where"
else
	report FAIL "$SRC_NAME matches $where" "run 'make export' or 'make tree'"
fi

# 3. checkpatch on every patch. A patch may accept a checkpatch type by
# giving the reason below its '---' line: "checkpatch: TYPE: reason".
# Two types are ignored for every patch, for reasons that hold for all:
# - UNKNOWN_COMMIT_ID: build/src has no upstream history, so checkpatch
#   cannot look up the commit a Fixes: tag names;
# - FILE_PATH_CHANGES ("does MAINTAINERS need updating?"): MAINTAINERS'
#   PERFORMANCE EVENTS SUBSYSTEM entry covers all of tools/perf/, so a new
#   file there needs no MAINTAINERS change.
for p in "${patches[@]}"; do
	log=$logs/checkpatch-${p//\//_}.log
	findings=$(checkpatch_findings "$p" "$log")
	if [ "$findings" = 0 ]; then
		report PASS "checkpatch $p"
	else
		report FAIL "checkpatch $p" "$findings findings, see ${log#"$TOP"/}"
	fi
done

step_done checkpatch

# 4. Every prefix of the postings builds (bisectable, as posted); the check
# layer, which is never posted, is built whole (build/patched) and not
# prefix by prefix. Built from the longest prefix down, in the worktree and
# object directory make perf left at the series (build-perf.sh --rev): each
# build then recompiles what one patch changes. Reported shortest first.
mapfile -t revs < <(git -C "$SRC" rev-list --reverse base..HEAD)
n_posted=0
for p in "${patches[@]}"; do
	[ -n "$LAYER_DIR" ] && [ "${p#"$LAYER_DIR"/}" != "$p" ] || n_posted=$((n_posted + 1))
done
declare -A bisect_ok=()
for ((k = n_posted < n ? n_posted : n - 1; k >= 1; k--)); do
	bisect_ok[$k]=no
	if "$TOP/scripts/build/perf.sh" --rev "${revs[$((k - 1))]}" "$BUILD/bisect" \
		>"$logs/bisect-$k.log" 2>&1; then
		bisect_ok[$k]=yes
	fi
done
for ((k = 1; k < n; k++)); do
	[ -n "${bisect_ok[$k]:-}" ] || continue
	if [ "${bisect_ok[$k]}" = yes ]; then
		report PASS "builds with patches 1-$k of $n"
	else
		report FAIL "builds with patches 1-$k of $n" "see build/results/logs/bisect-$k.log"
	fi
done
if [ -x "$BUILD/patched/perf" ]; then
	report PASS "builds with patches 1-$n of $n" "build/patched/perf${LAYER_DIR:+; the $((n - n_posted)) patches of $LAYER_DIR/ after the postings are not built one by one}"
else
	report FAIL "builds with patches 1-$n of $n" "no build/patched/perf"
fi

step_done bisect

# 5. perf's own suites, with the patched perf, started from the source tree's
# tools/perf directory (the shell tests are found from there) and with that
# perf first on PATH (shell tests run 'perf').
SUITES=("${PERF_SUITES[@]}")
run_suites() { # LABEL PERF SRC
	"$TOP/scripts/check/run-perf-tests.sh" "$1" "$2" "$3" "${SUITES[@]}" >"$logs/suites-$1.txt"
	while IFS='|' read -r status name detail; do
		report "$status" "$name" "$detail"
	done <"$logs/suites-$1.txt"
}
# The allocation failure cases of "kcore maps" fail each allocation of a
# kcore load in turn through an LD_PRELOAD shim (checks/failalloc/), which
# perf test alone does not have: it skips them.
run_enomem() { # LABEL PERF
	local log=$logs/enomem-$1.txt detail
	if "$TOP/checks/failalloc/run-kcore-enomem.sh" "$2" "$BUILD/failalloc" >"$log" 2>&1; then
		detail=$(sed -n 's/^\([0-9]*\) loads with an allocation failing.*/\1/p' "$log" |
			paste -sd+ -)
		report PASS "$1: kcore maps, allocation failures" "${detail:-?} loads"
	else
		# The first reason, so that a run's output alone says why.
		detail=$(grep -m1 -E '^(no result|FAIL|ERROR|SUMMARY)' "$log" | cut -c1-200) || true
		report FAIL "$1: kcore maps, allocation failures" \
			"see ${log#"$TOP"/}${detail:+: $detail}"
	fi
}
run_suites patched "$BUILD/patched/perf" "$SRC"
run_enomem patched "$BUILD/patched/perf"
step_done suites

# 5b. The postings alone, as a maintainer applies them: the perf of the last
# posting's commit (no check layer) runs the suites that exist there, the
# posted tests among them. This build runs perf's own shellcheck of its
# shell scripts (NO_SHELLCHECK= undoes base.conf's NO_SHELLCHECK=1), the
# posted record_kcore.sh among them.
last_posting=$(postings | tail -1)
if [ -n "$last_posting" ]; then
	# make runs the shellcheck again only without its last log.
	find "$BUILD/obj" -name 'record_kcore.sh.shellcheck_log' -delete
	rm -f "$BUILD/postings/.build-key"
	if "$TOP/scripts/build/perf.sh" --rev "posting/$last_posting" "$BUILD/postings" NO_SHELLCHECK= \
		>"$logs/build-postings.log" 2>&1; then
		if find "$BUILD/obj" -name 'record_kcore.sh.shellcheck_log' | grep -q .; then
			report PASS "postings: perf's build shellchecks its shell tests" "$(shellcheck --version | sed -n 's/^version: //p')"
		else
			report FAIL "postings: perf's build shellchecks its shell tests" "no tests/shell/record_kcore.sh.shellcheck_log"
		fi
		SUITES=()
		list=$("$BUILD/postings/perf" test list 2>&1)
		for suite in "${PERF_SUITES[@]}"; do
			! grep -qxE " *[0-9]+: $suite" <<<"$list" || SUITES+=("$suite")
		done
		"$TOP/scripts/build/worktree.sh" "posting/$last_posting" "$BUILD/trees/postings"
		run_suites postings "$BUILD/postings/perf" "$BUILD/trees/postings"
		SUITES=("${PERF_SUITES[@]}")
	else
		report FAIL "postings: build" "see build/results/logs/build-postings.log"
	fi
	step_done postings
fi

# 5b'. A posting that needs others (patches/postings' third column, names
# joined by commas, in the order they apply) on the base with only the
# postings it needs: what a maintainer who applies just
# those builds and tests. Their patch files are applied with git am, as
# posted (a cherry-pick would also apply what needs the history of our
# tree). The perf is built like step 5b's, in the shared object
# directory, so only the files that differ recompile.
alone_tree=$BUILD/trees/alone
posting_patches() { # NAME: its patch files, cover letter left out
	find "$PATCHES/$1" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort
}
while read -r name _ needs _; do
	case $name:$needs in \#* | *: | *:-) continue ;; esac
	"$TOP/scripts/build/worktree.sh" base "$alone_tree"
	mapfile -t files < <(for n in $(posting_needs "$name") "$name"; do posting_patches "$n"; done)
	label="$name on the base with only $(posting_needs "$name" | paste -sd' ' | sed 's/ / and /g')"
	if ! git -C "$alone_tree" am -q --committer-date-is-author-date "${files[@]}" \
		>"$logs/alone-$name.log" 2>&1; then
		git -C "$alone_tree" am --abort >/dev/null 2>&1 || true
		report FAIL "$label: applies" "see build/results/logs/alone-$name.log"
		continue
	fi
	if "$TOP/scripts/build/perf.sh" --rev "$(git -C "$alone_tree" rev-parse HEAD)" \
		"$BUILD/alone" >>"$logs/alone-$name.log" 2>&1; then
		SUITES=()
		list=$("$BUILD/alone/perf" test list 2>&1)
		for suite in "${PERF_SUITES[@]}"; do
			! grep -qxE " *[0-9]+: $suite" <<<"$list" || SUITES+=("$suite")
		done
		run_suites "alone-$name" "$BUILD/alone/perf" "$alone_tree"
		SUITES=("${PERF_SUITES[@]}")
	else
		report FAIL "$label: build" "see build/results/logs/alone-$name.log"
	fi
done < <(grep -v '^#' "$PATCHES/postings" | awk -v b="$BASE." 'NF >= 3 && index($2, b) == 1')
step_done alone

# 5c. The vDSO's code read by perf test "Object code reading", with samples
# in the vDSO (checks/vdso/): 7.3's MMAP2 synthesis gives the vDSO a dso
# with no data, which the vdso-build-id posting fixes. The base's failure is
# an XFAIL; the series must read vDSO samples.
vdso_check() { # LABEL PERF EXPECT(fail|pass)
	local res ocr read nodata
	res=$("$TOP/checks/vdso/run.sh" "$2" "$BUILD/vdso-$1" 2>"$logs/vdso-$1.log") || true
	ocr=$(sed -n 's/^OCR=//p' <<<"$res")
	read=$(sed -n 's/^VDSO_READ=//p' <<<"$res")
	nodata=$(sed -n 's/^VDSO_NO_DATA=//p' <<<"$res")
	local detail="$ocr, vDSO samples read: ${read:-?}, with no data: ${nodata:-?}; log: ${BUILD#"$TOP"/}/vdso-$1/ocr.log"
	case $3:$ocr:$read:$nodata in
	pass:Ok:[1-9]*:0) report PASS "$1: Object code reading with vDSO samples" "$detail" ;;
	fail:FAILED!:0:[1-9]*) report XFAIL "$1: Object code reading with vDSO samples" "$detail; expected: a [vdso] dso with no data (vdso-build-id)" ;;
	*) report FAIL "$1: Object code reading with vDSO samples" "$detail" ;;
	esac
}
if [ "$BASE" = 7.3 ]; then
	vdso_check baseline "$BUILD/baseline/perf" fail
	vdso_check patched "$BUILD/patched/perf" pass
	step_done vdso
fi

# 6. The same suites in a build that checks more: maps invariants asserted
# (DEBUG=1), and reference counts, memory errors, leaks and undefined
# behaviour (REFCNT_CHECKING=1 under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer).
# Built as a --rev build of HEAD (the commits step 2 checked), in the object
# directory that step 6c's prefixes then share.
from=("$SRC")
[ -n "$(git -C "$SRC" status --porcelain)" ] || from=(--rev HEAD)
for variant in "${VARIANTS[@]}"; do
	variant_args "$variant"
	if "$TOP/scripts/build/perf.sh" "${from[@]}" "$BUILD/variants/$variant" "${args[@]}" \
		>"$logs/build-$variant.log" 2>&1; then
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			run_suites "$variant" "$BUILD/variants/$variant/perf" "$SRC"
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			run_enomem "$variant" "$BUILD/variants/$variant/perf"
	else
		report FAIL "$variant: build" "see build/results/logs/build-$variant.log"
	fi
	step_done "$variant"
done

# 6c. The sanitized build of every prefix of the core posting, and its
# suites at each with the posting's final test (scripts/check/prefixes.sh):
# every patch of kcore-merge builds and passes under ASan, LSan and UBSan,
# failing only the final test's cases of later patches, with no sanitizer
# report. Its builds share step 6's
# object directory, so each recompiles what one patch changes.
"$TOP/scripts/check/prefixes.sh" >"$logs/prefixes.txt" 2>"$logs/prefixes.log" || true
while IFS='|' read -r status name detail; do
	report "$status" "$name" "$detail"
done <"$logs/prefixes.txt"
grep -q . "$logs/prefixes.txt" || report FAIL "sanitized prefixes" "no results: see build/results/logs/prefixes.log"
step_done "sanitized prefixes"

# 6b. The configurations perf's maintainers and the kernel test robot build:
# the distribution's (auxtrace and CoreSight on), clang 19, and perf's own
# no_libelf, no_libdw, refcnt_check, minimal and util_map_o, and capstone
# (libcapstone on), each building the files the series changes (scripts/check/configs.sh -o; make
# check-configs builds and tests whole perfs). DEBUG=1 is step 6's build.
"$TOP/scripts/check/configs.sh" -o >"$logs/configs.txt" 2>"$logs/configs.log" || true
while IFS='|' read -r status name detail; do
	report "$status" "$name" "$detail"
done <"$logs/configs.txt"
grep -q . "$logs/configs.txt" || report FAIL "build: configurations" "no results: see build/results/logs/configs.log"
step_done configurations

# Commit, in worktree DIR of the base, HEAD's two kcore suites registered
# next to "maps" as HEAD registers them.
add_kcore_suites() { # DIR
	local t=tools/perf/tests
	git -C "$1" checkout -q "$(git -C "$SRC" rev-parse HEAD)" -- "$t/kcore-merge.c" "$t/kcore-maps.c"
	sed -i 's/^perf-test-y += maps\.o$/&\nperf-test-y += kcore-merge.o\nperf-test-y += kcore-maps.o/' "$1/$t/Build"
	sed -i 's/^\t&suite__maps,$/&\n\t\&suite__kcore_merge,\n\t\&suite__kcore_maps,/' "$1/$t/builtin-test.c"
	sed -i 's/^DECLARE_SUITE(maps);$/&\nDECLARE_SUITE(kcore_merge);\nDECLARE_SUITE(kcore_maps);/' "$1/$t/tests.h"
	[ "$(git -C "$1" diff HEAD --numstat | wc -l)" = 5 ] || { echo "the suites did not register"; return 1; }
	git -C "$1" commit -q -a -m "the kcore suites of $(git -C "$SRC" rev-parse --short HEAD)"
}

# 7. What the base gets wrong: the base with the two kcore suites as HEAD
# has them (the posted test, which comes in with kcore-merge's first
# change, and our check layer's), whose failures there are listed in
# checks/xfail-base+tests.txt.
bt=$BUILD/trees/base+tests
"$TOP/scripts/build/worktree.sh" base "$bt"
if add_kcore_suites "$bt" >"$logs/base+tests.log" 2>&1 &&
	"$TOP/scripts/build/perf.sh" --rev "$(git -C "$bt" rev-parse HEAD)" \
		"$BUILD/base+tests" >>"$logs/base+tests.log" 2>&1; then
	SUITES=("Kernel maps from kcore" "kcore maps")
	run_suites base+tests "$BUILD/base+tests/perf" "$bt"
else
	report FAIL "base+tests: build" "see build/results/logs/base+tests.log"
fi

step_done base+tests

# 8. The stable postings (scripts/check/stable.sh): each applies to the 6.12
# base, passes checkpatch, builds in the default configuration and in the
# one that compiles every file it touches (sanitized), and perf's annotate
# suites pass in both. STABLE=0 leaves it out.
if [ "$BASE" = 7.3 ] && [ "${STABLE:-1}" != 0 ]; then
	[ -z "$stable_fetch_pid" ] || wait "$stable_fetch_pid" || true
	say "the stable postings on the 6.12 base: two builds and the annotate suites (about 6 minutes)"
	"$TOP/scripts/check/stable.sh" >"$logs/stable.txt" 2>"$logs/stable.log" || true
	while IFS='|' read -r status name detail; do
		report "$status" "$name" "$detail"
	done <"$logs/stable.txt"
	grep -q . "$logs/stable.txt" ||
		report FAIL "stable-6.12" "no results: see ${logs#"$TOP"/}/stable.log"
	step_done stable
fi

# 9. Real kernels: make check's two rows of the QEMU matrix (CHECK_ROWS;
# vm/host/matrix.sh, vm/README.md), both perfs against the real /proc/kcore
# of the base's own kernel; the baseline's known defects and the
# emulator's limits are in checks/expect-vm.txt. make check-vm runs every
# row. VM=0 leaves them out, reported as one skipped check.
if [ "${VM:-1}" = 0 ]; then
	report SKIP "vm: real-kernel matrix" "VM=0"
else
	if kill -0 "$vm_early_pid" 2>/dev/null; then
		say "waiting for the rows' downloads, the arm64 guest's perfs and the QEMU harness's own tests (logs: build/results/logs/vm-fetch.log, vm-build.log)"
	fi
	wait "$vm_early_pid" || true
	step_done "waiting for the rows' downloads and builds"
	while IFS='|' read -r status name detail; do
		report "$status" "$name" "$detail"
	done <"$logs/vm-harness.txt"
	grep -q . "$logs/vm-harness.txt" ||
		report FAIL "vm harness" "no results: see build/results/logs/vm-harness.log"

	say "real-kernel rows ${CHECK_ROWS[*]}: QEMU guests (about 5 minutes; log: build/results/logs/vm-matrix.log)"
	rm -f "$results/vm/checks.txt"
	"$TOP/vm/host/matrix.sh" -o "$results/vm" "${CHECK_ROWS[@]}" 2>&1 | tee "$logs/vm-matrix.log" |
		grep --line-buffered -E '^(==>|\[)' >&2 || true
	if [ -s "$results/vm/checks.txt" ]; then
		while IFS='|' read -r status name detail; do
			report "$status" "$name" "$detail"
		done <"$results/vm/checks.txt"
	else
		report FAIL "vm: real-kernel rows" "no verdicts: see build/results/logs/vm-matrix.log"
	fi
	step_done rows
fi

# The results page (make results) is of one commit: a note, counted in no
# total, when what the results depend on (stamp.sh's list) changed since.
page_commit=$(sed -n '1s/^<!-- results of commit \([0-9a-f]*\) -->$/\1/p' "$TOP/Documentation/results.md")
if [ -z "$page_commit" ] || ! git -C "$TOP" cat-file -e "$page_commit^{commit}" 2>/dev/null; then
	echo "NOTE results.md names no commit of this history: make check-all, then make results" | tee -a "$out"
elif ! git -C "$TOP" diff --quiet "$page_commit" -- patches checks scripts bases vm base.conf Makefile; then
	echo "NOTE results.md is stale (since ${page_commit:0:12})" | tee -a "$out"
fi

read -r busy_end all_end < <(cpu_jiffies)
echo "steps: $(printf '%s, ' "${steps[@]}" | sed 's/, $//'); CPU busy $(((busy_end - busy_start) * 100 / (all_end - all_start)))% of the run" | tee -a "$out"
echo "make check took $((SECONDS - check_start)) s" | tee -a "$out"
echo "$passed passed, $failed failed, $skipped skipped" | tee -a "$out"
[ "$failed" = 0 ]
}

main "$@"
