#!/bin/bash
# Boot one matrix row in QEMU and run one guest script in it.
#
# Boot one matrix row in QEMU (TCG) and run a guest script in it, with the
# baseline and series perfs as /perf-baseline and /perf-series.
#
#   vm/host/run.sh CONFIG GUEST-SCRIPT OUTDIR
#
# CONFIG is a name in vm/configs/ (or a .conf file), GUEST-SCRIPT a busybox sh
# script (e.g. vm/guest/kcore-check.sh). Writes into OUTDIR:
#   console.log   the whole console (streamed while the guest runs)
#   results.txt   the guest's KEY=VALUE lines, plus the host's: CONFIG,
#                 KERNEL_PACKAGE, BOOT_SECONDS, RUN_SECONDS, STATUS, ...
#   guest/        the files the guest script left in /tmp/out/files
#   host/         on a row of another architecture than this host's: the
#                 host's perf annotate of the guest's perf record --kcore
#                 data (vm/host/annotate.sh), and the host's perfs
#   qemu.cmd      the QEMU command line
#
# QEMU is always stopped: when /init has not started after INIT_TIMEOUT
# seconds, when the run takes more than RUN_TIMEOUT seconds (both from the
# config; VM_INIT_TIMEOUT and VM_RUN_TIMEOUT override), on any error and on
# Ctrl-C. Exit status: 0 the guest script ran to its end, 3 hang (run
# timeout), 4 the kernel did not reach /init, 5 the guest stopped before the
# script's end, 2 setup error.
#
# Perfs: amd64 uses the project's build/{baseline,patched}/perf, copied at
# the start of the run; other architectures build/vm/perf/ARCH/ (from
# vm/host/build-perf.sh). PERF_BASELINE and PERF_SERIES override both.
# VM_PERFS lists the perfs the image gets (default "baseline series").
#
# A row of another architecture than this host's gets /ship-kcore-data in its
# image: a guest script that knows it (kcore-check.sh) then sends out its
# perf record --kcore data directory and says KCORE_DATA=..., and this host's
# baseline and series perf (build/{baseline,patched}/perf, copied at the
# start) annotate it after the run: vm/host/annotate.sh, whose
# HOST_* keys go into results.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: $0 CONFIG GUEST-SCRIPT OUTDIR"
load_config "$1"
guest_script=$2
outdir=$3
[ -f "$guest_script" ] || die "no guest script $guest_script"
timeout=${VM_RUN_TIMEOUT:-$RUN_TIMEOUT}
init_timeout=${VM_INIT_TIMEOUT:-$INIT_TIMEOUT}
command -v "$QEMU" >/dev/null || die "no $QEMU: run vm/host/install-deps.sh"

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -rf "$outdir/guest" "$outdir/image" "$outdir/host" "$outdir/results.txt" "$outdir/console.log" "$outdir/data.bin"
mkdir -p "$outdir/guest" "$outdir/image"

# Anything that goes wrong from here ends in the results as STATUS.
fail() { # STATUS EXIT-CODE MESSAGE
	printf 'STATUS=%s\n' "$1" >>"$outdir/results.txt"
	printf 'error: %s: %s\n' "$CONFIG_NAME" "$3" >&2
	exit "$2"
}
trap 'fail setup-error 2 "setup failed (see the messages above)"' ERR

