#!/bin/bash
# The project's test command (make check): checks the series and runs perf's
# own test suites that touch kernel maps. Prints one line per check and ends
# with "N passed, N failed, N skipped"; the same goes to
# build/results/check.txt. Exits non-zero if any check failed.
# Expects 'make perf' to have run (the Makefile sees to it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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

mapfile -t patches < <(series_patches)
n=${#patches[@]}

# 1. The series applies to the pinned base, in a scratch worktree.
"$TOP/scripts/worktree.sh" base "$BUILD/trees/apply"
apply_ok=1
for i in "${!patches[@]}"; do
	if ! git -C "$BUILD/trees/apply" am -q --committer-date-is-author-date \
		"$TOP/patches/${patches[$i]}" >"$logs/apply.log" 2>&1; then
		git -C "$BUILD/trees/apply" am --abort >/dev/null 2>&1 || true
		report FAIL "series applies to the base" "patch $((i + 1)) ${patches[$i]} does not apply"
		apply_ok=0
		break
	fi
done
[ $apply_ok = 1 ] && report PASS "series applies to the base" "$n patches"

# 2. build/src is what patches/ says (nothing unexported is being tested).
if [ "$(tree_patch_ids "$SRC")" = "$(series_patch_ids)" ]; then
	report PASS "build/src matches patches/"
else
	report FAIL "build/src matches patches/" "run 'make export' or 'make tree'"
fi

# 3. checkpatch on every patch. A patch may accept a checkpatch type by
# giving the reason below its '---' line: "checkpatch: TYPE: reason".
for p in "${patches[@]}"; do
	ignore=$(sed -n '/^---$/,/^diff --git/s/^checkpatch: \([A-Z_]*\): .*/\1/p' "$TOP/patches/$p" | paste -sd, -)
	(cd "$SRC" && ./scripts/checkpatch.pl --no-tree --terse --show-types \
		${ignore:+--ignore "$ignore"} "$TOP/patches/$p") >"$logs/checkpatch-$p.log" 2>&1 || true
	findings=$(grep -cE '(ERROR|WARNING|CHECK):' "$logs/checkpatch-$p.log" || true)
	if [ "$findings" = 0 ]; then
		report PASS "checkpatch $p"
	else
		report FAIL "checkpatch $p" "$findings findings, see build/results/logs/checkpatch-$p.log"
	fi
done

# 4. Every prefix of the series builds (the full series is build/patched).
for ((k = 1; k < n; k++)); do
	rev=$(git -C "$SRC" rev-list --reverse base..HEAD | sed -n "${k}p")
	"$TOP/scripts/worktree.sh" "$rev" "$BUILD/trees/bisect"
	if "$TOP/scripts/build-perf.sh" "$BUILD/trees/bisect" "$BUILD/bisect" >"$logs/bisect-$k.log" 2>&1; then
		report PASS "builds with patches 1-$k of $n"
	else
		report FAIL "builds with patches 1-$k of $n" "see build/results/logs/bisect-$k.log"
	fi
done
if [ -x "$BUILD/patched/perf" ]; then
	report PASS "builds with patches 1-$n of $n" "build/patched/perf"
else
	report FAIL "builds with patches 1-$n of $n" "no build/patched/perf"
fi

# 5. perf's own suites, with the patched perf, started from the source tree's
# tools/perf directory (the shell tests are found from there) and with that
# perf first on PATH (shell tests run 'perf').
SUITES=(
	"maps__merge_in"
	"Object code reading"
	"Symbols"
	"DSO data tests"
)
"$TOP/scripts/run-perf-tests.sh" patched "$BUILD/patched/perf" "$SRC" "${SUITES[@]}" \
	>"$logs/suites-patched.txt"
while IFS='|' read -r status name detail; do
	report "$status" "$name" "$detail"
done <"$logs/suites-patched.txt"

echo "$passed passed, $failed failed, $skipped skipped" | tee -a "$out"
[ "$failed" = 0 ]
