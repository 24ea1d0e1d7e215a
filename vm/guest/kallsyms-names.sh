#!/bin/sh
# Guest side of vm/host/kallsyms-names.sh (busybox sh, run by vm/guest/init.sh
# as /guest.sh). It sets up one scenario of module layouts, records kernel
# samples with perf, and has every perf of the image name the same samples
# (`perf script -F ip,sym` of the same perf.data), so that the host can count
# the samples that the perfs name differently.
#
# Usage: guest.sh [SCENARIO]  (default: the word in /kn/scenario)
#   first-boot  lz4hc_compress, zram, a kprobe on zcomp_stream_get recorded
#               with --kcore; then ftrace users, brd, dummy, ifb, veth and a
#               --kcore cpu-clock recording over brd and zram
#   xfs-lz4hc   an ftrace user (below), xfs (its init text is freed, its
#               names kept), then lz4hc_compress, zram;
#               cpu-clock recorded without and with --kcore; again with
#               libie (a module without text) loaded
#   test-bpf    an ftrace user, zram, then a --kcore recording of
#               `insmod test_bpf.ko`; rmmod test_bpf, and a recording of
#               it without --kcore
#
# What the host puts in the image:
#   /kn/scenario   the scenario
#   /kn/perfs      the perfs' names, in order (the first one records)
#   /perf-NAME     each perf
#   /modules/M.ko  the modules, /modules/M.deps the modules M needs
#
# Output: KEY=VALUE lines on standard output (the host's results.txt),
# `vm-progress:` lines (the host prints them as they come), and one gzip'd
# tar of /tmp/kn, sent as /tmp/out/files/kn.tgz.b64 (init.sh prints *.b64
# files whole). For each recording TAG, /tmp/kn holds:
#   TAG-names.txt      `uniq -c` of "ip<TAB>name by perf 1<TAB>name by perf 2..."
#   TAG-using-PERF.txt what `perf script -v` says it reads the kernel from
#   TAG-kallsyms.txt   the kallsyms the perfs named the samples with (the
#                      --kcore copy's, or /proc/kallsyms), module area only
#   TAG-modules.txt    the same for /proc/modules
#   TAG-record.log     perf record's output
# and STEP-{modules,kallsyms,sections}.txt snapshots taken along the way.

SCENARIO=${1:-$(cat /kn/scenario)}
PERFS=$(cat /kn/perfs)
REC=${PERFS%% *}             # the perf that records: the first one
K=/tmp/kn
mkdir -p $K
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null || T=/sys/kernel/debug/tracing
export HOME=/root
mkdir -p $HOME

say() { echo "vm-progress: $*"; }

# load MODULE [ARGS...]: insmod a module of /modules after the modules it
# needs (M.deps), each once.
load() {
	# shellcheck disable=SC3043 # busybox sh has local; load recurses
	local m=$1 d
	shift
	grep -q "^$m " /proc/modules && return 0
	for d in $(cat "/modules/$m.deps" 2>/dev/null); do
		load "$d"
	done
	if [ ! -f "/modules/$m.ko" ]; then
		echo "INSMOD_$m=missing"
		return 1
	fi
	if insmod "/modules/$m.ko" "$@"; then
		echo "INSMOD_$m=ok $(grep "^$m " /proc/modules | awk '{print $6}')"
	else
		echo "INSMOD_$m=failed"
		return 1
	fi
}

# kallsyms_modules FILE: the module-area lines of a kallsyms file (the ones
# with a [module] tag: modules, [bpf], [__builtin__ftrace], ...) and the
# kernel's bounds, sorted by address.
kallsyms_modules() {
	awk 'NF == 4 || $3 == "_text" || $3 == "_stext" || $3 == "_etext" || $3 == "_end"' "$1" | sort
}

# snap STEP: /proc/modules, the module-area kallsyms and the modules'
# section addresses as they are now.
snap() {
	cat /proc/modules >$K/$1-modules.txt
	kallsyms_modules /proc/kallsyms >$K/$1-kallsyms.txt
	for m in /sys/module/*/sections; do
		n=${m%/sections}
		n=${n##*/}
		for s in .text .init.text .exit.text .text.unlikely .noinstr.text .data .rodata; do
			[ -f "$m/$s" ] && echo "$n $s $(cat "$m/$s")"
		done
	done >$K/$1-sections.txt
}

# record TAG [perf record options] -- COMMAND...: record with the first perf.
record() {
	tag=$1
	shift
	say "$tag: perf-$REC record $*"
	rm -rf /tmp/$tag.data
	/perf-$REC record -o /tmp/$tag.data "$@" >$K/$tag-record.log 2>&1
	echo "${tag}_RECORD_RC=$?"
	echo "${tag}_RECORDED_WITH=$REC"
	echo "${tag}_RECORD=$(echo "$*" | tr '\n\t' '  ' | tr -s ' ')"
	grep -E 'Captured and wrote|samples' $K/$tag-record.log | tail -1 | sed "s/^/${tag}_RECORD_SAYS=/"
}

