#!/bin/busybox sh
# /init of the harness's initramfs (PID 1 in the guest). Mounts the kernel
# file systems, loads the modules listed in /modules/order, runs /guest.sh
# and prints, on the console:
#
#   ===== VM-INIT up=SECONDS =====          when userspace starts
#   ===== VM-RESULTS-BEGIN =====            then the guest script's
#   KEY=VALUE ...                           standard output
#   ===== VM-RESULTS-END rc=N =====
#   ===== VM-FILE NAME =====                then each file the guest script
#   ...                                     left in /tmp/out/files/ (its first
#                                           256 KiB; *.b64 files whole)
#   ===== VM-FILE-END =====
#   ===== VM-DONE =====
#
# and powers the machine off. Lines of the guest script's standard output
# that start with 'vm-progress:' are echoed by vm/host/run.sh as they
# come; its standard error goes to the file guest-stderr.log.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root TERM=dumb
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs -o size=1G tmpfs /tmp
echo "===== VM-INIT up=$(cut -d' ' -f1 /proc/uptime) ====="

# Let perf see everything: kernel addresses, all CPUs, kcore.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
# No lowering of the sample rate limit when the sampling interrupt takes
# long, as it does under TCG on a busy host: in cc4's run the 6.12 arm64
# guest's limit fell to 250 and "Object code reading", which asks for 500,
# could not open its event (EINVAL).
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
echo 1 >/proc/sys/kernel/sysrq

if [ -f /modules/order ]; then
	while read -r m; do
		insmod "/modules/$m" || echo "vm-init: insmod $m failed"
	done </modules/order
fi

mkdir -p /tmp/out/files
cd /tmp || exit 1
echo "===== VM-RESULTS-BEGIN ====="
sh /guest.sh 2>/tmp/out/files/guest-stderr.log
rc=$?
echo "===== VM-RESULTS-END rc=$rc ====="
# Kernel messages on the console would land inside the files: keep them in
# the log buffer from here on.
dmesg -n 1
for f in /tmp/out/files/*; do
	[ -f "$f" ] || continue
	echo "===== VM-FILE ${f##*/} ====="
	# At most 256 KiB each, the console is slow; but for *.b64: data the
	# host needs whole (kcore-check.sh's --kcore recording, base64).
	case $f in
	*.b64) cat "$f" ;;
	*) head -c 262144 "$f" ;;
	esac
	echo
	echo "===== VM-FILE-END ====="
done
echo "===== VM-DONE ====="
sync
poweroff -f
# poweroff did not work: sysrq, then let the kernel panic (panic=-1 and
# QEMU's -no-reboot end the machine).
echo o >/proc/sysrq-trigger
sleep 5
exit 1
