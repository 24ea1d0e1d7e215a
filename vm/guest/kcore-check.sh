#!/bin/sh
# The guest script of the kcore matrix: runs as root inside the guest (busybox
# sh), with the two perfs as /perf-baseline and /perf-series and the real
# /proc/kcore. Started by vm/guest/init.sh, which prints its output between
# the result markers.
#
# Prints KEY=VALUE lines ('baseline.X' and 'series.X' per perf; see
# vm/README.md for the keys) and 'vm-progress: ...' lines; keeps the perf
# outputs in /tmp/out/files/ (copied out through the console).
#
# A perf killed by a signal is reported as crash:SIGNAME and the script goes
# on with the next step.

PERFS="baseline series"
FILES=/tmp/out/files
# Kernel-heavy work: page-cache-free copies, a walk of sysfs and procfs, and
# kallsyms formatting. Bounded so TCG needs a few seconds for it.
WORKLOAD='dd if=/dev/zero of=/dev/null bs=4k count=30000 2>/dev/null;
	find / >/dev/null 2>&1; cat /proc/kallsyms >/dev/null;
	dd if=/dev/zero of=/dev/null bs=64k count=3000 2>/dev/null'
SHORT_WORKLOAD='dd if=/dev/zero of=/dev/null bs=4k count=10000 2>/dev/null;
	cat /proc/kallsyms >/dev/null'

progress() { echo "vm-progress: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
result() { echo "$1=$2"; }

# Status word of exit code $1: ok, fail:RC, or crash:SIGNAME for a signal.
status_of() {
	if [ "$1" -eq 0 ]; then
		echo ok
	elif [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "crash:SIG$(kill -l $(($1 - 128)))"
	else
		echo "fail:$1"
	fi
}

# Count the samples of 'perf script -F misc,ip,sym,dso' output $1: prints
# "ALL KERNEL UNRESOLVED", unresolved meaning a kernel sample without a
# symbol. A kernel sample is what perf says it is: the misc field, the
# sample's cpumode, reads K (PERF_RECORD_MISC_KERNEL). Its address says
# nothing portable: s390x's kernel lives low, beside user space, and an
# i386 kernel's addresses are not the upper half.
count_samples() {
	awk '{
		n++
		if ($1 == "K") {
			k++
			if ($3 == "[unknown]") u++
		}
	} END { printf "%d %d %d\n", n, k, u }' "$1"
}

# Unsigned 64-bit compare with the shell's signed arithmetic: flip the top
# bit. busybox's shell arithmetic is 64-bit on the 32-bit guest too (Debian's
# busybox-static has FEATURE_SH_MATH_64), so an ELF32 kcore's addresses and
# ends (up to 2^32) need nothing else.
ubias() { echo $(($1 ^ (1 << 63))); }

# Count the PT_LOAD segments of ELF file $1 and the pairs of them whose
# virtual address ranges overlap (the same kernel bytes copied twice).
# Prints "LOADS OVERLAPS".
load_overlaps() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print $3, $6 }' >/tmp/loads.txt
	loads=0
	overlaps=0
	while read -r va sz; do
		loads=$((loads + 1))
		s1=$(ubias $((va)))
		e1=$(ubias $((va + sz)))
		i=0
		while read -r vb szb; do
			i=$((i + 1))
			[ $i -lt $loads ] || break
			s2=$(ubias $((vb)))
			e2=$(ubias $((vb + szb)))
			if [ "$s1" -lt "$e2" ] && [ "$s2" -lt "$e1" ]; then
				overlaps=$((overlaps + 1))
			fi
		done </tmp/loads.txt
	done </tmp/loads.txt
	echo "$loads $overlaps"
}

