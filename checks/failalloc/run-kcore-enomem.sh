#!/bin/bash
# Run the allocation-failure sweep of "kcore maps" under the failalloc shim.
#
# Run the allocation failure cases of perf test "kcore maps" and of
# "Kernel maps from kcore" with the failalloc shim preloaded. Usage: checks/failalloc/run-kcore-enomem.sh PERF [OUTDIR]
# Builds the shim into OUTDIR (default: the directory of PERF /failalloc),
# prints for each case its summary line and the loads that failed; exit
# status 1 if a case failed. An ASan perf (REFCNT_CHECKING) gets
# FAILALLOC_IGNORE_MALLOC=8 (see failalloc.c) and detect_leaks=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
perf=$(cd "$(dirname "${1:?usage: $0 PERF [OUTDIR]}")" && pwd)/$(basename "$1")
out=${2:-$(dirname "$perf")/failalloc}
"$here/build.sh" "$out" >/dev/null || exit 1
env=(LD_PRELOAD="$out/failalloc.so")
# Read whole before grep: 'nm | grep -q' under pipefail fails when grep
# exits at its match and nm dies of SIGPIPE, which happens under load.
syms=$(nm -D "$perf" 2>/dev/null) || true
libs=$(ldd "$perf" 2>/dev/null) || true
if grep -q __asan_init <<<"$syms" || grep -q libasan <<<"$libs"; then
	env+=(ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0 FAILALLOC_IGNORE_MALLOC=8)
fi
rc=0
# Our suite's two cases, and the two of the posted "Kernel maps from kcore"
# (kcore-merge 7/7), which its shell test runs with a library of its own in
# plain builds only: here they run in every build, ASan's too.
for t in "kcore maps: x86_64 4-level, allocation failures" \
	"kcore maps: arm64 with eBPF maps, allocation failures" \
	"An eBPF program kept, each allocation failing" \
	"ppc64le, each allocation failing"; do
	# Kept, for a run that prints neither result nor failure.
	log=$out/$(echo "$t" | tr -c 'A-Za-z0-9\n' '_').log
	env "${env[@]}" "$perf" test -F -v "$t" >"$log" 2>&1 || true
	echo "== $t"
	grep -E "loads with an allocation failing|^FAIL: load with|ERROR: AddressSanitizer|^SUMMARY" "$log" || true
	if ! grep -q "loads with an allocation failing" "$log" || grep -q "^FAIL" "$log"; then
		rc=1
	fi
	grep -q "loads with an allocation failing" "$log" ||
		echo "no result from perf test: see $log (last lines: $(tail -3 "$log" | tr '\n' ' '))"
done
exit $rc
