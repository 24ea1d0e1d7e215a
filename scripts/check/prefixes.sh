#!/bin/bash
# Every prefix of the core posting, sanitized: builds and passes its tests.
#
# For each commit of the kcore-merge posting (the postings before it
# applied, as patches/postings orders them), a DEBUG=1 build under ASan,
# LSan and UBSan (REFCNT_CHECKING on), and the suites that exist at that
# commit of: "Maps - per process mmaps abstraction", "Symbols", "Kernel maps
# from kcore" (the posting's own test, from the commit that adds it). All
# builds share one object directory (scripts/build/perf.sh --rev), so each
# recompiles what one patch changes: with make check's sanitized build of
# HEAD before them (step 6), from the longest prefix down. Run by make
# check (step 6c); the plain build of every prefix is its bisect step.
# Prints one line per check: STATUS|NAME|DETAIL; logs go to
# build/results/logs/prefix-*.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

posting=${1:-kcore-merge}
logs=$BUILD/results/logs
mkdir -p "$logs"
suites=("Maps - per process mmaps abstraction" "Symbols" "Kernel maps from kcore")
args=(DEBUG=1 "EXTRA_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer")

prev=base
for name in $(postings); do
	[ "$name" = "$posting" ] && break
	prev=posting/$name
done
git -C "$SRC" rev-parse -q --verify "posting/$posting" >/dev/null ||
	die "no branch posting/$posting in $SRC_NAME: run make tree"
mapfile -t revs < <(git -C "$SRC" rev-list --reverse "$prev..posting/$posting")
n=${#revs[@]}
declare -A out=()
for ((k = n; k >= 1; k--)); do
	rev=${revs[$((k - 1))]}
	label="$posting $k/$n sanitized"
	say "$label: building ($(git -C "$SRC" log -1 --format=%s "$rev"))"
	if ! "$TOP/scripts/build/perf.sh" --rev "$rev" "$BUILD/prefix" "${args[@]}" \
		>"$logs/prefix-$k.log" 2>&1; then
		out[$k]=$(printf 'FAIL|%s: build|see %s' "$label" "${logs#"$TOP"/}/prefix-$k.log")
		continue
	fi
	list=$("$BUILD/prefix/perf" test list 2>&1)
	run=()
	for suite in "${suites[@]}"; do
		! grep -qxE " *[0-9]+: $suite" <<<"$list" || run+=("$suite")
	done
	"$TOP/scripts/build/worktree.sh" "$rev" "$BUILD/trees/prefix"
	out[$k]=$(printf 'PASS|%s: build|\n' "$label"
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			"$TOP/scripts/check/run-perf-tests.sh" "prefix-$k" "$BUILD/prefix/perf" \
			"$BUILD/trees/prefix" "${run[@]}" | sed "s#|prefix-$k: #|$label: #" || true)
done
# Built from the longest prefix down, reported shortest first.
for ((k = 1; k <= n; k++)); do
	echo "${out[$k]}"
done
