#!/bin/bash
# Show that the matrix's "copy with a module above _end" check catches v5.
#
# v5 (commit 7e67512 of this project, the version before the postings were
# split; V5_REV= names another) dropped a
# kcore segment whose vaddr - offset disagrees with the segment merged
# before it: in a 'perf record --kcore' copy with a module above _end, the
# module range that encloses the text, and with it the module code. This
# script builds v5's perf for arm64 (patches 1-12 of that commit on the pinned
# base, in a clone of build/src under build/v5/) and runs the arm64 row
# that makes such a copy (MOD_ABOVE_COPY) with v5 as its baseline perf.
# It passes when v5 fails the check and the series passes it.
#
# Usage: vm/host/v5-mod-above.sh [ROW] (default arm64-max-kaslr-7.3).
# About 10 minutes the first time (a cross build and one guest).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

row=${1:-arm64-max-kaslr-7.3}
# v5 by its commit: a clone has no tags.
v5_rev=${V5_REV:-7e67512}
v5=$VM_TOP/build/v5
out=$BUILD/results/v5-mod-above
check="copy with a module above _end"

# --- v5's tree: the base and patches 1-12 of that commit ---
[ -d "$SRC/.git" ] || die "no $SRC: run 'make tree' first"
git -C "$VM_TOP" rev-parse -q --verify "$v5_rev^{commit}" >/dev/null ||
	die "no commit $v5_rev in $VM_TOP (v5; V5_REV= names it)"
if ! git -C "$v5/src" rev-parse -q --verify v5 >/dev/null 2>&1; then
	say "making v5's tree in $v5/src"
	rm -rf "$v5/src" "$v5/patches"
	git clone -q "$SRC" "$v5/src"
	mkdir -p "$v5/patches"
	git -C "$VM_TOP" ls-tree --name-only "$v5_rev" patches/ | grep -E '/00(0[1-9]|1[0-2])-' |
		while read -r f; do
			git -C "$VM_TOP" show "$v5_rev:$f" >"$v5/patches/${f##*/}"
		done
	git -C "$v5/src" checkout -q -b v5 base
	git -C "$v5/src" am -q "$v5/patches"/*.patch
fi

# --- v5's arm64 perf, in a VM_BUILD of its own ---
arch=$(load_config "$row" && echo "$DEB_ARCH")
VM_BUILD=$v5/vm VM_PERF_SRC=$v5/src VM_SERIES_REV=origin/v5 "$VM_TOP/vm/host/build-perf.sh" "$arch" series

# --- the row, v5 as its baseline ---
say "running $row with v5 as the baseline perf"
PERF_BASELINE=$v5/vm/perf/$arch/series/perf "$VM_TOP/vm/host/matrix.sh" -o "$out" "$row" >"$out.log" 2>&1 || true
v5_line=$(grep -F "|vm: $row: baseline: $check|" "$out/checks.txt" || true)
series_line=$(grep -F "|vm: $row: series: $check|" "$out/checks.txt" || true)
echo "v5:     ${v5_line:-no result (see $out.log)}"
echo "series: ${series_line:-no result (see $out.log)}"
case "$v5_line:$series_line" in
FAIL\|*:PASS\|*) say "v5 fails the check, the series passes it" ;;
*) die "expected v5 to fail and the series to pass (log: $out.log)" ;;
esac
