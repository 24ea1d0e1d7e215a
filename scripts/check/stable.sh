#!/bin/bash
# Check the 6.12 branch: it applies, follows the series, builds and passes.
#
# The part of make check that is about the 6.12 backport
# (branches/6.12/, our tested 6.12 branch): it applies to the 6.12 base, its patches follow the
# upstream series (same subjects, same order), it builds, and perf's suites
# that touch kernel maps pass with it in the plain and the ASan build.
# Prints one line per check: STATUS|NAME|DETAIL (scripts/check/check.sh reports
# them). Run by scripts/check/check.sh; progress and logs go to stderr and
# build/stable-6.12/results/logs.
set -euo pipefail
export BASE=6.12
. "$(dirname "$0")/../lib.sh"

logs=$BUILD/results/logs
mkdir -p "$logs"
emit() { printf '%s|stable-6.12: %s|%s\n' "$1" "$2" "${3:-}"; }

# The subject of each patch file named on standard input (relative to TOP),
# without the [PATCH ...] prefix, in that order; a backport of an upstream
# commit (a "commit <sha> upstream." line, as stable patches carry) is left
# out.
subjects() {
	local p
	while read -r p; do
		grep -qE '^commit [0-9a-f]{12,40} upstream\.?$' "$TOP/$p" && continue
		# The Subject: header and its folded lines, not the To:/Cc: after it.
		awk '/^Subject: / { s = $0; on = 1; next }
			on && /^ / { s = s $0; next }
			on { print s; exit }' "$TOP/$p" |
			sed -E 's/^Subject: (\[[^]]*\] )?//; s/ +/ /g'
	done
}

# 1. Same subjects, same order, as the upstream postings and check layer,
# but for the patches branches/6.12/not-backported lists (upstream's that
# 6.12 does not need) and those branches/6.12/stable-only lists (fixes 6.12
# needs and 7.3 has); one subject a line, the reason in a comment above it.
BASE=7.3 bash -c '. "$0/scripts/lib.sh" && series_patches' "$TOP" | subjects |
	grep -vxF -f <(grep -v -e '^#' -e '^$' "$PATCHES/not-backported" 2>/dev/null || true) \
	>"$logs/subjects-upstream.txt" || true
series_patches | subjects | grep -vxF -f <(grep -v -e '^#' -e '^$' "$PATCHES/stable-only" 2>/dev/null || true) \
	>"$logs/subjects-stable.txt" || true
if diff -u "$logs/subjects-upstream.txt" "$logs/subjects-stable.txt" >"$logs/subjects.diff"; then
	emit PASS "same subjects as the upstream series" "$(wc -l <"$logs/subjects-stable.txt") patches"
else
	emit FAIL "same subjects as the upstream series" "see ${logs#"$TOP"/}/subjects.diff"
fi

# 1b. What stable can take today is the posting of upstream's backport alone
# (patches/stable-6.12-*/); the tested branch starts with the same patch.
for p in "$TOP"/patches/stable-6.12-*/0001-*.patch; do
	[ -f "$p" ] || continue
	first=$(series_patches | head -1)
	if [ "$(git patch-id --stable <"$p" | cut -d' ' -f1)" = \
		"$(git patch-id --stable <"$TOP/$first" | cut -d' ' -f1)" ]; then
		emit PASS "the stable posting is the branch's first patch" "${p#"$TOP"/}"
	else
		emit FAIL "the stable posting is the branch's first patch" "${p#"$TOP"/} differs from $first"
	fi
done

# 2. It applies: git am of every patch onto the 6.12 base, in a scratch
# worktree; and build/stable-6.12/src, which the builds use, holds it.
say "stable-6.12: the base and the backport (make tree BASE=6.12)"
if ! { "$TOP/scripts/build/fetch-base.sh" && "$TOP/scripts/build/prepare-tree.sh"; } >"$logs/tree.log" 2>&1; then
	emit FAIL "$SRC_NAME holds the backport" "$(tail -1 "$logs/tree.log")"
	exit 0
fi
emit PASS "$SRC_NAME holds the backport"
"$TOP/scripts/build/worktree.sh" base "$BUILD/trees/apply"
n=0
for p in $(series_patches); do
	n=$((n + 1))
	if ! git -C "$BUILD/trees/apply" am -q --committer-date-is-author-date "$TOP/$p" \
		>"$logs/apply.log" 2>&1; then
		git -C "$BUILD/trees/apply" am --abort >/dev/null 2>&1 || true
		emit FAIL "series applies to the 6.12 base" "patch $n $p does not apply"
		exit 0
	fi
done
emit PASS "series applies to the 6.12 base" "$n patches"

# 3. checkpatch, as for the upstream series (accepted types below '---').
for p in $(series_patches); do
	ignore=$(sed -n '/^---$/,/^diff --git/s/^checkpatch: \([A-Z_]*\): .*/\1/p' "$TOP/$p" | paste -sd, -)
	log=$logs/checkpatch-$(basename "$p").log
	(cd "$SRC" && ./scripts/checkpatch.pl --no-tree --terse --show-types \
		--ignore "UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES${ignore:+,$ignore}" "$TOP/$p") \
		>"$log" 2>&1 || true
	n=$(grep -cE '(ERROR|WARNING|CHECK):' "$log" || true)
	if [ "$n" = 0 ]; then
		emit PASS "checkpatch $(basename "$p")"
	else
		emit FAIL "checkpatch $(basename "$p")" "$n findings, see ${log#"$TOP"/}"
	fi
done

# 4. The plain and the ASan+UBSan+LSan build, and the suites in each.
for variant in patched sanitize; do
	args=()
	out=$BUILD/patched
	if [ "$variant" = sanitize ]; then
		args=(DEBUG=1 "EXTRA_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer")
		out=$BUILD/variants/sanitize
	fi
	say "stable-6.12: building the $variant perf"
	# The plain build is the series' commit in the shared worktree
	# (build-perf.sh --rev), as make perf builds it: the baseline that
	# make check's matrix builds after it recompiles only what differs.
	from=("$SRC")
	[ "$variant" = sanitize ] || [ -n "$(git -C "$SRC" status --porcelain)" ] || from=(--rev HEAD)
	if ! "$TOP/scripts/build/perf.sh" "${from[@]}" "$out" "${args[@]}" >"$logs/build-$variant.log" 2>&1; then
		emit FAIL "$variant: build" "see ${logs#"$TOP"/}/build-$variant.log"
		continue
	fi
	emit PASS "$variant: build"
	say "stable-6.12: perf's suites with the $variant perf"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$TOP/scripts/check/run-perf-tests.sh" "$variant" "$out/perf" "$SRC" "${PERF_SUITES[@]}" |
		sed 's/|/|stable-6.12: /'
	# The allocation failure cases need the failalloc shim (checks/failalloc/).
	enomem=$logs/enomem-$variant.txt
	if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$TOP/checks/failalloc/run-kcore-enomem.sh" "$out/perf" "$BUILD/failalloc" >"$enomem" 2>&1; then
		emit PASS "$variant: kcore maps, allocation failures" \
			"$(sed -n 's/^\([0-9]*\) loads with an allocation failing.*/\1/p' "$enomem" |
				paste -sd+ -) loads"
	else
		emit FAIL "$variant: kcore maps, allocation failures" "see ${enomem#"$TOP"/}"
	fi
done
