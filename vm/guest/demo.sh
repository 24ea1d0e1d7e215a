#!/bin/sh
# The guest script of 'make demo' (busybox sh, as root, with the series' perf
# as /perf-series and the guest's real /proc/kcore). Started by
# vm/guest/init.sh; what it prints between the result markers ends up in
# the host's results.txt, and the files it leaves in /tmp/out/files/ are
# what vm/host/demo.sh shows:
#
#   kcore.txt      the PT_LOAD segments of /proc/kcore, the one holding the
#                  kernel text marked, and the segments that contain it
#   report.txt     perf report --stdio: the top kernel symbols
#   annotate.txt   perf annotate --stdio of the hottest kernel symbol
#   *.err          perf's messages (annotate's, with -v: where it read the
#                  kernel's code from)

PERF=/perf-series
FILES=/tmp/out/files
# Kernel-heavy work: page-cache-free copies, a walk of sysfs and procfs, and
# kallsyms formatting.
WORKLOAD='dd if=/dev/zero of=/dev/null bs=4k count=30000 2>/dev/null;
	find / >/dev/null 2>&1; cat /proc/kallsyms >/dev/null;
	dd if=/dev/zero of=/dev/null bs=64k count=3000 2>/dev/null'

progress() { echo "vm-progress: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
result() { echo "$1=$2"; }

# Unsigned 64-bit compare with the shell's signed arithmetic: flip the top bit.
ubias() { echo $(($1 ^ (1 << 63))); }

result KERNEL "$(uname -r)"
result PERF_VERSION "$($PERF version 2>&1 | sed -n 's/^perf version //p')"
stext=0x$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
result KERNEL_STEXT "$stext"

# 1. The layout perf has to merge: which segment holds _stext, and which
# segments contain that one (on arm64, vmalloc contains the kernel text).
progress "reading the segments of /proc/kcore"
readelf -lW /proc/kcore | awk '$1 == "LOAD" { print $3, $6 }' >/tmp/loads.txt
s=$(ubias $((stext)))
text_start='' text_end=''
while read -r va sz; do
	a=$(ubias $((va)))
	b=$(ubias $((va + sz)))
	if [ "$a" -le "$s" ] && [ "$s" -lt "$b" ]; then
		if [ -z "$text_start" ] || [ "$a" -ge "$(ubias $((text_start)))" ]; then
			text_start=$va text_end=$(printf '0x%x' $((va + sz)))
		fi
	fi
done </tmp/loads.txt
{
	echo "PT_LOAD segments of /proc/kcore (_stext = $stext):"
	while read -r va sz; do
		end=$(printf '0x%016x' $((va + sz)))
		note=
		if [ "$va" = "$text_start" ]; then
			note="  <- kernel text (holds _stext)"
		elif [ -n "$text_start" ] &&
			[ "$(ubias $((va)))" -le "$(ubias $((text_start)))" ] &&
			[ "$(ubias $((text_end)))" -le "$(ubias $((va + sz)))" ]; then
			note="  <- contains the kernel text"
		fi
		if [ $((sz >> 40)) -gt 0 ]; then
			size="$((sz >> 40)) TiB"
		elif [ $((sz >> 30)) -gt 0 ]; then
			size="$((sz >> 30)) GiB"
		else
			size="$((sz >> 20)) MiB"
		fi
		printf '  %s - %s  %8s%s\n' "$(printf '0x%016x' $((va)))" "$end" "$size" "$note"
	done </tmp/loads.txt
} >$FILES/kcore.txt
result KCORE_LOADS "$(wc -l </tmp/loads.txt)"

# 2. Kernel samples of the whole machine (cpu-clock: TCG has no PMU).
progress "perf record -a -e cpu-clock:k (kernel samples of a kernel-heavy workload)"
$PERF record -a -e cpu-clock:k -o /tmp/demo.data -- sh -c "$WORKLOAD" >$FILES/record.err 2>&1
rc=$?
result RECORD "$rc"
[ $rc -eq 0 ] || exit 1

# 3. The top kernel symbols.
progress "perf report --stdio --sort sym"
$PERF report -i /tmp/demo.data --stdio --sort sym --percent-limit 0.8 \
	>$FILES/report.txt 2>$FILES/report.err
result REPORT "$?"
hottest=$(awk '$2 == "[k]" && $3 !~ /^0x/ { print $3; exit }' $FILES/report.txt)
result HOTTEST "${hottest:-none}"
result HOTTEST_ADDRESS "$(awk -v s="$hottest" '$3 == s { print $1; exit }' /proc/kallsyms)"
result UNRESOLVED_KERNEL_ENTRIES "$(awk '$2 == "[k]" && $3 ~ /^0x/' $FILES/report.txt | wc -l)"

# 4. Its code, read from /proc/kcore and disassembled by the guest's objdump.
[ -n "$hottest" ] || exit 1
progress "perf annotate --stdio $hottest"
$PERF annotate -v -i /tmp/demo.data --stdio "$hottest" >$FILES/annotate.txt 2>$FILES/annotate.err
result ANNOTATE "$?"
# -v: perf says where it read the kernel's code from.
result USES_KCORE "$(grep -c 'Using /proc/kcore for kernel' $FILES/annotate.err)"
result ANNOTATE_LINES "$(grep -cE '^ +[0-9.]+ +: +[0-9a-f]+:' $FILES/annotate.txt)"
result ANNOTATE_FIRST "$(sed -n 's/^ *[0-9.]* *: *\([0-9a-f]*\):.*/\1/p' $FILES/annotate.txt | head -1)"
progress "done"