# Whether the PT_LOADs of the kcore copy $1 read what /proc/kcore holds: every
# page of each is compared with /proc/kcore's page at its address (ranges may
# overlap, as text inside the module range does on arm64; each must read its
# own bytes). The copy is compared once perf has exited, so data it holds may
# have changed since it was made (ppc64's kernel range runs past _etext to
# the last kernel symbol, over data and the freed init text, and module
# ranges end in module data): a differing page counts against the copy when
# a function (a t or T symbol of /proc/kallsyms, outside
# [__init_begin, __init_end)) starts in it. Prints "RANGES RANGES-WITH-DIFFERING-CODE
# PAGES DIFFERING-PAGES DIFFERING-CODE-PAGES"; the differing pages'
# addresses go to $FILES/$2, those with code marked "code".
copy_reads_kcore() {
	readelf -lW "$1" | awk '$1 == "LOAD" && $5 != "0x000000" { print $2, $3, $5 }' >/tmp/copy-loads.txt
	readelf -lW /proc/kcore | awk '$1 == "LOAD" { print $2, $3, $5 }' >/tmp/kcore-loads.txt
	# Pages where a function starts, but for the init text, which the
	# kernel freed after boot and kallsyms still lists.
	[ -s /tmp/code-pages.txt ] ||
		awk 'function pad(x) { x = sprintf("%16s", x); gsub(/ /, "0", x); return x }
		     NR == FNR { if ($3 == "__init_begin") ib = pad($1); if ($3 == "__init_end") ie = pad($1); next }
		     $2 == "t" || $2 == "T" { a = pad($1)
			if (ib == "" || ie == "" || a < ib || a >= ie) print substr(a, 1, 13) "000" }' \
			/proc/kallsyms /proc/kallsyms | sort -u >/tmp/code-pages.txt
	: >$FILES/$2
	ranges=0 dranges=0 pages=0 dpages=0 cpages=0
	while read -r coff cva csz; do
		va=$(ubias $((cva)))
		koff=
		while read -r ko kva ksz; do
			if [ "$va" -ge "$(ubias $((kva)))" ] && [ "$va" -lt "$(ubias $((kva + ksz)))" ]; then
				koff=$((ko + cva - kva))
				break
			fi
		done </tmp/kcore-loads.txt
		ranges=$((ranges + 1))
		n=$(((csz + 4095) / 4096))
		pages=$((pages + n))
		if [ -z "$koff" ] || [ $((koff % 4096)) -ne 0 ] || [ $((coff % 4096)) -ne 0 ]; then
			echo "$cva: not page-aligned or not in /proc/kcore (copy offset $coff, kcore ${koff:-none})" >>$FILES/$2
			dranges=$((dranges + 1))
			dpages=$((dpages + n))
			cpages=$((cpages + n))
			continue
		fi
		dd if=/proc/kcore of=/tmp/kcore-range bs=4096 skip=$((koff / 4096)) count=$n 2>/dev/null
		dd if="$1" of=/tmp/copy-range bs=4096 skip=$((coff / 4096)) count=$n 2>/dev/null
		# cmp -l: the 1-based offsets of differing bytes, in order; a
		# range shorter in the copy differs in its missing pages.
		cmp -l /tmp/kcore-range /tmp/copy-range 2>/dev/null |
			awk '{ p = int(($1 - 1) / 4096); if (!(p in seen)) { seen[p] = 1; print p } }' >/tmp/differing-pages.txt
		k=$(wc -c </tmp/copy-range)
		[ "$(wc -c </tmp/kcore-range)" -eq "$k" ] || seq $((k / 4096)) $((n - 1)) >>/tmp/differing-pages.txt
		d=0 c=0
		while read -r i; do
			a=$(printf '%016x' $((cva + i * 4096)))
			d=$((d + 1))
			if grep -qx "$a" /tmp/code-pages.txt; then
				c=$((c + 1))
				echo "$a code" >>$FILES/$2
			else
				echo "$a" >>$FILES/$2
			fi
		done </tmp/differing-pages.txt
		dpages=$((dpages + d))
		cpages=$((cpages + c))
		[ "$c" -eq 0 ] || dranges=$((dranges + 1))
	done </tmp/copy-loads.txt
	rm -f /tmp/kcore-range /tmp/copy-range /tmp/differing-pages.txt
	echo "$ranges $dranges $pages $dpages $cpages"
}

# The hottest symbol of the kernel proper (a module's have their own check)
# of a 'perf report --stdio --sort sym' output: /proc/kallsyms names the
# module of each module symbol in a fourth column.
hottest_kernel_symbol() {
	awk 'NR == FNR { if (NF >= 4) mod[$3] = 1; next }
	     $2 == "[k]" && $3 !~ /^0x/ && !($3 in mod) { print $3; exit }' /proc/kallsyms "$1"
}

# Sum of the percentages of unresolved kernel entries ([k] 0x...) of a report.
unresolved_percent() {
	awk '$2 == "[k]" && $3 ~ /^0x/ { sub("%", "", $1); s += $1 } END { printf "%.2f\n", s }' "$1"
}

# The loaded modules' ranges, "xSTART xEND NAME" with 16 hex digits (an 'x'
# first, so that awk compares them as strings: 64-bit addresses do not fit
# its doubles), from /proc/modules (kptr_restrict is 0).
module_ranges() {
	while read -r name size _ _ _ addr _; do
		printf 'x%016x x%016x %s\n' $((addr)) $((addr + size)) "$name"
	done </proc/modules
}

# The kernel samples of 'perf script -F misc,ip,sym,dso' output $1 whose
# address lies in a loaded module: prints "SAMPLES UNRESOLVED HOTTEST", the
# last being the symbol most of them resolve to (- when none does).
count_module_samples() {
	awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
	     $1 == "K" {
		ip = sprintf("%16s", $2); gsub(/ /, "0", ip); ip = "x" ip
		for (i = 1; i <= n; i++)
			if (ip >= s[i] && ip < e[i]) {
				m++
				if ($3 == "[unknown]") u++; else c[$3]++
				break
			}
	     }
	     END {
		best = "-"
		for (f in c) if (c[f] > c[best]) best = f
		printf "%d %d %s\n", m, u, best
	     }' /tmp/module-ranges.txt "$1"
}

# perf annotate of kernel symbol $2 with perf $1 (from perf.data $3): its
# code is read from /proc/kcore (or the recording's copy) and disassembled
# with the guest's objdump; the first instruction must be at the symbol's
# kallsyms address. Keys $1.$4ANNOTATE, $1.$4ANNOTATE_LINES and
# $1.$4ANNOTATE_FROM; the output goes to $FILES/$4annotate-$1.txt.
annotate_symbol() {
	local p=$1 sym=$2 data=$3 key=$4 out
	out=$FILES/$(echo "$key" | tr 'A-Z_' 'a-z-')annotate-$p
	/perf-$p annotate -i "$data" --stdio "$sym" >$out.txt 2>$out.err
	annotate_verdict $p "$sym" $out.txt "$key" $?
}

