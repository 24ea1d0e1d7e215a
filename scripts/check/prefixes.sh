#!/bin/bash
# Every prefix of the core posting, sanitized, with the posting's final test.
#
# For each commit of the kcore-merge posting (the postings before it
# applied, as patches/postings orders them), a DEBUG=1 build under ASan,
# LSan and UBSan (REFCNT_CHECKING on) of that commit with the posting's
# final test put in (tools/perf/tests/kcore-merge.c and its place in the
# test list, as the posting's last commit has them), and these suites:
# "Maps - per process mmaps abstraction", "Symbols" and "Kernel maps from
# kcore", reported as "kcore-merge K/N sanitized: final test: CASE". Each
# case of the final test passes, or fails where it is a case a later patch
# brings (checks/xfail-kcore-merge-prefixes.txt, then XFAIL); and no
# sanitizer reports anything in any case (a report is a FAIL of its own).
# All builds share one object directory (scripts/build/perf.sh --rev), so
# each recompiles what one patch changes: with make check's sanitized
# build of HEAD before them (step 6), from the longest prefix down. Run by
# make check (step 6c); the plain build of every prefix is its bisect step.
# Prints one line per check: STATUS|NAME|DETAIL; logs go to
# build/results/logs/prefix-*.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

posting=${1:-kcore-merge}
logs=$BUILD/results/logs
mkdir -p "$logs"
suites=("Maps - per process mmaps abstraction" "Symbols" "Kernel maps from kcore")
args=(DEBUG=1 "EXTRA_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer")
# The final test and what puts it in perf test's list.
test_files=(tools/perf/tests/kcore-merge.c tools/perf/tests/Build
	tools/perf/tests/builtin-test.c tools/perf/tests/tests.h)
# "K|CASE": the case of the final test passes from patch K on.
xfail_list=$TOP/checks/xfail-$posting-prefixes.txt

# A commit of REV with the final test's files from the posting's last
# commit; fixed dates, so that the same REV gives the same commit.
with_final_test() {
	local idx tree f
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx git -C "$SRC" read-tree "$1"
	for f in "${test_files[@]}"; do
		GIT_INDEX_FILE=$idx git -C "$SRC" update-index --add --cacheinfo \
			"100644,$(git -C "$SRC" rev-parse "posting/$posting:$f"),$f"
	done
	tree=$(GIT_INDEX_FILE=$idx git -C "$SRC" write-tree)
	rm -f "$idx"
	GIT_AUTHOR_DATE="2000-01-01 00:00 +0000" GIT_COMMITTER_DATE="2000-01-01 00:00 +0000" git -C "$SRC" commit-tree "$tree" -p "$1" \
		-m "$posting's final test on $(git -C "$SRC" rev-parse --short "$1")"
}

prev=base
for name in $(postings); do
	[ "$name" = "$posting" ] && break
	prev=posting/$name
done
git -C "$SRC" rev-parse -q --verify "posting/$posting" >/dev/null ||
	die "no branch posting/$posting in $SRC_NAME: run make tree"
[ -f "$xfail_list" ] || die "no ${xfail_list#"$TOP"/}"
mapfile -t revs < <(git -C "$SRC" rev-list --reverse "$prev..posting/$posting")
n=${#revs[@]}
declare -A out=()
for ((k = n; k >= 1; k--)); do
	rev=$(with_final_test "${revs[$((k - 1))]}")
	label="$posting $k/$n sanitized"
	say "$label: building ($(git -C "$SRC" log -1 --format=%s "${revs[$((k - 1))]}"))"
	if ! "$TOP/scripts/build/perf.sh" --rev "$rev" "$BUILD/prefix" "${args[@]}" \
		>"$logs/prefix-$k.log" 2>&1; then
		out[$k]=$(printf 'FAIL|%s: build|see %s' "$label" "${logs#"$TOP"/}/prefix-$k.log")
		continue
	fi
	"$TOP/scripts/build/worktree.sh" "$rev" "$BUILD/trees/prefix"
	# The cases of later patches are expected to fail here.
	xfail=$logs/prefix-$k-xfail.txt
	awk -F'|' -v k="$k" '!/^#/ && NF == 2 && $1 > k { print "Kernel maps from kcore: " $2 }' \
		"$xfail_list" >"$xfail"
	results=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		XFAIL_FILE=$xfail "$TOP/scripts/check/run-perf-tests.sh" "prefix-$k" \
		"$BUILD/prefix/perf" "$BUILD/trees/prefix" "${suites[@]}" || true)
	results=$(sed -e "s#|prefix-$k: Kernel maps from kcore#|$label: final test#" \
		-e "s#|prefix-$k: #|$label: #" -e "s#expected on prefix-$k: .*#a later patch's case#" \
		<<<"$results")
	# A sanitizer report fails the prefix, whatever the case's verdict.
	reports=$(grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:' \
		"$logs"/test-prefix-"$k"-*.log 2>/dev/null || true)
	out[$k]=$(printf 'PASS|%s: build|\n%s\n' "$label" "$results"
		if [ -n "$reports" ]; then
			printf 'FAIL|%s: no sanitizer report|see %s\n' "$label" \
				"$(tr '\n' ' ' <<<"${reports//"$TOP"\//}")"
		else
			printf 'PASS|%s: no sanitizer report|\n' "$label"
		fi)
done
# Built from the longest prefix down, reported shortest first.
for ((k = 1; k <= n; k++)); do
	echo "${out[$k]}"
done