# --- what the guest boots: the kernel, the rootfs, and this run's overlay ---
mapfile -t kdirs < <("$VM_TOP/vm/host/fetch-kernel.sh" "$CONFIG_FILE")
[ ${#kdirs[@]} -gt 0 ] || fail setup-error 2 "no kernel for $CONFIG_NAME"
# The kernel package's directory comes last; a modules package's before it.
kdir=${kdirs[-1]}
# shellcheck disable=SC2206
images=($kdir/$KERNEL_FILE)
kernel=${images[0]}
kpkg=${kdir##*/}
rootfs=$("$VM_TOP/vm/host/build-rootfs.sh" "$DEB_ARCH" | tail -1)

if [ "$DEB_ARCH" = amd64 ]; then
	baseline=${PERF_BASELINE:-$PERF_X86_BASELINE}
	series=${PERF_SERIES:-$PERF_X86_SERIES}
else
	baseline=${PERF_BASELINE:-$VM_BUILD/perf/$DEB_ARCH/baseline/perf}
	series=${PERF_SERIES:-$VM_BUILD/perf/$DEB_ARCH/series/perf}
fi
image=$outdir/image
perfs=${VM_PERFS:-baseline series}
for p in $perfs; do
	src=${!p}
	[ -x "$src" ] || fail missing-perf 2 "no $p perf $src (vm/host/build-perf.sh $DEB_ARCH, or make perf for amd64)"
	cp "$src" "$image/perf-$p"      # a copy: the source may be rebuilt meanwhile
done
# The perfs must be programs of the guest's architecture whose libraries
# are all in the rootfs.
machine_of() { readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'; }
want=$(machine_of "$(dirname "$rootfs")/root/bin/busybox")
for p in $perfs; do
	got=$(machine_of "$image/perf-$p")
	[ "$got" = "$want" ] || fail setup-error 2 "the $p perf (${!p}) is for '${got:-not an ELF program}', the guest is '$want'"
done
trap - ERR
# shellcheck disable=SC2046
(check_image_libs "$(dirname "$rootfs")/root" $(printf "$image/perf-%s " $perfs)) ||
	fail setup-error 2 "the perfs do not run on the $DEB_ARCH rootfs"
trap 'fail setup-error 2 "setup failed (see the messages above)"' ERR
# Another architecture than this host's: the host annotates the guest's
# perf record --kcore data with its own perfs, as they are now.
host_annotate=no
if [ "$DEB_ARCH" != "$(dpkg --print-architecture)" ]; then
	host_annotate=yes
	touch "$image/ship-kcore-data"
	mkdir -p "$outdir/host"
	for p in baseline series; do
		src=$PERF_X86_BASELINE
		[ $p = series ] && src=$PERF_X86_SERIES
		if [ -x "$src" ]; then cp "$src" "$outdir/host/perf-$p"; fi
	done
fi
# A row that asks for it: the guest makes a --kcore copy with a module above
# _end (kcore-check.sh, 4b).
[ "$MOD_ABOVE_COPY" != yes ] || touch "$image/mod-above-copy"
cp "$VM_GUEST/init.sh" "$image/init"
cp "$guest_script" "$image/guest.sh"
chmod 755 "$image/init" "$image/guest.sh"
# perf's test of perf record --kcore, as posted (patches/record-kcore-test,
# which adds that one file): kcore-check.sh runs it with each perf.
awk '/^\+\+\+ b\/tools\/perf\/tests\/shell\/record_kcore\.sh$/ { f = 1; next }
     f && /^@@/ { next }
     f && /^\+/ { print substr($0, 2); next }
     f { exit }' "$VM_TOP"/patches/record-kcore-test/0001-*.patch >"$image/record_kcore.sh"
[ -s "$image/record_kcore.sh" ] || fail setup-error 2 "no record_kcore.sh in patches/record-kcore-test"
chmod 755 "$image/record_kcore.sh"
mkdir -p "$image/modules"
# Each module of MODULES after the modules it depends on (the .ko's
# depends= field: the packages ship no modules.dep, which depmod makes on
# installation), each once.
declare -A module_added=()
add_module() { # NAME
	local m=$1 ko dep
	[ -z "${module_added[$m]:-}" ] || return 0
	module_added[$m]=1
	# lib/modules, or usr/lib/modules in the usr-merged packages of trixie
	# and sid; a file name may have '-' where the module name has '_'.
	ko=$(find "${kdirs[@]}" -path '*/lib/modules/*' \( -name "$m.ko*" -o -name "${m//_/-}.ko*" \) \
		-print -quit)
	[ -n "$ko" ] || fail setup-error 2 "module $m is not in $kpkg${MODULES_PACKAGE:+ or its modules package}"
	case $ko in
	*.xz) xz -dc "$ko" >"$image/modules/$m.ko" ;;
	*.zst) zstd -qdc "$ko" >"$image/modules/$m.ko" ;;
	*) cp "$ko" "$image/modules/$m.ko" ;;
	esac
	for dep in $(strings "$image/modules/$m.ko" | sed -n 's/^depends=//p' | head -1 | tr ',' ' '); do
		add_module "$dep"
	done
	echo "$m.ko" >>"$image/modules/order"
}
for m in $MODULES; do
	add_module "$m"
done
# The kernel unpacks concatenated cpio archives one over the other.
(cd "$image" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 -n >"$outdir/overlay.cpio.gz"
cat "$rootfs" "$outdir/overlay.cpio.gz" >"$outdir/initrd.cpio.gz"
rm -f "$outdir/overlay.cpio.gz"
trap - ERR

# --- boot ---
qemu=(
	"$QEMU" -accel tcg -M "$MACHINE" -cpu "$CPU" -m "$QEMU_MEM" -smp "$QEMU_SMP"
	-nographic -no-reboot -nic none
	-kernel "$kernel" -initrd "$outdir/initrd.cpio.gz" -append "$APPEND"
	-pidfile "$outdir/qemu.pid"
)
# shellcheck disable=SC2206
qemu+=($QEMU_EXTRA)
# The guest's bulk data (its perf record --kcore directory, tens of MB) comes
# out through a virtio serial port into data.bin: base64 through the TCG
# console took a minute and more for an arm64 row's data.
if [ -n "$DATA_PORT" ]; then
	# shellcheck disable=SC2054 # QEMU options are comma-separated
	qemu+=(-device "$DATA_PORT" -chardev "file,id=vmdata,path=$outdir/data.bin"
		-device virtserialport,chardev=vmdata,name=vm.data)
fi
printf '%q ' "${qemu[@]}" >"$outdir/qemu.cmd"
echo >>"$outdir/qemu.cmd"

qemu_pid=
stop_qemu() {
	local pid
	for pid in $qemu_pid $(cat "$outdir/qemu.pid" 2>/dev/null); do
		kill -0 "$pid" 2>/dev/null || continue
		kill -TERM "$pid" 2>/dev/null || true
		for _ in 1 2 3 4 5; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		kill -KILL "$pid" 2>/dev/null || true
	done
}
trap stop_qemu EXIT
trap 'echo "interrupted: stopping QEMU" >&2; exit 130' INT TERM HUP

say "$CONFIG_NAME: booting $kpkg ($QEMU -M ${MACHINE%%,*} -cpu $CPU, TCG; timeouts ${init_timeout}/${timeout} s; console: $outdir/console.log)"
start=$(now_ms)
# timeout(1) is a second guard: it ends QEMU even if this script is killed.
timeout -k 10 $((timeout + 30)) "${qemu[@]}" </dev/null >"$outdir/console.log" 2>"$outdir/qemu.stderr" &
qemu_pid=$!

booted='' done_at='' shown=0 status='' files_said=''
while kill -0 "$qemu_pid" 2>/dev/null; do
	sleep 1
	elapsed=$(($(now_ms) - start))
	if [ -z "$booted" ] && grep -q '===== VM-INIT' "$outdir/console.log"; then
		booted=$(ms_to_s $elapsed)
		say "$CONFIG_NAME: guest userspace up after ${booted} s"
	fi
	# Progress lines of the guest script, as they come.
	n=$(grep -c '^vm-progress:' "$outdir/console.log" || true)
	if [ "$n" -gt "$shown" ]; then
		grep '^vm-progress:' "$outdir/console.log" | tr -d '\r' | sed -n "$((shown + 1)),${n}p" |
			sed "s/^vm-progress:/    $CONFIG_NAME:/" >&2
		shown=$n
	fi
	if [ -z "$done_at" ] && grep -q '===== VM-DONE' "$outdir/console.log"; then
		done_at=$elapsed
	fi
	# The guest's files (megabytes with a --kcore recording) take a while:
	# say how far they are every 30 s.
	if [ -z "$done_at" ] && [ -z "$files_said" ] && grep -q '===== VM-RESULTS-END' "$outdir/console.log"; then
		files_said=$elapsed
	fi
	if [ -z "$done_at" ] && [ -n "$files_said" ] && [ $((elapsed - files_said)) -ge 30000 ]; then
		say "$CONFIG_NAME: guest files coming out over the console: $(du -m "$outdir/console.log" | cut -f1) MB of console so far"
		files_said=$elapsed
	fi
	# The guest said it is done but did not power off.
	if [ -n "$done_at" ] && [ $((elapsed - done_at)) -gt 30000 ]; then
		say "$CONFIG_NAME: guest finished but did not power off: stopping QEMU"
		stop_qemu
		break
	fi
	if [ -z "$booted" ] && [ "$elapsed" -gt $((init_timeout * 1000)) ]; then
		status=no-init
		stop_qemu
		break
	fi
	if [ "$elapsed" -gt $((timeout * 1000)) ]; then
		status=hang
		stop_qemu
		break
	fi
done
qemu_rc=0
wait "$qemu_pid" 2>/dev/null || qemu_rc=$?
run_seconds=$(ms_to_s $(($(now_ms) - start)))

# --- results ---
tr -d '\r' <"$outdir/console.log" >"$outdir/console.txt"
console=$outdir/console.txt
sed -n '/^===== VM-RESULTS-BEGIN/,/^===== VM-RESULTS-END/p' "$console" |
	grep -E '^[A-Za-z0-9_.]+=' >"$outdir/results.txt" || true
# The guest's files: ===== VM-FILE NAME ===== ... ===== VM-FILE-END =====
awk -v dir="$outdir/guest" '
	/^===== VM-FILE-END =====$/ { if (out) close(out); out = ""; next }
	/^===== VM-FILE .* =====$/ { out = dir "/" $3; printf "" > out; next }
	out { print > out }' "$console"
guest_rc=$(sed -n 's/^===== VM-RESULTS-END rc=\([0-9]*\) =====$/\1/p' "$console" | tail -1)
{
	echo "CONFIG=$CONFIG_NAME"
	echo "KERNEL_PACKAGE=$kpkg"
	echo "KERNEL_SUITE=${KERNEL_SUITE:-bookworm}"
	echo "BOOT_SECONDS=${booted:-none}"
	echo "RUN_SECONDS=$run_seconds"
	echo "QEMU_RC=$qemu_rc"
	echo "GUEST_RC=${guest_rc:-none}"
} >>"$outdir/results.txt"

last20() { echo "--- last 20 console lines ($outdir/console.log) ---" >&2; tail -20 "$console" >&2; }
if [ "$status" = no-init ]; then
	last20
	fail no-boot 4 "the kernel did not reach /init within ${init_timeout} s (QEMU stopped)"
elif [ "$status" = hang ]; then
	last20
	fail hang 3 "guest hung: no end after ${timeout} s (QEMU stopped)"
elif [ -z "$booted" ]; then
	last20
	if grep -q 'Kernel panic' "$console"; then
		fail no-boot 4 "the kernel panicked before /init ($(grep -m1 'Kernel panic' "$console"))"
	fi
	fail no-boot 4 "the kernel did not reach /init (QEMU exit status $qemu_rc; $(head -c 300 "$outdir/qemu.stderr"))"
elif [ -z "$guest_rc" ]; then
	last20
	fail incomplete 5 "the guest stopped before the guest script's end"
fi
if [ $host_annotate = yes ] && grep -q '^KCORE_DATA=' "$outdir/results.txt"; then
	PERF_X86_BASELINE=$outdir/host/perf-baseline PERF_X86_SERIES=$outdir/host/perf-series \
		"$VM_TOP/vm/host/annotate.sh" "$CONFIG_FILE" "$outdir" >"$outdir/host/results.txt" ||
		echo "HOST_ANNOTATE_ERROR=vm/host/annotate.sh exited with $?" >>"$outdir/host/results.txt"
	cat "$outdir/host/results.txt" >>"$outdir/results.txt"
	say "$CONFIG_NAME: host annotate: baseline $(sed -n 's/^baseline.HOST_ANNOTATE=//p' "$outdir/host/results.txt")," \
		"series $(sed -n 's/^series.HOST_ANNOTATE=//p' "$outdir/host/results.txt")"
fi
echo "STATUS=done" >>"$outdir/results.txt"
say "$CONFIG_NAME: done in ${run_seconds} s (boot ${booted} s); results: $outdir/results.txt"
