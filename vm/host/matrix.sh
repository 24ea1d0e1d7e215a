#!/bin/bash
# make check-vm: run every matrix row and write the matrix report.
#
# Run the real-kernel matrix: each row (vm/configs/*.conf) boots its Debian
# kernel in QEMU and runs vm/guest/kcore-check.sh with the baseline and the
# series perf; on a row of another architecture than the host's, the host's
# two perfs then annotate the guest's perf record --kcore data
# (vm/host/annotate.sh, run by vm/host/run.sh). Writes
# OUTDIR/vm-matrix.md (a table) and OUTDIR/vm-matrix.json, and each row's run
# into OUTDIR/ROW/ (vm/host/run.sh). OUTDIR defaults to build/results/vm;
# the default run also copies the table and the JSON to
# build/results/vm-matrix.{md,json}.
#
#   vm/host/matrix.sh [-o OUTDIR] [-r | -s | -f | -b] [ROW...]     (default: every row)
#
# -r only writes the report again from the results already in OUTDIR.
# -s only fetches the sysroots the rows' cross builds need.
# -f only fetches and makes what the rows need from the network (sysroots,
# kernels, root file systems) and builds nothing.
# -b fetches the sysroots, then builds the rows' perfs (step 1 below) and
# stops. make check runs -s first, then -f (beside its own builds) and -b
# (at the lowest priority, to use the CPU time its steps leave idle) side by
# side: after -s they share nothing but files both only read.
#
# A row that cannot run (perf build failed, missing package, kernel that
# does not boot, hang) is reported with its reason and the matrix goes on;
# so is a perf killed by a signal in the guest. VM_JOBS rows run side by
# side (default: the number of CPUs; each QEMU runs one vCPU).
#
# Besides the table, OUTDIR/checks.txt has one verdict per check and row
# (STATUS|name|detail, as make check prints them), with the expectations of
# checks/expect-vm.txt applied. Exit status: 0 when no check failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

default_outdir=$BUILD/results/vm
outdir=$default_outdir
report_only=no fetch_only=no
while [ $# -gt 0 ]; do
	case $1 in
	-o)
		[ $# -ge 2 ] || die "usage: $0 [-o OUTDIR] [-r | -s | -f | -b] [ROW...]"
		outdir=$2
		shift 2
		;;
	-r) report_only=yes; shift ;;
	-s) fetch_only=sysroot; shift ;;
	-f) fetch_only=yes; shift ;;
	-b) fetch_only=build; shift ;;
	-*) die "usage: $0 [-o OUTDIR] [-r | -s | -f | -b] [ROW...]" ;;
	*) break ;;
	esac