# The keys of annotate_symbol from perf annotate's output $3 and exit code $5.
annotate_verdict() {
	local p=$1 sym=$2 out=$3 key=$4 rc=$5 addr lines from first
	addr=$(awk -v s="$sym" '$3 == s { print $1; exit }' /proc/kallsyms | sed 's/^0*//')
	lines=$(grep -cE '^ +[0-9.]+ +: +[0-9a-f]+:' $out)
	from=$(sed -n 's/.*Disassembly of \([^ ]*\) .*/\1/p' $out | head -1)
	first=$(sed -n 's/^ *[0-9.]* *: *\([0-9a-f]*\):.*/\1/p' $out | head -1 | sed 's/^0*//')
	if [ $rc -ne 0 ]; then
		result $p.${key}ANNOTATE "$(status_of $rc)"
	elif [ "$lines" -eq 0 ]; then
		result $p.${key}ANNOTATE "fail:no-disassembly"
	elif [ "$first" != "$addr" ]; then
		result $p.${key}ANNOTATE "fail:starts-at-$first-not-$addr"
	else
		result $p.${key}ANNOTATE ok
	fi
	result $p.${key}ANNOTATE_LINES "$lines"
	result $p.${key}ANNOTATE_FROM "${from:-none}"
}

# --- the guest ---
result KERNEL "$(uname -r)"
result MACHINE "$(uname -m)"
result KERNEL_STEXT "$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)"
# The image's boundaries, for the synthetic layouts of perf test "kcore maps".
result KERNEL_BOUNDS "$(awk '$3 ~ /^(_text|_stext|_etext|_edata|_end)$/ {
	printf "%s%s=%s", sep, $3, $1; sep = "," }' /proc/kallsyms)"
# ELF32 on a 32-bit kernel.
KCORE_CLASS=$(readelf -hW /proc/kcore | sed -n 's/^ *Class: *//p')
result KCORE_CLASS "${KCORE_CLASS:-none}"
set -- $(load_overlaps /proc/kcore)
result KCORE_LOADS "$1"
readelf -lW /proc/kcore >$FILES/proc-kcore-phdrs.txt 2>&1
for p in $PERFS; do
	[ -x /perf-$p ] || { echo "no /perf-$p in the image" >&2; exit 1; }
	result $p.VERSION "$(/perf-$p version 2>&1 | sed -n 's/^perf version //p')"
done

# Real modules (the row's MODULES, loaded by init.sh): where they are
# against the kernel image, and module code for the workloads to run: the
# writes to a zram disk are compressed by zram with lz4hc (lz4 where it has
# no lz4hc), whose compressor is a module on Debian's kernels and slow
# enough to get samples.
module_ranges >/tmp/module-ranges.txt
result MODULES_LOADED "$(grep -c . /tmp/module-ranges.txt)"
result MODULES "$(awk '{ print $3 }' /tmp/module-ranges.txt | paste -sd, -)"
text=x$(printf '%016x' $((0x$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms))))
end=x$(printf '%016x' $((0x$(awk '$3 == "_end" { print $1; exit }' /proc/kallsyms))))
result MODULES_BELOW_TEXT "$(awk -v t=$text '$1 < t' /tmp/module-ranges.txt | grep -c .)"
result MODULES_ABOVE_END "$(awk -v e=$end '$1 >= e' /tmp/module-ranges.txt | grep -c .)"
# eBPF programs' symbols ([bpf] in kallsyms), against the same bounds.
awk '$4 == "[bpf]" { a = sprintf("%16s", $1); gsub(/ /, "0", a); print "x" a }' /proc/kallsyms >/tmp/bpf-addresses.txt
result BPF_PROGS "$(grep -c . /tmp/bpf-addresses.txt)"
result BPF_BELOW_TEXT "$(awk -v t=$text '$1 < t' /tmp/bpf-addresses.txt | grep -c .)"
result BPF_ABOVE_END "$(awk -v e=$end '$1 >= e' /tmp/bpf-addresses.txt | grep -c .)"
MODULE_WORK=:
if [ -e /sys/block/zram0 ]; then
	echo lz4hc >/sys/block/zram0/comp_algorithm 2>/dev/null ||
		echo lz4 >/sys/block/zram0/comp_algorithm 2>/dev/null
	if echo 32M >/sys/block/zram0/disksize 2>/dev/null; then
		MODULE_WORK='dd if=/perf-series of=/dev/zram0 bs=64k count=48 conv=fsync 2>/dev/null'
	fi
	result ZRAM_COMP "$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/zram0/comp_algorithm)"
fi
WORKLOAD="$WORKLOAD; $MODULE_WORK"
SHORT_WORKLOAD="$SHORT_WORKLOAD; $MODULE_WORK"

