#!/bin/bash
# How many kernel samples do perfs name differently? Boots Debian's 7.3.4
# x86_64 kernel in QEMU (TCG), sets up one module layout (a scenario), records
# with the first perf and has every perf name the same samples (`perf script
# -F ip,sym` of the same perf.data, so the lines pair up), then counts, for
# each pair of perfs, the samples whose name differs, "old -> new".
#
# Usage:
#   vm/host/kallsyms-names.sh SCENARIO OUTDIR [NAME=PERF...]
#   vm/host/kallsyms-names.sh all OUTDIR [NAME=PERF...]   # the three, one after another, in OUTDIR/SCENARIO
#   vm/host/kallsyms-names.sh report OUTDIR               # redo OUTDIR/report.txt from a run's files
#
# SCENARIO: first-boot (1), xfs-lz4hc (2), test-bpf (3); what each does is in
# vm/guest/kallsyms-names.sh. NAME=PERF: an x86_64 perf and the name it goes
# by; the first one records. Default: base=build/m-base/perf a=build/m-a/perf
# ab=build/m-ab/perf, or v8=build/m-v8/perf while build/m-ab/perf does not
# exist (looked at before each boot). Build them first:
#   scripts/build/perf.sh --rev base build/m-base
#   scripts/build/perf.sh --rev posting/kallsyms-symbol-end build/m-a
#   scripts/build/perf.sh --rev posting/kallsyms-module-end build/m-ab
#
# OUTDIR then holds: report.txt (the figures), console.log, results.txt (the
# guest's KEY=VALUE lines), guest/kn/ (the guest's files, see the guest
# script), module-sections.txt (section sizes of the modules in the image),
# and per recording TAG: TAG-diff-P-Q.txt ("old -> new" with counts, for perfs
# P and Q), TAG-changed.txt (the addresses named differently) and
# TAG-context.txt (for each name change, its busiest address with the
# /proc/modules line and the kallsyms lines around it).
#
# Environment: KN_TIMEOUT (seconds for the whole guest run, default 2400),
# KN_MEM (guest memory, default 2G).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
kver=7.3.4+deb13-amd64
kpkg=7.3.4-1~bpo13+1_amd64
unpacked=build/vm/cache/unpacked/amd64
kernel=$unpacked/linux-binary-${kver}_$kpkg/usr/lib/modules/$kver/vmlinuz
moddir=$unpacked/linux-modules-${kver}_$kpkg/usr/lib/modules/$kver/kernel
rootfs=build/vm/rootfs/amd64/rootfs.cpio.gz
timeout=${KN_TIMEOUT:-2400}

say() { echo "==> [$(date +%T)] $*" >&2; }
die() { echo "kallsyms-names: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^# SCENARIO/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# The perfs when none are given: ab as soon as it is built, v8 until then.
default_perfs() {
	if [ -x build/m-ab/perf ]; then
		echo base=build/m-base/perf a=build/m-a/perf ab=build/m-ab/perf
	else
		echo base=build/m-base/perf a=build/m-a/perf v8=build/m-v8/perf
	fi
}

# The modules each scenario loads (their dependencies are added).
scenario_modules() {
	case $1 in
	first-boot) echo lz4hc_compress zram brd dummy ifb veth ;;
	xfs-lz4hc) echo xfs lz4hc_compress zram libie ;;
	test-bpf) echo lz4hc_compress zram test_bpf ;;
	esac
}

# ---------------------------------------------------------------- report ---