done
# The default matrix (make check-vm): the base's own kernel, 7.3.4 from
# trixie-backports (rows NAME-7.3: make check's two rows, CHECK_ROWS in
# scripts/check/check.sh), the newest kernel sid serves (7.2.13, rows
# NAME-7.2), the 6.12 of bookworm and trixie, and i386's 6.1 (bookworm has
# no newer one). The other configs in vm/configs (nokaslr x86_64 and arm64
# -cpu max, arm64 a72 KASLR on 6.12) are there to be run by name. The
# longest rows first (as measured: arm64 -cpu max, ppc64le and i386 take
# 100-115 s, x86_64 60-70 s), so that the last rows to start are short ones
# and VM_JOBS guests end close together.
default_rows=(
	arm64-max-kaslr i386-686pae ppc64le-power9 arm64-16k-7.2
	s390x-7.2 s390x riscv64-7.2 riscv64
	arm64-max-kaslr-7.3 ppc64le-power9-7.2 arm64-a72-nokaslr-7.2
	x86_64-kaslr-7.3 x86_64-kaslr
)
if [ $# -gt 0 ]; then rows=("$@"); else rows=("${default_rows[@]}"); fi
guest_script=$VM_GUEST/kcore-check.sh
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
start=$(now_ms)
if [ $report_only = no ]; then
	"$VM_TOP/vm/host/install-deps.sh"

	# Debian architecture of a row (without dying on a bad row).
	row_arch() { (load_config "$1" >/dev/null && echo "$DEB_ARCH") 2>/dev/null || echo unknown; }

	if [ $fetch_only != no ]; then
		for arch in $(for r in "${rows[@]}"; do row_arch "$r"; done | sort -u); do
			case $arch in unknown | amd64) continue ;; esac
			"$VM_TOP/vm/host/build-perf.sh" "$arch" sysroot || true
		done
		if [ $fetch_only = yes ]; then
			for row in "${rows[@]}"; do
				[ "$(row_arch "$row")" != unknown ] || continue
				"$VM_TOP/vm/host/fetch-kernel.sh" "$row" >/dev/null || true
				"$VM_TOP/vm/host/build-rootfs.sh" "$(row_arch "$row")" >/dev/null || true
			done
		fi
		if [ $fetch_only = yes ]; then
			say "fetched what the rows need in $(ms_to_s $(($(now_ms) - start))) s"
		else
			say "fetched the sysroots in $(ms_to_s $(($(now_ms) - start))) s"
		fi
		if [ $fetch_only = build ]; then
			for arch in $(for r in "${rows[@]}"; do row_arch "$r"; done | sort -u); do
				[ "$arch" != unknown ] || continue
				"$VM_TOP/vm/host/build-perf.sh" "$arch" || true
			done
			say "built the rows' perfs in $(ms_to_s $(($(now_ms) - start))) s"
		fi
		exit 0
	fi

	# --- 1. the perfs of every architecture in the matrix ---
	declare -A perf_error=()
	for arch in $(for r in "${rows[@]}"; do row_arch "$r"; done | sort -u); do
		[ "$arch" != unknown ] || continue
		say "perfs for $arch"
		mkdir -p "$outdir/perf-build"
		if ! "$VM_TOP/vm/host/build-perf.sh" "$arch" 2>&1 | tee "$outdir/perf-build/$arch.log" >&2; then
			perf_error[$arch]="perf build for $arch failed: $(grep '^error:' "$outdir/perf-build/$arch.log" | tail -1)"
			say "${perf_error[$arch]}; its rows are skipped"
		fi
	done

	# --- 2. kernels and root file systems, one after the other: rows that
	# run side by side then find them made (a failure here is the row's
	# own to report, when vm/host/run.sh meets it again) ---
	for row in "${rows[@]}"; do
		arch=$(row_arch "$row")
		[ "$arch" != unknown ] && [ -z "${perf_error[$arch]:-}" ] || continue
		"$VM_TOP/vm/host/fetch-kernel.sh" "$row" >/dev/null || true
		"$VM_TOP/vm/host/build-rootfs.sh" "$arch" >/dev/null || true
	done

	# --- 3. the rows, VM_JOBS at a time (each QEMU runs one vCPU) ---
	run_row() { # ROW: boots it; everything it finds goes to $outdir/ROW/
		local row=$1 dir=$outdir/$1 arch rc=0 err
		rm -rf "$dir"
		mkdir -p "$dir"
		arch=$(row_arch "$row")
		if [ "$arch" = unknown ]; then
			printf 'CONFIG=%s\nSTATUS=bad-config\nERROR=%s\n' "$row" "no valid vm/configs/$row.conf" >"$dir/results.txt"
			return 0
		fi
		if [ -n "${perf_error[$arch]:-}" ]; then
			printf 'CONFIG=%s\nSTATUS=perf-build-failed\nERROR=%s\n' "$row" "${perf_error[$arch]}" >"$dir/results.txt"
			return 0
		fi
		"$VM_TOP/vm/host/run.sh" "$row" "$guest_script" "$dir" 2>&1 |
			tee "$dir/run.log" | sed -u "s/^/[$row] /" >&2 || rc=${PIPESTATUS[0]}
		if [ "$rc" -ne 0 ]; then
			err=$(grep -m1 '^error:' "$dir/run.log" | sed 's/^error: //' || true)
			grep -q '^STATUS=' "$dir/results.txt" 2>/dev/null || echo "STATUS=error" >>"$dir/results.txt"
			echo "ERROR=${err:-vm-run.sh exited with $rc}" >>"$dir/results.txt"
		fi
	}
	jobs=${VM_JOBS:-$(nproc)}
	say "running ${#rows[@]} rows, $jobs at a time (each row's log: $outdir/ROW/run.log)"
	running=0
	for row in "${rows[@]}"; do
		if [ "$running" -ge "$jobs" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		say "starting $row"
		run_row "$row" &
		running=$((running + 1))
	done
	wait || true
	total=$(ms_to_s $(($(now_ms) - start)))
	echo "$total" >"$outdir/total-seconds"
fi
total=$(cat "$outdir/total-seconds" 2>/dev/null || echo 0)

# --- 4. the report ---
declare -A R
load_results() { # ROW: the row's KEY=VALUE results into R
	local line
	R=()
	[ -f "$outdir/$1/results.txt" ] || { R[STATUS]=not-run; return 0; }
	while IFS= read -r line; do
		R[${line%%=*}]=${line#*=}
	done <"$outdir/$1/results.txt"
	[ -n "${R[STATUS]:-}" ] || R[STATUS]=incomplete
}
val() { echo "${R[$1]:-—}"; }

md=$outdir/vm-matrix.md
{
	echo "# Real-kernel kcore matrix"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), QEMU TCG, guest script vm/guest/kcore-check.sh"
	echo "(host side: vm/host/annotate.sh);"
	echo "total ${total} s for ${#rows[@]} rows."
	echo
	# Six small tables: the rows, then per row and perf the suites, the
	# samples, annotate, the modules and the --kcore copy.
	echo "## Rows"
	echo
	echo "| guest | kernel | _stext | modules (below _text, above _end) | boot s | run s |"
	echo "|---|---|---|---|---|---|"
	for row in "${rows[@]}"; do
		load_results "$row"
		st=
		[ "$(val STATUS)" = "done" ] || st=" **$(val STATUS)**: $(val ERROR)"
		echo "| $row$st | $(val KERNEL) ($(val KERNEL_SUITE)) | $(val KERNEL_STEXT) |" \
			"$(val MODULES_LOADED) ($(val MODULES_BELOW_TEXT), $(val MODULES_ABOVE_END)) | $(val BOOT_SECONDS) | $(val RUN_SECONDS) |"
	done
	# One table: its title, header and, per row that ran and perf, a line
	# made by the function named.
	per_perf_table() { # TITLE HEADER LINE-FUNCTION
		local cols
		cols=$(($(tr -cd "|" <<<"$2" | wc -c) + 1))
		echo
		echo "## $1"
		echo
		echo "| guest | perf | $2 |"
		printf '|---|---|%s\n' "$(printf -- '---|%.0s' $(seq "$cols"))"
		for row in "${rows[@]}"; do
			load_results "$row"
			[ "$(val STATUS)" = "done" ] || continue
			for p in baseline series; do
				echo "| $row | $p | $($3 "$p") |"
			done
		done
	}
	suites_line() {
		local p=$1 ocr suite
		ocr=$(val $p.OCR)
		[ "$(val $p.OCR_KCORE)" = yes ] && ocr="$ocr, kernel code from kcore"
		[ "$(val $p.OCR_KCORE)" = no ] && ocr="$ocr, **no kernel code read**"
		suite=$(val $p.KCORE_SUITE)
		[ "$suite" = ok ] && suite="ok ($(val $p.KCORE_SUITE_PASSED) cases)"
		echo "$ocr | $suite | $(val $p.KCORE_TEST)"
	}
	samples_line() {
		local p=$1
		echo "$(val $p.KERNEL_SAMPLES) of $(val $p.SAMPLES) | $(val $p.UNRESOLVED) | $(val DIFFERING) | $(val $p.KALLSYMS_LOST)"
	}
	annotate_line() {
		local p=$1 ann host
		ann=$(val $p.ANNOTATE)
		[ "$ann" = ok ] && ann="ok ($(val ANNOTATED_SYMBOL), $(val $p.ANNOTATE_LINES) lines from $(val $p.ANNOTATE_FROM))"
		[ "${ann#fail}" != "$ann" ] && ann="**$ann** ($(val ANNOTATED_SYMBOL), $(val $p.ANNOTATE_LINES) lines)"
		host=$(val $p.HOST_ANNOTATE)
		case $host in
		ok) host="ok ($(val HOST_ANNOTATED_SYMBOL), $(val $p.HOST_ANNOTATE_LINES) lines)" ;;
		—) ;;
		*) host="**$host** ($(val HOST_ANNOTATED_SYMBOL))" ;;
		esac
		case $(val $p.HOST_MODULE_ANNOTATE) in
		ok) host="$host; module: ok ($(val HOST_MODULE_SYMBOL))" ;;
		—) ;;
		*) host="$host; module: **$(val $p.HOST_MODULE_ANNOTATE)**" ;;
		esac
		echo "$ann | $host"
	}
	modules_line() {
		local p=$1 mann
		mann=$(val $p.MODULE_ANNOTATE)
		[ "$mann" = ok ] && mann="ok ($(val ANNOTATED_MODULE_SYMBOL), $(val $p.MODULE_ANNOTATE_LINES) lines from $(val $p.MODULE_ANNOTATE_FROM))"
		[ "${mann#fail}" != "$mann" ] && mann="**$mann** ($(val ANNOTATED_MODULE_SYMBOL))"
		echo "$(val $p.MODULE_SAMPLES) ($(val $p.MODULE_UNRESOLVED)) | $mann"
	}
	copy_line() {
		local p=$1 kc kmann above
		kc=$(val $p.KCORE_RECORD)
		[ "$kc" = ok ] && kc="$(val $p.KCORE_COPY_LOADS) ($(val $p.KCORE_COPY_OVERLAPS)), $(val $p.KCORE_COPY_DIFFERING)"
		kmann=$(val $p.KCORE_MODULE_ANNOTATE)
		[ "$kmann" = ok ] && kmann="ok ($(val $p.KCORE_MODULE_SYMBOL))"
		above=$(val $p.MOD_ABOVE_COPY)
		[ "$above" = checked ] && above="$(val $p.MOD_ABOVE_COPY_MB) MiB: $(val $p.MOD_ABOVE_MODULE_SAMPLES) ($(val $p.MOD_ABOVE_UNRESOLVED), $(val $p.MOD_ABOVE_DIFFERING) otherwise), annotate $(val $p.MOD_ABOVE_ANNOTATE), bytes $(val $p.MOD_ABOVE_BYTES)"
		echo "$kc | $(val $p.KCORE_KERNEL_SAMPLES) ($(val $p.KCORE_UNRESOLVED)) | $(val $p.KCORE_MODULE_SAMPLES) ($(val $p.KCORE_MODULE_UNRESOLVED)), $kmann | $above"
	}
	per_perf_table "Suites" "object code reading | kcore maps suite | record --kcore test" suites_line
	per_perf_table "Samples and symbols" "kernel samples | unresolved | differing | lost vs kallsyms" samples_line
	per_perf_table "Annotate" "from kcore | on the host" annotate_line
	per_perf_table "Modules" "module samples (unresolved) | module annotate" modules_line
	per_perf_table "The --kcore copy" "PT_LOADs (overlapping), differing from kcore | kernel samples (unresolved) | module samples (unresolved), annotate | copy with a module above _end" copy_line
	echo
	echo "Columns: *modules* counts the modules loaded (the row's MODULES and what"
	echo "they need) and those below _text and above _end. *object code reading* is"
	echo "perf test \"Object code reading\" and whether it read kernel code through"
	echo "/proc/kcore; *kcore maps suite* the series' perf test \"kcore maps\" (the"
	echo "baseline has none); *record --kcore test* perf's record_kcore.sh (the"
	echo "record-kcore-test posting), run with each perf. *kernel samples* and"
	echo "*unresolved* count perf script samples whose cpumode is kernel (misc K),"
	echo "and those without a symbol (a row with none fails); *differing* counts"
	echo "samples whose symbol or dso differs between the two perfs on the same"
	echo "recording; *lost vs kallsyms* samples that perf names with kallsyms alone"
	echo "but otherwise, or not at all, with /proc/kcore. *from kcore* is perf"
	echo "annotate of the hottest kernel symbol; *on the host* (rows of another"
	echo "architecture than the host's) the host's own perf annotating the hottest"
	echo "kernel symbol of the guest's --kcore recording (made by the series perf)"
	echo "with the guest architecture's objdump. *module samples* counts kernel"
	echo "samples whose address lies in a module (/proc/modules), and those"
	echo "without a symbol; *module annotate* is perf annotate of the module"
	echo "function most of them fall in. *The --kcore copy*: the recording of"
	echo "record_kcore.sh, every page of the copy compared with /proc/kcore's, the"
	echo "same counts from it and annotate of the module function the test"
	echo "annotated; *copy with a module above _end* (rows with MOD_ABOVE_COPY) is a"
	echo "copy made from this kernel's kcore with a kallsyms that lists a module"
	echo "symbol at _end, read back: its size, module samples (unresolved, named"
	echo "otherwise than from the genuine copy), annotate of the module function"
	echo "and its bytes against /proc/kcore (vm/README.md)."
	crashes=$(for row in "${rows[@]}"; do
		grep -E '^[a-z]+\.[A-Z_]+=crash:' "$outdir/$row/results.txt" 2>/dev/null | sed "s/^/$row: /" || true
	done)
	if [ -n "$crashes" ]; then
		echo
		echo "## Crashes"
		echo
		echo "$crashes" | sed 's/^/- /'
	fi
} >"$md"