# 1. perf test "Object code reading": the kernel part reads /proc/kcore.
# On riscv the test parses objdump's version as X.Y.Z and calls atoi(NULL)
# on a two-part one (Debian's "2.44"): SIGSEGV at the first sample, in both
# perfs (base code, from upstream 0f9ad973b095). The test then gets an
# objdump that says X.Y.0 and is objdump for everything else.
OCR_ARGS=
objdump_version=$(objdump --version | awk '{ print $NF; exit }')
result OBJDUMP_VERSION "$objdump_version"
case $(uname -m):$objdump_version in
riscv*:*.*.*) ;;
riscv*:*)
	printf '%s\n' '#!/bin/sh' \
		'[ "$1" = --version ] || exec objdump "$@"' \
		"objdump --version | sed '1s/\$/.0/'" >/tmp/objdump-xyz
	chmod 755 /tmp/objdump-xyz
	OCR_ARGS=--objdump=/tmp/objdump-xyz
	result OCR_OBJDUMP_VERSION "$(/tmp/objdump-xyz --version | awk '{ print $NF; exit }')"
	;;
esac
for p in $PERFS; do
	progress "$p: perf test 'Object code reading'"
	/perf-$p test -vv $OCR_ARGS "Object code reading" >$FILES/ocr-$p.log 2>&1
	rc=$?
	verdict=$(sed -n 's/^ *[0-9]*: Object code reading *: *\([A-Za-z!]*\).*/\1/p' $FILES/ocr-$p.log | tail -1)
	[ -n "$verdict" ] || verdict=none
	st=$(status_of $rc)
	case $st in crash:*) verdict=$st ;; esac
	result $p.OCR "$verdict"
	# Kernel object code read from kcore: perf says it uses /proc/kcore
	# ("for kernel data" in 6.12, "for kernel object code" elsewhere) and
	# the test compared bytes with objdump of /proc/kcore.
	reads=$(grep -c 'Objdump command is: .*/proc/kcore' $FILES/ocr-$p.log)
	if grep -qE 'Using /proc/kcore for kernel (data|object code)' $FILES/ocr-$p.log &&
		[ "$reads" -gt 0 ]; then
		result $p.OCR_KCORE yes
	else
		result $p.OCR_KCORE no
	fi
	result $p.OCR_KCORE_READS "$reads"
	result $p.OCR_MATCHES "$(grep -c 'Bytes read match those read by objdump' $FILES/ocr-$p.log)"
	# The test says Ok when it gets no sample at all: count what it read.
	result $p.OCR_ADDRESSES "$(grep -c 'Reading object code for memory address' $FILES/ocr-$p.log)"
done
# The test samples the first of cpu-cycles, cpu-cycles:u, cpu-clock that
# opens. Whether cpu-cycles, when it opens, gives samples at all here:
CYCLES_SAMPLES=none
set -- $PERFS
if /perf-$1 record -e cpu-cycles -o /tmp/cycles.data -- sh -c "$SHORT_WORKLOAD" >$FILES/cycles-$1.log 2>&1; then
	CYCLES_SAMPLES=$(/perf-$1 script -i /tmp/cycles.data -F ip 2>/dev/null | grep -c .)
fi
rm -f /tmp/cycles.data
result CYCLES_SAMPLES "$CYCLES_SAMPLES"

# 1b. The series' "kcore maps" suite (synthetic kcore files, written and
# read in the guest's own architecture and word size). The baseline has no
# such suite: n/a.
for p in $PERFS; do
	if ! /perf-$p test list 2>&1 | grep -q ': kcore maps$'; then
		result $p.KCORE_SUITE n/a
		continue
	fi
	progress "$p: perf test 'kcore maps'"
	/perf-$p test -v "kcore maps" >$FILES/kcore-maps-$p.log 2>&1
	st=$(status_of $?)
	ok=$(grep -cE '^ *[0-9]+\.[0-9]+: .*: Ok$' $FILES/kcore-maps-$p.log)
	bad=$(grep -cE '^ *[0-9]+\.[0-9]+: .*: FAILED' $FILES/kcore-maps-$p.log)
	case $st in
	crash:*) result $p.KCORE_SUITE "$st" ;;
	*) [ "$ok" -gt 0 ] && [ "$bad" -eq 0 ] && result $p.KCORE_SUITE ok || result $p.KCORE_SUITE "fail:$bad-failed" ;;
	esac
	result $p.KCORE_SUITE_PASSED "$ok"
	result $p.KCORE_SUITE_FAILED "$bad"
	# e.g. the annotate case on a guest whose objdump has no x86-64
	result $p.KCORE_SUITE_SKIPPED "$(sed -n 's/^ *[0-9]*\.[0-9]*: kcore maps: \(.*[^ ]\) *: Skip.*/\1/p' \
		$FILES/kcore-maps-$p.log | paste -sd';' -)"
done

# 2. One system-wide recording of a kernel-heavy workload (with the baseline;
# the series perf if that one fails), read back by both perfs.
# At most 1000 samples a second: perf's default 4000 gave the s390x and
# riscv64 rows 50,000-100,000 samples, whose perf script and perf report
# (four of each per row) took a minute under TCG.
progress "recording the workload (perf record -a -e cpu-clock -F 1000)"
rec=none
for p in $PERFS; do
	/perf-$p record -a -e cpu-clock -F 1000 -o /tmp/x.data -- sh -c "$WORKLOAD" >$FILES/record-$p.log 2>&1
	rc=$?
	result $p.RECORD "$(status_of $rc)"
	if [ $rc -eq 0 ]; then
		rec=$p
		break
	fi
done
result RECORDED_BY $rec