# report OUTDIR: the figures from the guest's files, in OUTDIR/report.txt.
report() {
	local out=$1 kn=$1/guest/kn tag perfs n i j p q f
	[ -d "$kn" ] || die "$kn: no guest files (did the guest run end?)"
	read -r -a perfs <<<"$(sed -n 's/^PERFS=//p' "$out/results.txt")"
	n=${#perfs[@]}
	{
		echo "scenario: $(sed -n 's/^SCENARIO=//p' "$out/results.txt"); kernel $(sed -n 's/^UNAME=//p' "$out/results.txt")"
		for p in "${perfs[@]}"; do
			echo "perf $p: $(sed -n "s/^VERSION_$p=//p" "$out/results.txt") ($(sed -n "s/^PERF_$p=//p" "$out/results.txt"))"
		done
		grep -E '^(INSMOD_|ZRAM_COMP|FTRACE_USER|S1_|S2_|S3_|.*_TEST_BPF=)' "$out/results.txt" || true
		for f in "$kn"/*-names.txt; do
			[ -e "$f" ] || continue
			tag=$(basename "$f" -names.txt)
			echo
			echo "=== $tag ==="
			echo "recorded with $(sed -n "s/^${tag}_RECORDED_WITH=//p" "$out/results.txt"):" \
				"perf record $(sed -n "s/^${tag}_RECORD=//p" "$out/results.txt")" \
				"(--kcore: $(sed -n "s/^${tag}_KCORE=//p" "$out/results.txt"))"
			for p in "${perfs[@]}"; do
				echo "perf $p script -v: $(sed -n "s/^${tag}_USING_${p}=//p" "$out/results.txt")"
			done
			grep -E "^${tag}_IP_MISMATCH" "$out/results.txt" || true
			# Each line of TAG-names.txt: "COUNT IP<TAB>NAME1<TAB>NAME2...".
			awk -F'\t' '{ split($1, a, " "); total += a[1]; if (a[2] ~ /^ffff/) kernel += a[1] }
				END { printf "samples: %d (kernel: %d)\n", total, kernel }' "$f"
			for ((i = 0; i < n; i++)); do
				for ((j = i + 1; j < n; j++)); do
					p=${perfs[i]} q=${perfs[j]}
					awk -F'\t' -v i=$((i + 2)) -v j=$((j + 2)) '
						$i != $j { split($1, a, " "); c[$i " -> " $j] += a[1] }
						END { for (k in c) printf "%7d  %s\n", c[k], k }' "$f" |
						sort -rn >"$out/$tag-diff-$p-$q.txt"
					echo "$p -> $q: $(awk '{ s += $1 } END { print s + 0 }' "$out/$tag-diff-$p-$q.txt")" \
						"samples named differently ($(grep -c . "$out/$tag-diff-$p-$q.txt" || true) distinct changes); top:"
					head -12 "$out/$tag-diff-$p-$q.txt"
				done
			done
			changed "$out" "$tag" "$n"
			echo "addresses named differently by some pair: $(grep -c . "$out/$tag-changed.txt" || true)" \
				"($tag-changed.txt; kallsyms around them: $tag-context.txt)"
		done
		[ ! -f "$kn/s2-xfs-names-in-lz4hc.txt" ] || {
			echo
			echo "=== xfs names kallsyms lists inside lz4hc_compress's text (s2-lz4hc) ==="
			head -20 "$kn/s2-xfs-names-in-lz4hc.txt"
		}
		for tag in s3 s3-plain; do
			[ ! -f "$kn/$tag-during-sections.txt" ] || test_bpf_samples "$out" "$tag" "${perfs[@]}"
		done
	} >"$out/report.txt"
	say "report: $out/report.txt"
}

# changed OUTDIR TAG N: the addresses some pair names differently
# (TAG-changed.txt: count, ip, the names) and, for each distinct tuple of
# names, its busiest address in context (TAG-context.txt).
changed() {
	local out=$1 tag=$2 n=$3 kn=$1/guest/kn
	awk -F'\t' -v n="$n" '{
			same = 1
			for (k = 3; k <= n + 1; k++) if ($k != $2) same = 0
			if (same) next
			split($1, a, " ")
			line = a[2]
			for (k = 2; k <= n + 1; k++) line = line "\t" ($k == "" ? "(none)" : $k)
			printf "%7d\t%s\n", a[1], line
		}' "$kn/$tag-names.txt" | sort -k1,1rn >"$out/$tag-changed.txt"
	# /proc/modules with the end of each module: "start end name" (16 hex
	# digits each, so that string order is address order).
	while read -r name size _ _ _ addr _; do
		printf '%016x %016x %s\n' "$addr" $((addr + size)) "$name"
	done <"$kn/$tag-modules.txt" >"$out/.modules-ranges"
	# the first (busiest) address of each tuple of names
	awk -F'\t' '{ key = ""; for (k = 3; k <= NF; k++) key = key "\t" $k } !seen[key]++' \
		"$out/$tag-changed.txt" | sed -n 1,40p |
		awk -F'\t' -v ks="$kn/$tag-kallsyms.txt" -v mods="$out/.modules-ranges" '
		BEGIN {
			while ((getline l < ks) > 0) { k[++nk] = l; split(l, f, " "); ka[nk] = "" f[1] }
			while ((getline l < mods) > 0) { m[++nm] = l }
		}
		{
			ip = sprintf("%16s", $2); gsub(/ /, "0", ip)
			printf "--- %s samples at %s:", $1, ip
			for (c = 3; c <= NF; c++) printf " %s", $c
			print ""
			# the last kallsyms line at or below ip ("> "), three before it, two after
			at = 0
			for (x = 1; x <= nk; x++) if (ka[x] <= ip) at = x; else break
			# each module whose /proc/modules range (address, address + size)
			# holds ip, and its last symbol at or below ip ("m ") when that
			# is not among the lines above
			for (x = 1; x <= nm; x++) {
				split(m[x], r, " ")
				if (ip < ("" r[1]) || ip >= ("" r[2])) continue
				print "  /proc/modules: " r[3] " " r[1] "-" r[2]
				for (y = at; y >= 1; y--) if (index(k[y], "[" r[3] "]")) break
				if (y >= 1 && y < at - 3) print "  m " k[y]
			}
			for (x = at - 3; x <= at + 2; x++) if (x >= 1 && x <= nk) print (x == at ? "  > " : "    ") k[x]
		}' >"$out/$tag-context.txt"
	rm -f "$out/.modules-ranges"
}

# test_bpf_samples OUTDIR TAG PERF...: the samples of recording TAG in
# test_bpf's .text and .init.text (where /sys/module/test_bpf/sections said
# while its init ran, TAG-during-sections.txt; the sizes from the .ko),
# grouped by the names each perf gave them, and what kallsyms lists there.
test_bpf_samples() {
	local out=$1 tag=$2 kn=$1/guest/kn sec start size end
	shift 2
	for sec in .text .init.text; do
		echo
		echo "=== $tag: samples in test_bpf's $sec ==="
		start=$(awk -v s="$sec" '$1 == "test_bpf" && $2 == s { print $3 }' "$kn/$tag-during-sections.txt" 2>/dev/null)
		size=$(awk -v s="$sec" '$1 == "test_bpf" && $2 == s { print $3 }' "$out/module-sections.txt")
		if [ -z "$start" ] || [ -z "$size" ]; then
			echo "unknown: no $sec address of test_bpf seen while it ran"
			continue
		fi
		start=$(printf '%016x' "$start") end=$(printf '%016x' $((0x$start + 0x$size)))
		echo "test_bpf $sec: $start-$end (size 0x$size); kallsyms lines there, first 6:"
		echo "  while test_bpf's init ran:"
		awk -v lo="$start" -v hi="$end" '("" $1) >= lo && ("" $1) < hi' "$kn/$tag-during-kallsyms.txt" | sed -n 1,6p
		echo "  in the kallsyms the perfs named the samples with ($tag-kallsyms.txt):"
		awk -v lo="$start" -v hi="$end" '("" $1) >= lo && ("" $1) < hi' "$kn/$tag-kallsyms.txt" | sed -n 1,6p
		echo "samples there, by the names perfs $* gave them:"
		awk -F'\t' -v lo="$start" -v hi="$end" '{
				split($1, a, " ")
				if (("" a[2]) < lo || ("" a[2]) >= hi) next
				names = ""
				for (k = 2; k <= NF; k++) names = names " | " ($k == "" ? "(none)" : $k)
				c[substr(names, 4)] += a[1]; total += a[1]
			}
			END { for (x in c) printf "%7d  %s\n", c[x], x; printf "%7d  total\n", total }' \
			"$kn/$tag-names.txt" | sort -rn | sed -n 1,15p
	done
}

# ------------------------------------------------------------------ boot ---

# run SCENARIO OUTDIR NAME=PERF...: one boot.
run() {
	local scenario=$1 out=$2 image m p name path
	shift 2
	[ -f "$kernel" ] || die "no kernel at $kernel (vm/host/fetch-kernel.sh x86_64-kaslr-7.3)"
	[ -f "$rootfs" ] || die "no root file system at $rootfs (vm/host/build-rootfs.sh amd64)"
	rm -rf "$out"
	mkdir -p "$out/guest"
	image=$out/image
	mkdir -p "$image/kn" "$image/modules"
	say "$scenario: building the initrd overlay in $image"
	cp vm/guest/init.sh "$image/init"
	cp vm/guest/kallsyms-names.sh "$image/guest.sh"
	echo "$scenario" >"$image/kn/scenario"
	for p in "$@"; do
		name=${p%%=*} path=${p#*=}
		[ -x "$path" ] || die "perf $name: $path is not an executable"
		cp "$path" "$image/perf-$name"
		echo "$name" >>"$image/kn/perfs.list"
		echo "PERF_$name=$path" >>"$out/host.txt"
		say "$scenario: perf $name = $path ($("$path" version))"
	done
	tr '\n' ' ' <"$image/kn/perfs.list" | sed 's/ $//' >"$image/kn/perfs"
	rm "$image/kn/perfs.list"
	for m in $(scenario_modules "$scenario"); do
		add_module "$image" "$m" "$out/module-sections.txt"
	done
	chmod 755 "$image/init" "$image/guest.sh" "$image"/perf-*
	# The kernel unpacks concatenated cpio archives one over the other.
	(cd "$image" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 -n >"$out/overlay.cpio.gz"
	cat "$rootfs" "$out/overlay.cpio.gz" >"$out/initrd.cpio.gz"
	rm -rf "$image" "$out/overlay.cpio.gz"

	local qemu=(qemu-system-x86_64 -accel tcg -M pc -cpu qemu64 -m "${KN_MEM:-2G}" -smp 1
		-nographic -no-reboot -nic none -kernel "$kernel" -initrd "$out/initrd.cpio.gz"
		-append 'console=ttyS0 panic=-1 loglevel=4')
	printf '%q ' "${qemu[@]}" >"$out/qemu.cmd"
	say "$scenario: booting (TCG, timeout ${timeout} s; console: $out/console.log)"
	local start=$SECONDS shown=0 k qpid status=ended
	# timeout(1) ends QEMU should this script be killed
	nice -n 19 timeout -k 10 $((timeout + 30)) "${qemu[@]}" </dev/null >"$out/console.log" 2>"$out/qemu.stderr" &
	qpid=$!
	trap 'kill "$qpid" 2>/dev/null || true' EXIT
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 2
		# the guest's progress lines, as they come
		k=$(grep -c '^vm-progress:' "$out/console.log" || true)
		if [ "$k" -gt "$shown" ]; then
			grep '^vm-progress:' "$out/console.log" | tr -d '\r' | sed -n "$((shown + 1)),${k}p" |
				sed "s/^vm-progress:/    [$(date +%T) +$((SECONDS - start)) s] guest:/" >&2
			shown=$k
		fi
		if [ $((SECONDS - start)) -gt "$timeout" ]; then
			status=timeout
			say "$scenario: no end after $timeout s: stopping QEMU"
			kill "$qpid" 2>/dev/null || true
			break
		fi
	done
	wait "$qpid" 2>/dev/null || true
	trap - EXIT
	rm -f "$out/initrd.cpio.gz"
	say "$scenario: QEMU ended after $((SECONDS - start)) s"

	# The results: KEY=VALUE lines, then the files between the markers.
	tr -d '\r' <"$out/console.log" >"$out/console.txt"
	sed -n '/^===== VM-RESULTS-BEGIN/,/^===== VM-RESULTS-END/p' "$out/console.txt" |
		grep -E '^[A-Za-z0-9_.-]+=' >"$out/results.txt" || true
	cat "$out/host.txt" >>"$out/results.txt"
	echo "RUN_SECONDS=$((SECONDS - start))" >>"$out/results.txt"
	echo "STATUS=$status" >>"$out/results.txt"
	awk -v dir="$out/guest" '
		/^===== VM-FILE-END =====$/ { if (o) close(o); o = ""; next }
		/^===== VM-FILE .* =====$/ { o = dir "/" $3; printf "" > o; next }
		o { print > o }' "$out/console.txt"
	rm -f "$out/console.txt"
	if [ ! -s "$out/guest/kn.tgz.b64" ]; then
		tail -20 "$out/console.log" >&2
		die "$scenario: the guest sent no results (status $status; see $out/console.log)"
	fi
	base64 -d "$out/guest/kn.tgz.b64" | tar -xzf - -C "$out/guest"
	rm "$out/guest/kn.tgz.b64"
	report "$out"
}

# add_module IMAGE NAME SECTIONS-FILE: the module, decompressed, in
# IMAGE/modules, with the modules it depends on (its depends= field; the
# package has no modules.dep) in NAME.deps; its .text and .init.text sizes
# in SECTIONS-FILE.
add_module() {
	local image=$1 m=$2 secs=$3 ko d
	[ ! -f "$image/modules/$m.ko" ] || return 0
	ko=$(find "$moddir" \( -name "$m.ko.xz" -o -name "${m//_/-}.ko.xz" \) -print -quit)
	if [ -z "$ko" ]; then
		say "WARNING: module $m is not in the modules package: the guest goes without it"
		return 0
	fi
	xz -dc "$ko" >"$image/modules/$m.ko"
	strings "$image/modules/$m.ko" | sed -n 's/^depends=//p' | sed -n 1p | tr ',' ' ' >"$image/modules/$m.deps"
	# "  [11] .init.text  PROGBITS  ADDR OFF SIZE ..." (the index is padded)
	readelf -SW "$image/modules/$m.ko" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
		awk -v m="$m" '$1 == ".text" || $1 == ".init.text" { print m, $1, $5 }' >>"$secs"
	for d in $(cat "$image/modules/$m.deps"); do
		add_module "$image" "$d" "$secs"
	done
}

# ------------------------------------------------------------------ main ---

[ $# -ge 2 ] || usage
what=$1 out=$2
shift 2
case $what in
1) what=first-boot ;;
2) what=xfs-lz4hc ;;
3) what=test-bpf ;;
esac
case $what in
report)
	report "$out"
	cat "$out/report.txt"
	;;
all)
	for s in first-boot xfs-lz4hc test-bpf; do
		# shellcheck disable=SC2046 # default_perfs: words
		if [ $# -gt 0 ]; then run "$s" "$out/$s" "$@"; else run "$s" "$out/$s" $(default_perfs); fi
		cat "$out/$s/report.txt"
	done
	;;
first-boot | xfs-lz4hc | test-bpf)
	# shellcheck disable=SC2046
	if [ $# -gt 0 ]; then run "$what" "$out" "$@"; else run "$what" "$out" $(default_perfs); fi
	cat "$out/report.txt"
	;;
*) usage ;;
esac