# JSON: one object per row, every result as a string.
json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}
{
	echo "{"
	echo "  \"total_seconds\": $total,"
	echo "  \"rows\": ["
	sep=
	for row in "${rows[@]}"; do
		load_results "$row"
		printf '%s    {\n      "config": %s,\n      "status": %s,\n      "results": {' "$sep" "$(json_str "$row")" "$(json_str "$(val STATUS)")"
		ksep=
		while IFS= read -r k; do
			printf '%s\n        %s: %s' "$ksep" "$(json_str "$k")" "$(json_str "${R[$k]}")"
			ksep=,
		done < <(printf '%s\n' "${!R[@]}" | LC_ALL=C sort)
		printf '\n      }\n    }'
		sep=$',\n'
	done
	echo
	echo "  ]"
	echo "}"
} >"$outdir/vm-matrix.json"

# --- 5. the verdicts: one line per check, STATUS|vm: ROW: [PERF: ]CHECK|detail ---
# What a row is expected to get wrong (the baseline's known defects) or
# cannot show (an emulator's limit) is in checks/expect-vm.txt.
expect_file=$VM_TOP/checks/expect-vm.txt
expectation() { # ROW PERF CHECK: prints "fail|may-fail|skip REASON", or nothing
	local row=$1 perf=$2 check=$3 r p c e why
	[ -f "$expect_file" ] || return 0
	while read -r r p c e why; do
		# shellcheck disable=SC2053
		[[ $row == $r && $perf == $p && ${check// /-} == $c ]] || continue
		echo "$e $why"
		return 0
	done < <(grep -vE '^[[:space:]]*(#|$)' "$expect_file")
}
verdict() { # ROW PERF CHECK OK(yes/no) DETAIL
	local row=$1 perf=$2 check=$3 ok=$4 detail=$5 exp status name
	exp=$(expectation "$row" "$perf" "$check")
	name="vm: $row: ${perf:+$perf: }$check"
	[ -n "$perf" ] || name="vm: $row: $check"
	case "$ok:${exp%% *}" in
	yes:fail) status=FAIL detail="$detail; expected to fail (checks/expect-vm.txt) but passed" ;;
	yes:*) status=PASS ;;
	no:fail | no:may-fail) status=XFAIL detail="$detail; expected: ${exp#* }" ;;
	no:skip) status=SKIP detail="$detail; ${exp#* }" ;;
	no:*) status=FAIL ;;
	esac
	printf '%s|%s|%s\n' "$status" "$name" "$detail"
}
is() { [ "$1" = "$2" ] && echo yes || echo no; }
{
	for row in "${rows[@]}"; do
		load_results "$row"
		if [ "$(val STATUS)" != "done" ]; then
			printf 'FAIL|vm: %s: ran to its end|%s: %s\n' "$row" "$(val STATUS)" "$(val ERROR)"
			continue
		fi
		for p in baseline series; do
			# Ok with no address read is no reading at all: the test
			# got no sample (CYCLES_SAMPLES says whether cpu-cycles
			# samples on this guest).
			ok=$(is "$(val $p.OCR)" Ok)
			[ "$(val $p.OCR_ADDRESSES)" != 0 ] || ok=no
			verdict "$row" "$p" "object code reading" $ok \
				"$(val $p.OCR), $(val $p.OCR_ADDRESSES) addresses read; cpu-cycles samples of a short workload: $(val CYCLES_SAMPLES)"
			verdict "$row" "$p" "kernel code read from kcore" "$(is "$(val $p.OCR_KCORE)" yes)" \
				"$(val $p.OCR_KCORE_READS) objdump reads of /proc/kcore, $(val $p.OCR_MATCHES) matches"
			if [ "$(val $p.KCORE_SUITE)" != n/a ]; then
				verdict "$row" "$p" "kcore maps suite" "$(is "$(val $p.KCORE_SUITE)" ok)" \
					"$(val $p.KCORE_SUITE): $(val $p.KCORE_SUITE_PASSED) passed, $(val $p.KCORE_SUITE_FAILED) failed, skipped: $(val $p.KCORE_SUITE_SKIPPED)"
			fi
			ok=no
			[ "$(val $p.SCRIPT)" = ok ] && [ "$(val $p.KERNEL_SAMPLES)" != — ] && [ "$(val $p.KERNEL_SAMPLES)" -gt 0 ] &&
				[ "$(val $p.UNRESOLVED)" = 0 ] && ok=yes
			verdict "$row" "$p" "kernel samples resolve" $ok \
				"perf script $(val $p.SCRIPT), $(val $p.UNRESOLVED) unresolved of $(val $p.KERNEL_SAMPLES)"
			verdict "$row" "$p" "nothing lost vs kallsyms" "$(is "$(val $p.KALLSYMS_LOST)" 0)" \
				"$(val $p.KALLSYMS_LOST) samples named otherwise with kcore"
			verdict "$row" "$p" "annotate from kcore" "$(is "$(val $p.ANNOTATE):$(val $p.ANNOTATE_FROM)" ok:kcore)" \
				"$(val $p.ANNOTATE) $(val ANNOTATED_SYMBOL), $(val $p.ANNOTATE_LINES) lines from $(val $p.ANNOTATE_FROM)"
			ok=no
			[ "$(val $p.MODULE_SAMPLES)" != — ] && [ "$(val $p.MODULE_SAMPLES)" -gt 0 ] &&
				[ "$(val $p.MODULE_UNRESOLVED)" = 0 ] && ok=yes
			verdict "$row" "$p" "module samples resolve" $ok \
				"$(val $p.MODULE_UNRESOLVED) unresolved of $(val $p.MODULE_SAMPLES) samples in $(val MODULES_LOADED) modules ($(val MODULES))"
			verdict "$row" "$p" "module annotate from kcore" "$(is "$(val $p.MODULE_ANNOTATE):$(val $p.MODULE_ANNOTATE_FROM)" ok:kcore)" \
				"$(val $p.MODULE_ANNOTATE) $(val ANNOTATED_MODULE_SYMBOL), $(val $p.MODULE_ANNOTATE_LINES) lines from $(val $p.MODULE_ANNOTATE_FROM)"
			ok=no
			[ "$(val $p.KCORE_MODULE_SAMPLES)" != — ] && [ "$(val $p.KCORE_MODULE_SAMPLES)" -gt 0 ] &&
				[ "$(val $p.KCORE_MODULE_UNRESOLVED)" = 0 ] && [ "$(val $p.KCORE_MODULE_ANNOTATE)" = ok ] && ok=yes
			verdict "$row" "$p" "record --kcore copy: module code" $ok \
				"$(val $p.KCORE_MODULE_UNRESOLVED) unresolved of $(val $p.KCORE_MODULE_SAMPLES) module samples, annotate $(val $p.KCORE_MODULE_SYMBOL): $(val $p.KCORE_MODULE_ANNOTATE), $(val $p.KCORE_MODULE_ANNOTATE_LINES) lines from $(val $p.KCORE_MODULE_ANNOTATE_FROM)"
			ok=no
			[ "$(val $p.KCORE_RECORD)" = ok ] && [ "$(val $p.KCORE_COPY_DIFFERING)" = 0 ] &&
				[ "$(val $p.KCORE_COPY_CHECKED)" != 0 ] &&
				[ "$(val $p.KCORE_REPORT)" = ok ] && [ "$(val $p.KCORE_UNRESOLVED)" = 0 ] && ok=yes
			verdict "$row" "$p" "record --kcore copy" $ok \
				"record $(val $p.KCORE_RECORD), $(val $p.KCORE_COPY_LOADS) PT_LOADs ($(val $p.KCORE_COPY_OVERLAPS) overlapping), $(val $p.KCORE_COPY_DIFFERING) of $(val $p.KCORE_COPY_CHECKED) with code differing from /proc/kcore ($(val $p.KCORE_COPY_DIFFERING_PAGES) of $(val $p.KCORE_COPY_PAGES) pages differ, $(val $p.KCORE_COPY_DIFFERING_CODE_PAGES) of them with code), $(val $p.KCORE_UNRESOLVED) unresolved"
			# perf's own test of the copy, as posted (record-kcore-test).
			t=$(val $p.KCORE_TEST)
			if [ "${t%%:*}" = skip ]; then
				printf 'SKIP|vm: %s: %s: record --kcore test|%s\n' "$row" "$p" "$t"
			else
				verdict "$row" "$p" "record --kcore test" "$(is "$t" ok)" \
					"record_kcore.sh: $t (guest/record-kcore-test-$p.log)"
			fi
			# Rows with MOD_ABOVE_COPY: the copy made with a module
			# above _end, read back (kcore-check.sh, 4b).
			if [ "$(val $p.MOD_ABOVE_COPY)" != — ]; then
				ok=no bytes=$(val $p.MOD_ABOVE_BYTES) n=$(val $p.MOD_ABOVE_MODULE_SAMPLES)
				[ "$(val $p.MOD_ABOVE_COPY)" = checked ] && [ "$(val $p.MOD_ABOVE_COPY_ENCLOSES)" = yes ] &&
					[ "$n" != — ] && [ "$n" -gt 0 ] && [ "$(val $p.MOD_ABOVE_UNRESOLVED)" = 0 ] &&
					[ "$(val $p.MOD_ABOVE_DIFFERING)" = 0 ] &&
					[ "$(val $p.MOD_ABOVE_ANNOTATE):$(val $p.MOD_ABOVE_ANNOTATE_FROM)" = ok:kcore ] &&
					[ "${bytes#equal}" != "$bytes" ] && ok=yes
				verdict "$row" "$p" "copy with a module above _end" $ok \
					"$(val $p.MOD_ABOVE_COPY), $(val $p.MOD_ABOVE_COPY_MB) MiB, module range around the text: $(val $p.MOD_ABOVE_COPY_ENCLOSES); $(val $p.MOD_ABOVE_UNRESOLVED) unresolved and $(val $p.MOD_ABOVE_DIFFERING) named otherwise of $(val $p.MOD_ABOVE_MODULE_SAMPLES) module samples; annotate $(val $p.MOD_ABOVE_ANNOTATE), $(val $p.MOD_ABOVE_ANNOTATE_LINES) lines from $(val $p.MOD_ABOVE_ANNOTATE_FROM); function bytes $(val $p.MOD_ABOVE_BYTES)"
			fi
			# Rows of another architecture than the host's: the host's
			# perf of this kind annotates the guest's --kcore data.
			if [ "$(val $p.HOST_ANNOTATE)" != — ]; then
				detail="$(val $p.HOST_ANNOTATE) $(val HOST_ANNOTATED_SYMBOL), $(val $p.HOST_ANNOTATE_LINES) lines with $(val HOST_OBJDUMP), data $(val HOST_KCORE_DATA), perf $(val $p.HOST_VERSION)"
				[ "$(val $p.HOST_ANNOTATE)" = ok ] || detail="$detail; perf said: $(val $p.HOST_ANNOTATE_ERRORS)"
				verdict "$row" "$p" "annotate on the host" "$(is "$(val $p.HOST_ANNOTATE)" ok)" "$detail"
			fi
			if [ "$(val $p.HOST_MODULE_ANNOTATE)" != — ]; then
				detail="$(val $p.HOST_MODULE_ANNOTATE) $(val HOST_MODULE_SYMBOL), $(val $p.HOST_MODULE_ANNOTATE_LINES) lines with $(val HOST_OBJDUMP)"
				[ "$(val $p.HOST_MODULE_ANNOTATE)" = ok ] || detail="$detail; perf said: $(val $p.HOST_MODULE_ANNOTATE_ERRORS)"
				verdict "$row" "$p" "module annotate on the host" "$(is "$(val $p.HOST_MODULE_ANNOTATE)" ok)" "$detail"
			fi
		done
		verdict "$row" "" "same symbols with both perfs" "$(is "$(val DIFFERING)" 0)" "$(val DIFFERING) samples differ"
		if [ "$(val ANNOTATE_SAME)" != yes ] && [ "$(val series.ANNOTATE)" = ok ] &&
			[ "$(val baseline.ANNOTATE)" != ok ]; then
			# The baseline's own annotate check failed (above): a
			# baseline defect, not a difference the series makes.
			printf 'XFAIL|vm: %s: same annotate with both perfs|%s\n' "$row" \
				"the baseline annotated wrongly ($(val baseline.ANNOTATE)), the series right"
		else
			verdict "$row" "" "same annotate with both perfs" "$(is "$(val ANNOTATE_SAME)" yes)" \
				"baseline $(val baseline.ANNOTATE), series $(val series.ANNOTATE)"
		fi
	done
} >"$outdir/checks.txt"

# The default run (make check, make check-vm) also puts the report beside
# the other results.
if [ "$(realpath -m "$outdir")" = "$(realpath -m "$default_outdir")" ]; then
	cp "$md" "$BUILD/results/vm-matrix.md"
	cp "$outdir/vm-matrix.json" "$BUILD/results/vm-matrix.json"
fi

cat "$md"
echo
grep -v '^PASS|' "$outdir/checks.txt" | tr '|' ' ' || true
passed=$(grep -cE '^(PASS|XFAIL)\|' "$outdir/checks.txt" || true)
failed=$(grep -c '^FAIL|' "$outdir/checks.txt" || true)
say "matrix done in ${total} s: $passed checks passed, $failed failed; $md, $outdir/vm-matrix.json, $outdir/checks.txt"
[ "$failed" = 0 ]