hottest= hottest_module=
if [ $rec != none ]; then
	for p in $PERFS; do
		progress "$p: perf script / perf report"
		/perf-$p script -i /tmp/x.data -F misc,ip,sym,dso >/tmp/script-$p.txt 2>$FILES/script-$p.err
		result $p.SCRIPT "$(status_of $?)"
		set -- $(count_samples /tmp/script-$p.txt)
		result $p.SAMPLES "$1"
		result $p.KERNEL_SAMPLES "$2"
		result $p.UNRESOLVED "$3"
		set -- $(count_module_samples /tmp/script-$p.txt)
		result $p.MODULE_SAMPLES "$1"
		result $p.MODULE_UNRESOLVED "$2"
		result $p.HOTTEST_MODULE_SYMBOL "$3"
		[ -n "$hottest_module" ] || [ "$3" = - ] || hottest_module=$3
		/perf-$p report -i /tmp/x.data --stdio --sort sym >$FILES/report-$p.txt 2>$FILES/report-$p.err
		result $p.REPORT "$(status_of $?)"
		result $p.REPORT_UNRESOLVED_PCT "$(unresolved_percent $FILES/report-$p.txt)"
		sym=$(hottest_kernel_symbol $FILES/report-$p.txt)
		result $p.HOTTEST "${sym:-none}"
		[ -n "$hottest" ] || hottest=$sym
	done
	# Samples whose symbol or dso differs between the two perfs (same data,
	# same order, so line by line); n/a when a perf script failed or the two
	# did not print the same number of samples.
	awk 'NR == FNR { a[FNR] = $0; next }
	     a[FNR] != $0 { d++; if (d <= 50) print "baseline: " a[FNR] "\nseries:   " $0 }
	     END { print d + 0 > "/tmp/differing.count" }' \
		/tmp/script-baseline.txt /tmp/script-series.txt >$FILES/differing.txt
	nb=$(wc -l </tmp/script-baseline.txt)
	ns=$(wc -l </tmp/script-series.txt)
	if [ "$nb" -ne "$ns" ] || [ "$nb" -eq 0 ]; then
		result DIFFERING "n/a($nb/$ns-samples)"
	else
		result DIFFERING "$(cat /tmp/differing.count)"
	fi
	head -c 65536 /tmp/script-baseline.txt >$FILES/script-baseline-head.txt

	# Nothing kallsyms resolves may be lost with kcore: each perf reads the
	# same data again with kallsyms alone (a copy of /proc/kallsyms with no
	# kcore beside it) and every sample it names must get the same name from
	# its kcore run. The dso is not compared: kcore covers modules too.
	mkdir -p /tmp/kallsyms-only
	cp /proc/kallsyms /tmp/kallsyms-only/kallsyms
	for p in $PERFS; do
		progress "$p: perf script with kallsyms only"
		/perf-$p script -i /tmp/x.data -F misc,ip,sym,dso --kallsyms /tmp/kallsyms-only/kallsyms \
			>/tmp/script-kallsyms-$p.txt 2>$FILES/script-kallsyms-$p.err
		result $p.KALLSYMS_SCRIPT "$(status_of $?)"
		awk 'function name(l) { sub(/ *\([^()]*\) *$/, "", l); return l }
		     NR == FNR { a[FNR] = name($0); next }
		     a[FNR] !~ /\[unknown\]/ && a[FNR] != name($0) {
			l++; if (l <= 50) print "kallsyms: " a[FNR] "\nkcore:    " name($0) }
		     END { print l + 0 > "/tmp/lost.count" }' \
			/tmp/script-kallsyms-$p.txt /tmp/script-$p.txt >$FILES/lost-$p.txt
		result $p.KALLSYMS_LOST "$(cat /tmp/lost.count)"
	done

	# 3. Annotate the hottest kernel symbol, and the module function most
	# module samples fall in: their code is read from /proc/kcore and
	# disassembled with the guest's objdump.
	result ANNOTATED_SYMBOL "${hottest:-none}"
	result ANNOTATED_MODULE_SYMBOL "${hottest_module:-none}"
	for what in "$hottest:" "$hottest_module:MODULE_"; do
		sym=${what%:*} key=${what##*:}
		for p in $PERFS; do
			if [ -z "$sym" ]; then
				result $p.${key}ANNOTATE "skip:no-symbol"
				continue
			fi
			progress "$p: perf annotate $sym${key:+ (module)}"
			annotate_symbol $p "$sym" /tmp/x.data "$key"
		done
	done
	if cmp -s $FILES/annotate-baseline.txt $FILES/annotate-series.txt; then
		result ANNOTATE_SAME yes
	else
		result ANNOTATE_SAME no
	fi
fi

# 4. perf record --kcore, recorded and checked by perf's own test of it:
# /record_kcore.sh (tools/perf/tests/shell/record_kcore.sh of the
# record-kcore-test posting), run by its path as posted: its workload reads
# zram0, which the module code of its module half needs. A wrapper of each
# perf first on PATH (write_perf_wrapper) changes no argument: it keeps what
# the test's perf runs leave: the recording, its perf script output and its
# annotations. From
# them: each PT_LOAD of the copy must read the bytes /proc/kcore holds at
# its address, the kernel samples must be named, and the module function
# the test annotated must start at its kallsyms address.

# /tmp/wrap-$1/perf runs /perf-$1 and keeps: the output directory of a
# successful 'perf record -o DIR' as /tmp/k.data (hard links: the test
# deletes its own) and record's exit code in /tmp/k.rc; the output of 'perf
# script' of the recording with its copy (no --kallsyms, no --comms) in
# /tmp/kscript-$1.txt; that of 'perf annotate ... SYMBOL' of the recording in
# $FILES/kcore-test-annotate-$1-SYMBOL.txt, and of the test's proc.data
# (/proc/kcore in place of the copy, the last of the test's two reads) in
# ...-SYMBOL-other.txt (exit codes in .rc).
write_perf_wrapper() {
	mkdir -p /tmp/wrap-$1
	printf '#!/bin/sh\np=%s\nFILES=%s\n' $1 $FILES >/tmp/wrap-$1/perf
	cat >>/tmp/wrap-$1/perf <<'EOF'
case $1 in
record)
	/perf-$p "$@"
	rc=$?
	out= prev=
	for a; do
		[ "$prev" != -o ] || out=$a
		prev=$a
	done
	echo $rc >/tmp/k.rc
	if [ $rc -eq 0 ] && [ -n "$out" ]; then
		rm -rf /tmp/k.data
		cp -al "$out" /tmp/k.data 2>/dev/null || cp -a "$out" /tmp/k.data
	fi
	exit $rc
	;;
script | annotate)
	other= last=
	for a; do
		case $a in --kallsyms* | --comms* | */proc.data) other=-other ;; esac
		last=$a
	done
	if [ $1 = script ]; then
		[ -z "$other" ] || exec /perf-$p "$@"
		keep=/tmp/kscript-$p.txt
	else
		keep=$FILES/kcore-test-annotate-$p-$last$other.txt
	fi
	{ /perf-$p "$@"; echo $? >$keep.rc; } | tee $keep
	exit "$(cat $keep.rc)"
	;;