# names TAG: each perf names the samples of /tmp/TAG.data; the lines pair up
# (the same file, the same order), so they are pasted side by side.
names() {
	tag=$1
	d=/tmp/$tag.data
	if [ -d $d/kcore_dir ]; then
		echo "${tag}_KCORE=yes"
		kallsyms_modules $d/kcore_dir/kallsyms >$K/$tag-kallsyms.txt
		cp $d/kcore_dir/modules $K/$tag-modules.txt
	else
		echo "${tag}_KCORE=no"
		kallsyms_modules /proc/kallsyms >$K/$tag-kallsyms.txt
		cat /proc/modules >$K/$tag-modules.txt
	fi
	cols=''
	for p in $PERFS; do
		say "$tag: perf-$p script -F ip,sym"
		# "ip<TAB>name" ("" when perf printed no name)
		/perf-$p script -i $d -F ip,sym 2>/tmp/$tag-$p.err |
			awk '{ ip = $1; $1 = ""; sub(/^ +/, ""); print ip "\t" $0 }' >/tmp/$tag-$p.txt
		echo "${tag}_SAMPLES_$p=$(wc -l </tmp/$tag-$p.txt)"
		cut -f1 /tmp/$tag-$p.txt >/tmp/$tag-$p.ip
		cut -f2 /tmp/$tag-$p.txt >/tmp/$tag-$p.name
		cols="$cols /tmp/$tag-$p.name"
		# Which file perf says it takes the kernel's symbols and code from.
		/perf-$p script -v -i $d -F ip,sym 2>&1 >/dev/null |
			grep -E 'Using|kcore|kallsyms' | sort | uniq -c | head -20 >$K/$tag-using-$p.txt
		echo "${tag}_USING_$p=$(grep -o 'Using [^ ]* for [a-z ]*' $K/$tag-using-$p.txt | sort -u | tr '\n' ';')"
	done
	first=${PERFS%% *}
	for p in $PERFS; do
		cmp -s /tmp/$tag-$first.ip /tmp/$tag-$p.ip || echo "${tag}_IP_MISMATCH_$p=yes"
	done
	# shellcheck disable=SC2086 # $cols: one file per perf
	paste /tmp/$tag-$first.ip $cols | sort | uniq -c >$K/$tag-names.txt
	rm -f /tmp/$tag-*.txt /tmp/$tag-*.ip /tmp/$tag-*.name
}

echo "UNAME=$(uname -r)"
echo "SCENARIO=$SCENARIO"
echo "PERFS=$PERFS"
for p in $PERFS; do
	echo "VERSION_$p=$(/perf-$p version 2>&1)"
done

# ftrace_user: an ftrace-based kprobe, enabled. While an ftrace_ops is
# registered, ftrace keeps the names of the init functions a module frees
# after its init (ftrace_free_mem()), and /proc/kallsyms goes on listing them
# at their old addresses ("T name [module]"), over whatever is loaded there
# later.
ftrace_user() {
	echo 'p:kx vfs_fsync' >>$T/kprobe_events
	echo 1 >$T/events/kprobes/kx/enable && echo "FTRACE_USER=kprobe kx on vfs_fsync, enabled"
}

# record_test_bpf TAG [perf record options]: record `insmod test_bpf.ko`.
# While test_bpf's init runs, its init text is in kallsyms and
# /sys/module/test_bpf/sections/.init.text says where: TAG-during-*.
record_test_bpf() {
	tag=$1
	shift
	(
		i=0
		while [ ! -d /sys/module/test_bpf ] && [ $i -lt 600 ]; do
			usleep 200000
			i=$((i + 1))
		done
		sleep 1
		snap $tag-during
	) &
	watcher=$!
	record $tag "$@" -- insmod /modules/test_bpf.ko
	wait $watcher
	snap $tag-after
	dmesg | grep -E 'test_bpf' | tail -20 >$K/$tag-dmesg.txt
	echo "${tag}_TEST_BPF=$(grep -E 'Summary' $K/$tag-dmesg.txt | tail -3 | tr '\n' ';')"
	names $tag
}

# A zram disk compressing with lz4hc.
zram_lz4hc() {
	echo lz4hc >/sys/block/zram0/comp_algorithm || echo "ZRAM_LZ4HC=failed"
	echo 32M >/sys/block/zram0/disksize
	echo "ZRAM_COMP=$(cat /sys/block/zram0/comp_algorithm)"
}

