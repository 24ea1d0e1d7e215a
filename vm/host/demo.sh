#!/bin/bash
# make demo: the series' perf on a real arm64 kernel in QEMU.
#
# make demo: the series' perf on a real arm64 kernel.
#
# Builds what it needs (the host's QEMU and cross compiler, an arm64 perf of
# the series, the guest's root file system, Debian's arm64 6.12 kernel),
# boots that kernel in QEMU (TCG, -cpu max, KASLR on: /proc/kcore's kernel
# text segment then lies inside its vmalloc segment, the layout the series
# is about), records kernel samples with the series' perf and prints
# perf report's top kernel symbols and perf annotate of the hottest one,
# whose code perf read from /proc/kcore.
#
# DEMO_ROW picks another matrix row (vm/configs/); the output is kept in
# build/vm/demo/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

row=${DEMO_ROW:-arm64-max-kaslr}
out=$VM_BUILD/demo
# Seconds since make started (DEMO_START, from the Makefile) or since now.
t0=${DEMO_START:-$(date +%s)}
elapsed() { echo $(($(date +%s) - t0)); }
step() { say "[$(elapsed) s] $*"; }

load_config "$row"
step "1/4 host packages for the guests (QEMU, cross compilers)"
"$VM_TOP/vm/host/install-deps.sh"
step "2/4 the series' perf for $DEB_ARCH"
"$VM_TOP/vm/host/build-perf.sh" "$DEB_ARCH" series
step "3/4 booting $row and running vm/guest/demo.sh in it"
rc=0
VM_PERFS=series "$VM_TOP/vm/host/run.sh" "$row" "$VM_GUEST/demo.sh" "$out" || rc=$?
[ $rc -eq 0 ] || die "the demo guest did not finish (vm/host/run.sh exit status $rc): see $out/console.txt"

step "4/4 results"
r() { sed -n "s/^$1=//p" "$out/results.txt" | tail -1; }
g=$out/guest
for f in kcore.txt report.txt annotate.txt; do
	[ -s "$g/$f" ] || die "the guest left no $f: see $out/console.txt and $g/"
done
echo
echo "Kernel $(r KERNEL) on QEMU $QEMU -M $MACHINE -cpu $CPU; perf $(r PERF_VERSION) (the series)."
echo
cat "$g/kcore.txt"
echo
echo "perf makes one map per segment, orders them by end address (a subset"
echo "first) and merges each; the kernel map becomes the text segment's map."
echo
echo "perf report --stdio --sort sym (kernel samples of 'perf record -a -e cpu-clock:k'):"
# (awk, not grep | head: head's early exit would kill grep with SIGPIPE.)
awk '/^ +[0-9.]+%/ && n++ < 15' "$g/report.txt"
report_lines=$(grep -cE '^ +[0-9.]+% +\[k\]' "$g/report.txt" || true)
echo
uses=$(r USES_KCORE)
unresolved=$(r UNRESOLVED_KERNEL_ENTRIES)
echo "Kernel report lines without a symbol: $unresolved."
echo
echo "perf annotate -v: $(grep -m1 'Using /proc/kcore for kernel' "$g/annotate.err" || echo 'kcore NOT used')"
echo "perf annotate --stdio $(r HOTTEST) (kallsyms: $(r HOTTEST_ADDRESS); $(r ANNOTATE_LINES) instructions, first $(r ANNOTATE_FIRST)):"
# (-v adds perf's per-address sample counts before the disassembly.)
awk '!/^ +([0-9a-f]+|h->nr_samples): [0-9]+$/ && n++ < 30' "$g/annotate.txt"
echo "... ($g/annotate.txt has all of it); the hottest instructions:"
awk '/^ +[0-9.]+ +: +[0-9a-f]+:/' "$g/annotate.txt" | sort -rn | awk 'n++ < 5'
echo
ok=yes
[ "$(r RECORD)" = 0 ] && [ "$(r REPORT)" = 0 ] && [ "$(r ANNOTATE)" = 0 ] || ok=no
[ "$report_lines" -gt 0 ] && [ "$uses" -gt 0 ] && [ "$unresolved" = 0 ] && [ "$(r ANNOTATE_LINES)" -gt 0 ] || ok=no
[ "$(r ANNOTATE_FIRST)" = "$(r HOTTEST_ADDRESS)" ] || ok=no
step "demo done in $(elapsed) s (boot and run: $(r RUN_SECONDS) s); files: $g/"
[ $ok = yes ] || die "the demo's checks failed: $report_lines kernel report lines, kcore used $uses, unresolved $unresolved, annotate $(r ANNOTATE) starting at $(r ANNOTATE_FIRST) (symbol at $(r HOTTEST_ADDRESS))"