esac
exec /perf-$p "$@"
EOF
	chmod 755 /tmp/wrap-$1/perf
}

# The reason in the "[Skipped: ...]" or "[Failed: ...]" line of a test's
# log $2 ($1 Skipped or Failed), spaces as '-'.
test_reason() {
	sed -n "s/.*\[$1: \(.*\)\]\$/\1/p" "$2" | head -1 | tr ' ' '-'
}

kdata=
for p in $PERFS; do
	progress "$p: perf record --kcore, by perf's test record_kcore.sh"
	rm -rf /tmp/k.data /tmp/k.rc /tmp/kscript-$p.txt /tmp/kscript-$p.txt.rc
	write_perf_wrapper $p
	log=$FILES/record-kcore-test-$p.log
	PATH=/tmp/wrap-$p:$PATH /record_kcore.sh >$log 2>&1
	rc=$?
	case $rc in
	0) result $p.KCORE_TEST ok ;;
	2) result $p.KCORE_TEST "skip:$(test_reason Skipped $log)" ;;
	*) result $p.KCORE_TEST "$(status_of $rc):$(test_reason Failed $log)" ;;
	esac
	if [ ! -f /tmp/k.rc ]; then
		result $p.KCORE_RECORD none
		continue
	fi
	rc=$(cat /tmp/k.rc)
	result $p.KCORE_RECORD "$(status_of $rc)"
	[ $rc -eq 0 ] || continue
	[ $p = series ] && kdata=/tmp/k.data   # the last perf: its data stays
	kcore=/tmp/k.data/kcore_dir/kcore
	if [ ! -f $kcore ]; then
		result $p.KCORE_COPY none
		continue
	fi
	readelf -lW $kcore >$FILES/kcore-copy-phdrs-$p.txt 2>&1
	set -- $(load_overlaps $kcore)
	result $p.KCORE_COPY_LOADS "$1"
	result $p.KCORE_COPY_OVERLAPS "$2"
	result $p.KCORE_COPY_BYTES "$(wc -c <$kcore)"
	set -- $(copy_reads_kcore $kcore kcore-copy-differing-pages-$p.txt)
	result $p.KCORE_COPY_CHECKED "$1"
	result $p.KCORE_COPY_DIFFERING "$2"
	result $p.KCORE_COPY_PAGES "$3"
	result $p.KCORE_COPY_DIFFERING_PAGES "$4"
	result $p.KCORE_COPY_DIFFERING_CODE_PAGES "$5"
	# The test's 'perf script -F misc,ip,sym' of the recording, with its copy.
	if [ ! -f /tmp/kscript-$p.txt.rc ]; then
		result $p.KCORE_REPORT none
		continue
	fi
	result $p.KCORE_REPORT "$(status_of "$(cat /tmp/kscript-$p.txt.rc)")"
	cp /tmp/kscript-$p.txt $FILES/kcore-script-$p.txt
	set -- $(count_samples /tmp/kscript-$p.txt)
	result $p.KCORE_KERNEL_SAMPLES "$2"
	result $p.KCORE_UNRESOLVED "$3"
	result $p.KCORE_REPORT_UNRESOLVED_PCT "$(awk -v n="$1" -v u="$3" 'BEGIN { printf "%.2f\n", n ? 100 * u / n : 0 }')"
	set -- $(count_module_samples /tmp/kscript-$p.txt)
	result $p.KCORE_MODULE_SAMPLES "$1"
	result $p.KCORE_MODULE_UNRESOLVED "$2"
	# The copy's modules: the module function the test annotated from it.
	sym=$(sed -n 's/^perf annotate of module symbol \([^ :]*\).*/\1/p' $log)
	out=$FILES/kcore-test-annotate-$p-$sym.txt
	if [ -n "$sym" ] && [ -f "$out.rc" ]; then
		result $p.KCORE_MODULE_SYMBOL "$sym"
		annotate_verdict $p "$sym" $out KCORE_MODULE_ "$(cat $out.rc)"
	else
		result $p.KCORE_MODULE_ANNOTATE "skip:no-module-symbol"
	fi
