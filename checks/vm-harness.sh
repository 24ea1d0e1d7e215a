#!/bin/bash
# Test the QEMU harness itself: each bad state gives its own exit status.
#
# The real-kernel harness's own tests: each bad state gives its exit status,
# its STATUS in results.txt and a clear message, and leaves no QEMU running.
# Boots the x86_64 guest a few times (about two minutes under TCG).
#
# Prints one line per case, STATUS|vm harness: CASE|detail, as make check
# reports them. Usage: checks/vm-harness.sh OUTDIR
set -euo pipefail
. "$(dirname "$0")/../vm/host/lib.sh"

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
out=$1
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# A config like x86_64-nokaslr with one key changed: mkconf NAME KEY=VALUE...
mkconf() {
	local name=$1
	shift
	cp "$VM_CONFIGS/x86_64-nokaslr.conf" "$out/$name.conf"
	printf '%s\n' "$@" >>"$out/$name.conf"
	echo "$out/$name.conf"
}

# run CASE WANT-RC WANT-STATUS WANT-MESSAGE CONF SCRIPT [ENV=VALUE...]: runs
# vm/host/run.sh and checks its exit status, the STATUS it wrote, that its error
# output says WANT-MESSAGE (a regex) and that no QEMU of this run is left.
run() {
	local name=$1 want_rc=$2 want_status=$3 want_msg=$4 conf=$5 script=$6 rc=0 status left msg
	shift 6
	env "$@" "$VM_TOP/vm/host/run.sh" "$conf" "$script" "$out/$name" >"$out/$name.log" 2>&1 || rc=$?
	status=$(sed -n 's/^STATUS=//p' "$out/$name/results.txt" 2>/dev/null | tail -1)
	left=$(pgrep -f "qemu-system.*$out/$name/" || true)
	if [ "$rc" != "$want_rc" ] || [ "$status" != "$want_status" ]; then
		echo "FAIL|vm harness: $name|exit $rc, STATUS=${status:-none}; wanted exit $want_rc, STATUS=$want_status ($out/$name.log)"
	elif ! grep -qE "$want_msg" "$out/$name.log"; then
		echo "FAIL|vm harness: $name|no message matching '$want_msg' in $out/$name.log"
	elif [ -n "$left" ]; then
		kill -KILL $left 2>/dev/null || true
		echo "FAIL|vm harness: $name|QEMU left running (pid $left)"
	else
		msg=$(grep -m1 -E "$want_msg" "$out/$name.log" | sed 's/.*\(error: \|==> \)/\1/' |
			tr -cd '[:print:]' | cut -c1-160)
		echo "PASS|vm harness: $name|exit $rc, STATUS=$status: $msg"
	fi
}

"$VM_TOP/vm/host/install-deps.sh" >&2

# A guest script that never ends.
printf '#!/bin/sh\nsleep 100000\n' >"$out/hang.sh"

# 1. A kernel package the archive does not serve.
run missing-package 2 setup-error "no amd64 package matches KERNEL_PACKAGE" \
	"$(mkconf missing-package "KERNEL_PACKAGE='linux-image-0\\.0\\.0-none'")" "$VM_GUEST/smoke.sh"

# 2. A "kernel" QEMU cannot boot (the package's System.map).
run no-boot 4 no-boot "did not reach /init" \
	"$(mkconf no-boot "KERNEL_FILE='boot/System.map-*'")" "$VM_GUEST/smoke.sh"

# 3. A kernel that boots but never reaches /init: no console on the serial
# port the harness reads.
run no-init 4 no-boot "did not reach /init within" \
	"$(mkconf no-init "APPEND='console=tty0 panic=-1'")" "$out/hang.sh" VM_INIT_TIMEOUT=40

# 4. A guest that hangs.
run hang 3 hang "guest hung: no end after 60 s" \
	"$(mkconf hang)" "$out/hang.sh" VM_RUN_TIMEOUT=60

# 5. perfs that crash: every step reports the signal and the script goes on
# to its end.
cat >"$out/crash.c" <<'EOF'
#include <signal.h>

int main(void)
{
	raise(SIGSEGV);
	return 0;
}
EOF
if ! gcc -static -O2 -o "$out/crash" "$out/crash.c" 2>"$out/crash-cc.log"; then
	echo "FAIL|vm harness: perf crashes|cannot build a static test program ($out/crash-cc.log)"
	exit 0
fi
run perf-crashes 0 done "done in" "$(mkconf perf-crashes)" "$VM_GUEST/kcore-check.sh" \
	PERF_BASELINE="$out/crash" PERF_SERIES="$out/crash"
crashes=$(grep -c '=crash:SIGSEGV$' "$out/perf-crashes/results.txt" || true)
if [ "$crashes" -ge 4 ]; then
	echo "PASS|vm harness: perf crashes reported|$crashes steps say crash:SIGSEGV, e.g. $(grep -m1 '=crash:SIGSEGV$' "$out/perf-crashes/results.txt")"
else
	echo "FAIL|vm harness: perf crashes reported|only $crashes steps say crash:SIGSEGV ($out/perf-crashes/results.txt)"
fi