case $SCENARIO in
first-boot)
	say "first-boot: lz4hc_compress, zram"
	load lz4hc_compress
	load zram
	snap s1-loaded
	zram_lz4hc
	echo 'p:zsg zcomp_stream_get' >>$T/kprobe_events
	record s1-zsg --kcore -a -e kprobes:zsg -- \
		dd if=/perf-$REC of=/dev/zram0 bs=64k count=8 conv=fsync
	names s1-zsg
	echo '-:zsg' >>$T/kprobe_events

	say "first-boot: ftrace users, brd, dummy, ifb, veth"
	ftrace_user
	load brd rd_nr=1 rd_size=32768
	load dummy
	load ifb
	load veth
	mkdir $T/instances/rv && echo vfs_fsync >$T/instances/rv/set_ftrace_filter &&
		echo function >$T/instances/rv/current_tracer
	# a kprobe past the ftrace site (a slot page, maybe an optimized probe)
	for off in 9 10 11 12 13 14 15 16 17 18 19 20; do
		echo "p:ko vfs_fsync+$off" >>$T/kprobe_events 2>/dev/null && {
			echo "S1_KO_OFF=$off"
			break
		}
	done
	echo 1 >$T/events/kprobes/ko/enable
	sleep 2
	# a module loaded after the trampoline
	rmmod ifb
	load ifb
	snap s1-ftrace
	record s1-cpu --kcore -a -e cpu-clock -c 100000 -- sh -c "
		dd if=/perf-$REC of=/dev/ram0 bs=64k count=256 conv=fsync 2>/dev/null
		echo 3 >/proc/sys/vm/drop_caches
		dd if=/dev/ram0 of=/dev/null bs=64k count=256 2>/dev/null
		dd if=/perf-$REC of=/dev/zram0 bs=64k count=64 conv=fsync 2>/dev/null
		echo 3 >/proc/sys/vm/drop_caches
		dd if=/dev/zram0 of=/dev/null bs=64k count=64 2>/dev/null"
	names s1-cpu
	echo 0 >$T/instances/rv/tracing_on 2>/dev/null
	echo nop >$T/instances/rv/current_tracer 2>/dev/null
	echo 0 >$T/events/kprobes/kx/enable
	echo 0 >$T/events/kprobes/ko/enable
	;;
xfs-lz4hc)
	say "xfs-lz4hc: an ftrace user, xfs, then lz4hc_compress"
	ftrace_user
	load xfs
	snap s2-xfs
	load lz4hc_compress
	snap s2-lz4hc
	# Does lz4hc_compress's text lie where kallsyms still lists names of
	# xfs's freed init text (ftrace keeps them: "T name [xfs]")? Between its
	# base address and its last symbol; string comparison of the 16 hex
	# digits is address order.
	base=$(awk '$1 == "lz4hc_compress" { sub(/^0x/, "", $6); print $6 }' /proc/modules)
	last=$(grep '\[lz4hc_compress\]' $K/s2-lz4hc-kallsyms.txt | tail -1 | cut -d' ' -f1)
	awk -v lo="$base" -v hi="$last" '$4 == "[xfs]" && ("" $1) >= lo && ("" $1) <= hi' \
		$K/s2-lz4hc-kallsyms.txt >$K/s2-xfs-names-in-lz4hc.txt
	echo "S2_LZ4HC_BASE=$base"
	echo "S2_XFS_NAMES_IN_LZ4HC=$(grep -c . $K/s2-xfs-names-in-lz4hc.txt)"
	load zram
	zram_lz4hc
	snap s2-zram
	W="dd if=/perf-$REC of=/dev/zram0 bs=64k count=64 conv=fsync 2>/dev/null
	   echo 3 >/proc/sys/vm/drop_caches
	   dd if=/dev/zram0 of=/dev/null bs=64k count=64 2>/dev/null"
	record s2-plain -a -e cpu-clock -- sh -c "$W"
	names s2-plain
	record s2-kcore --kcore -a -e cpu-clock -- sh -c "$W"
	names s2-kcore
	if [ -f /modules/libie.ko ]; then
		say "xfs-lz4hc: again with libie"
		load libie
		echo "S2_LIBIE=$(grep '^libie ' /proc/modules)"
		snap s2-libie
		record s2-libie-plain -a -e cpu-clock -- sh -c "$W"
		names s2-libie-plain
		record s2-libie-kcore --kcore -a -e cpu-clock -- sh -c "$W"
		names s2-libie-kcore
	else
		echo "S2_LIBIE=missing"
	fi
	;;
test-bpf)
	say "test-bpf: an ftrace user, zram (and lz4hc_compress)"
	ftrace_user
	load zram
	snap s3-zram
	# as asked: --kcore (its copy of kallsyms is made before test_bpf loads)
	record_test_bpf s3 --kcore -a -e cpu-clock -F 1000
	# and again without --kcore: perf script then reads /proc/kallsyms as
	# it is after the load
	rmmod test_bpf && echo "S3_RMMOD=ok"
	record_test_bpf s3-plain -a -e cpu-clock -F 1000
	;;
*)
	echo "SCENARIO_ERROR=unknown scenario $SCENARIO"
	exit 2
	;;
esac

dmesg >$K/dmesg.txt
say "sending the results"
tar -C /tmp -czf - kn | base64 >/tmp/out/files/kn.tgz.b64
echo "KN_TGZ_B64_BYTES=$(wc -c </tmp/out/files/kn.tgz.b64)"
say "done"