done

# 4b. A --kcore copy whose module range encloses the kernel text, from real
# bytes. When a module lies above _end (arm64 with KASLR: the 2 GiB module
# window around the image may start just below _text), kcore_copy() copies
# the module range, which then holds the text, apart from the text and at
# other file offsets. No boot can be made to place a module there, so the
# copy is made with perf buildid-cache --kcore from a directory holding the
# live /proc/kcore, /proc/modules and a /proc/kallsyms that lists one more
# symbol of the first module, at _end. Each perf makes that copy and reads
# the series' --kcore recording back with it: its module samples must get
# the names the genuine copy gives them (the series' reading: check 4), the
# hottest module function must annotate from it, and the function's pages
# in the copy must be /proc/kcore's. Only on rows whose image has
# /mod-above-copy (MOD_ABOVE_COPY in the config): the copy is as large as
# the distance from the lowest module to _end, up to 2 GiB.

# The file offset of address $2 in the first PT_LOAD of ELF file $1 that
# holds it; nothing when none does.
load_offset() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' >/tmp/lo.txt
	a=$(ubias $(($2)))
	while read -r off va sz; do
		if [ "$a" -ge "$(ubias $((va)))" ] && [ "$a" -lt "$(ubias $((va + sz)))" ]; then
			echo $((off + $2 - va))
			return
		fi
	done </tmp/lo.txt
}

# The symbols of the module samples of 'perf script' output $1, one a line.
module_sample_symbols() {
	awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
	     $1 == "K" {
		ip = sprintf("%16s", $2); gsub(/ /, "0", ip); ip = "x" ip
		for (i = 1; i <= n; i++)
			if (ip >= s[i] && ip < e[i]) { print $3; break }
	     }' /tmp/module-ranges.txt "$1"
}

mod_above_copy() { # PERF
	local p=$1 d copy rc sym addr koff coff pages lines encloses
	rm -rf /tmp/above/*
	d=/tmp/above/root
	mkdir -p $d/proc $d/sys/kernel /tmp/above/bid
	ln -s /proc/kcore $d/proc/kcore
	cp /proc/modules $d/proc/modules
	cp /sys/kernel/notes $d/sys/kernel/notes
	{ cat /proc/kallsyms; printf '%s t mod_above_end\t[%s]\n' "${above_end#0x}" "$mod"; } >$d/proc/kallsyms
	/perf-$p --buildid-dir /tmp/above/bid buildid-cache -f --kcore $d/proc/kcore \
		>$FILES/mod-above-buildid-cache-$p.log 2>&1
	rc=$?
	copy=$(find /tmp/above/bid -name kcore -type f | head -1)
	if [ $rc -ne 0 ] || [ -z "$copy" ]; then
		result $p.MOD_ABOVE_COPY "fail:buildid-cache-$(status_of $rc)"
		return
	fi
	readelf -lW $copy >$FILES/mod-above-copy-phdrs-$p.txt 2>&1
	# The layout: a PT_LOAD from below _text to past _end.
	encloses=no
	awk '$1 == "LOAD" { print $3, $5 }' $FILES/mod-above-copy-phdrs-$p.txt >/tmp/above/loads.txt
	while read -r va sz; do
		if [ "$(ubias $((va)))" -lt "$(ubias $((above_text)))" ] &&
			[ "$(ubias $((va + sz)))" -gt "$(ubias $((above_end)))" ]; then
			encloses=yes
		fi
	done </tmp/above/loads.txt
	result $p.MOD_ABOVE_COPY_LOADS "$(grep -c '^ *LOAD' $FILES/mod-above-copy-phdrs-$p.txt)"
	result $p.MOD_ABOVE_COPY_MB "$(($(wc -c <$copy) >> 20))"
	result $p.MOD_ABOVE_COPY_ENCLOSES "$encloses"
	if [ $encloses = no ]; then
		result $p.MOD_ABOVE_COPY "skip:no-module-range-around-the-text"
		return
	fi
	# The series' recording with this copy as its kcore_dir.
	progress "$p: reading the series' recording back with it"
	mkdir -p /tmp/above/m.data
	for f in "$kdata"/*; do
		[ "${f##*/}" = kcore_dir ] || cp -a "$f" /tmp/above/m.data/
	done
	mv "$(dirname $copy)" /tmp/above/m.data/kcore_dir
	copy=/tmp/above/m.data/kcore_dir/kcore
	/perf-$p script -i /tmp/above/m.data -F misc,ip,sym,dso >/tmp/above/script.txt 2>$FILES/mod-above-script-$p.err
	rc=$?
	set -- $(count_module_samples /tmp/above/script.txt)
	result $p.MOD_ABOVE_MODULE_SAMPLES "$1"
	result $p.MOD_ABOVE_UNRESOLVED "$2"
	# Same samples, same order: compared line by line with the names the
	# series gives them from the genuine copy.
	module_sample_symbols /tmp/kscript-series.txt >/tmp/above/names-genuine.txt
	module_sample_symbols /tmp/above/script.txt >/tmp/above/names.txt
	result $p.MOD_ABOVE_DIFFERING "$(awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
		a[FNR] != $0 { d++ } END { if (FNR < n) d += n - FNR; print d + 0 }' \
		/tmp/above/names-genuine.txt /tmp/above/names.txt)"
	# The hottest module function of the genuine copy.
	set -- $(count_module_samples /tmp/kscript-series.txt)
	sym=$3
	annotate_symbol $p "$sym" /tmp/above/m.data MOD_ABOVE_
	# The function's pages (4-byte instructions) in the copy and in /proc/kcore.
	addr=0x$(awk -v s="$sym" '$3 == s { print $1; exit }' /proc/kallsyms)
	lines=$(grep -cE '^ +[0-9.]+ +: +[0-9a-f]+:' $FILES/mod-above-annotate-$p.txt)
	pages=$((((addr & 4095) + 4 * lines + 4095) / 4096))
	koff=$(load_offset /proc/kcore $((addr & ~4095)))
	coff=$(load_offset $copy $((addr & ~4095)))
	if [ -z "$koff" ] || [ -z "$coff" ] || [ $((koff % 4096)) -ne 0 ] || [ $((coff % 4096)) -ne 0 ]; then
		result $p.MOD_ABOVE_BYTES "fail:offsets-${koff:-none}-${coff:-none}"
	else
		dd if=/proc/kcore of=/tmp/above/k.bin bs=4096 skip=$((koff / 4096)) count=$pages 2>/dev/null
		dd if=$copy of=/tmp/above/c.bin bs=4096 skip=$((coff / 4096)) count=$pages 2>/dev/null
		if [ -s /tmp/above/k.bin ] && cmp -s /tmp/above/k.bin /tmp/above/c.bin; then
			result $p.MOD_ABOVE_BYTES "equal:$pages-pages"
		else
			result $p.MOD_ABOVE_BYTES "differ:$pages-pages"
		fi
	fi
	if [ $rc -ne 0 ]; then
		result $p.MOD_ABOVE_COPY "fail:script-$(status_of $rc)"
	else
		result $p.MOD_ABOVE_COPY checked
	fi
}

