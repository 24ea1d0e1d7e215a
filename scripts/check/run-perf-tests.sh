#!/bin/bash
# Run named perf test suites with one perf and print a line per case.
#
# Run perf test suites, named by their exact descriptions, with one perf
# binary, and print one line per suite or test case:
#   STATUS|LABEL: suite[: case]|detail
# STATUS is PASS, FAIL, SKIP, or XFAIL when the case is listed in
# checks/xfail-LABEL.txt (checks/xfail-LABEL-6.12.txt for BASE=6.12): a
# failure we expect there (if such a case passes it
# is reported as FAIL, since the test then shows nothing).
# Usage: scripts/check/run-perf-tests.sh LABEL PERF SRC SUITE...
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ $# -ge 4 ] || die "usage: $0 LABEL PERF SRC SUITE..."
label=$1 perf=$2 src=$3
shift 3
logs=$BUILD/results/logs
mkdir -p "$logs"
# The expected failures of a base other than 7.3 have their own file.
xfail_file=$TOP/checks/xfail-$label.txt
[ "$BASE" = 7.3 ] || xfail_file=$TOP/checks/xfail-$label-$BASE.txt
# The caller may name the list of expected failures (prefixes.sh does).
xfail_file=${XFAIL_FILE:-$xfail_file}

expected_failure() {
	[ -f "$xfail_file" ] && grep -qxF "$1" <(grep -v '^#' "$xfail_file")
}

emit() { # STATUS NAME DETAIL
	local status=$1 name=$2 detail=$3
	if expected_failure "$name"; then
		case $status in
		FAIL) status=XFAIL detail="expected on $label: ${xfail_file#"$TOP"/}" ;;
		PASS) status=FAIL detail="expected to fail on $label but passed" ;;
		esac
	fi
	printf '%s|%s: %s|%s\n' "$status" "$label" "$name" "$detail"
}

cd "$src/tools/perf"
export PATH=$(dirname "$perf"):$PATH
list=$("$perf" test list 2>&1)
for suite in "$@"; do
	num=$(awk -v want="$suite" '
		match($0, /^ *[0-9]+: /) {
			desc = substr($0, RLENGTH + 1)
			if (desc == want) { sub(/:.*/, "", $1); print $1; exit }
		}' <<<"$list")
	if [ -z "$num" ]; then
		emit FAIL "$suite" "no such test in this perf"
		continue
	fi
	log=$logs/test-$label-${suite//[^A-Za-z0-9_]/_}.log
	timeout 600 "$perf" test -vv "$num" >"$log" 2>&1 || true
	# Result lines: " 11: DSO data tests : Ok", " 11.2: cache : FAILED!"; 6.12
	# pads a case to two less than the longest description, so the longest
	# case has no blank before its colon: " 58.24: ... outer one ignored: Ok".
	results=$(sed -nE "s/^ *$num(\.[0-9]+)?: (.*[^ ]) *: (Ok|FAILED!|Skip.*)$/\1|\2|\3/p" "$log")
	if [ -z "$results" ]; then
		emit FAIL "$suite" "no result: crashed or timed out, see ${log#"$BUILD"/}"
		continue
	fi
	while IFS='|' read -r sub desc res; do
		# A suite with cases prints its own line only when it has none.
		name=$suite
		[ -n "$sub" ] && name="$suite: $desc"
		case $res in
		Ok) emit PASS "$name" "" ;;
		FAILED!) emit FAIL "$name" "see ${log#"$BUILD"/}" ;;
		*)
			# A shell test says why in its output: "[Skipped: REASON]".
			why=$(sed -n 's/.*\[Skipped: \(.*\)\]$/\1/p' "$log" | head -1)
			emit SKIP "$name" "$res${why:+: $why}"
			;;
		esac
	done <<<"$results"
	# Object code reading only reads kernel code where /proc/kcore is usable.
	if [ "$suite" = "Object code reading" ] && ! grep -q 'for kernel object code' "$log"; then
		emit SKIP "$suite: kernel object code from /proc/kcore" "no readable /proc/kcore on this machine"
	fi
done