if [ -f /mod-above-copy ]; then
	above_text=0x$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
	above_end=0x$(awk '$3 == "_end" { print $1; exit }' /proc/kallsyms)
	mod=$(awk '{ print $1; exit }' /proc/modules)
	low=0x$(awk '{ print $6 }' /proc/modules | sed 's/^0x//' | sort | head -1)
	need=$(((above_end - low) >> 20))
	avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
	result MOD_ABOVE_NEED_MB "$need"
	for p in $PERFS; do
		if [ -z "$kdata" ] || [ -z "$mod" ]; then
			result $p.MOD_ABOVE_COPY "skip:no-series-recording-or-module"
		elif [ $((need + 384)) -gt "$avail" ]; then
			result $p.MOD_ABOVE_COPY "skip:needs-${need}-MiB-has-${avail}"
		else
			progress "$p: a --kcore copy with a module above _end (${need} MiB)"
			mkdir -p /tmp/above
			mount -t tmpfs -o size=$((need + 256))M tmpfs /tmp/above
			mod_above_copy $p
			rm -rf /tmp/above/*
			umount /tmp/above
		fi
	done
fi

# 5. On a row of another architecture than the host's, vm/host/run.sh puts
# /ship-kcore-data in the image: the host annotates the series' --kcore
# recording with its own perfs (vm/host/annotate.sh). The data
# directory, a gzip'd tar, goes out through the virtio serial port named
# vm.data when the row has one (DATA_PORT: the host's data.bin), else
# through the console as base64 (init.sh prints *.b64 files whole); the
# host checks it against KCORE_DATA_BYTES and KCORE_DATA_SHA256.
data_port() {
	local d
	for d in /sys/class/virtio-ports/*; do
		[ "$(cat $d/name 2>/dev/null)" = vm.data ] && echo /dev/${d##*/}
	done
}
if [ -f /ship-kcore-data ]; then
	port=$(data_port)
	if [ -z "$kdata" ]; then
		result KCORE_DATA "none:series-record-failed"
	else
		progress "packing the series' --kcore data for the host ($(du -sk $kdata | cut -f1) KiB, through ${port:-the console})"
		if ! tar -czf /tmp/k.data.tgz -C /tmp k.data; then
			result KCORE_DATA fail:tar
		elif [ -n "$port" ] && ! cat /tmp/k.data.tgz >$port; then
			result KCORE_DATA fail:write-$port
		elif [ -z "$port" ] && ! base64 </tmp/k.data.tgz >$FILES/kcore-data.tgz.b64; then
			result KCORE_DATA fail:base64
		else
			result KCORE_DATA_CHANNEL "$([ -n "$port" ] && echo virtio || echo console)"
			result KCORE_DATA_BYTES "$(wc -c </tmp/k.data.tgz)"
			result KCORE_DATA_SHA256 "$(sha256sum </tmp/k.data.tgz | cut -d' ' -f1)"
			result KCORE_DATA shipped
		fi
		rm -f /tmp/k.data.tgz
	fi
fi
progress "done"
