#!/bin/bash
# Annotate, on this host, a foreign-architecture guest's --kcore recording.
#
# The host side of a foreign-architecture row: perf annotate, on this host,
# of the guest's 'perf record --kcore' data directory (vm/guest/kcore-check.sh
# records it with the series perf and sends it out through a virtio serial
# port, OUTDIR/data.bin, or through the console as guest/kcore-data.tgz.b64).
# Both of this host's perfs, the baseline and the series
# (build/{baseline,patched}/perf), annotate the hottest kernel symbol of the
# guest's perf script of that recording, disassembled with the guest
# architecture's objdump (binutils-<triplet>, vm/host/install-deps.sh).
#
#   vm/host/annotate.sh CONFIG OUTDIR
#
# OUTDIR is the row's vm/host/run.sh output directory. Prints KEY=VALUE lines for
# its results.txt (vm/host/run.sh appends them; vm/README.md lists the keys) and
# keeps its work in OUTDIR/host/: the unpacked data directory (k.data) and
# each perf's annotate output and errors. PERF_X86_BASELINE and
# PERF_X86_SERIES name the perfs (vm/host/run.sh passes the copies it made when
# the row started). A perf passes when it prints the symbol's instructions
# from its kallsyms address on.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: $0 CONFIG OUTDIR"
load_config "$1"
outdir=$2
[ -d "$outdir" ] || die "no run directory $outdir"
work=$outdir/host
result() { echo "$1=$2"; }
# The guest's value of KEY (results.txt), or nothing.
guest_value() { sed -n "s/^$1=//p" "$outdir/results.txt" 2>/dev/null | tail -1; }
# Nothing to annotate: both perfs fail for reason $1, and we are done.
both_fail() {
	local p
	for p in baseline series; do
		result "$p.HOST_ANNOTATE" "fail:$1"
	done
	exit 0
}
# No data directory (HOST_KCORE_DATA says why).
no_data() {
	result HOST_KCORE_DATA "$1"
	both_fail no-data
}
# ok, fail:RC or crash:SIGNAME for exit status $1 (as the guest script).
status_of() {
	if [ "$1" -eq 0 ]; then
		echo ok
	elif [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "crash:SIG$(kill -l $(($1 - 128)))"
	else
		echo "fail:$1"
	fi
}

objdump=$(deb_triplet "$DEB_ARCH")-objdump
result HOST_OBJDUMP "$objdump"
start=$(now_ms)

# --- the data directory, as the guest sent it ---
rm -rf "$work/k.data" "$work/kcore-data.tgz"
mkdir -p "$work"
shipped=$(guest_value KCORE_DATA)
[ "$shipped" = shipped ] || no_data "none:guest-said-${shipped:-nothing}"
bytes=$(guest_value KCORE_DATA_BYTES)
if [ "$(guest_value KCORE_DATA_CHANNEL)" = virtio ]; then
	# The virtio serial port's output (vm/host/run.sh's data.bin): the tar alone.
	bin=$outdir/data.bin
	[ -s "$bin" ] || no_data "none:no-data.bin"
	say "$CONFIG_NAME: host: unpacking the guest's perf record --kcore data ($(du -h "$bin" | cut -f1), virtio serial port)"
	[ "$(stat -c %s "$bin")" = "$bytes" ] || no_data "corrupt:$(stat -c %s "$bin")-bytes-not-$bytes"
	cp "$bin" "$work/kcore-data.tgz"
else
	b64=$outdir/guest/kcore-data.tgz.b64
	[ -s "$b64" ] || no_data "none:no-$(basename "$b64")"
	say "$CONFIG_NAME: host: unpacking the guest's perf record --kcore data ($(du -h "$b64" | cut -f1) of base64)"
	base64 -d <"$b64" >"$work/kcore-data.tgz" 2>/dev/null || no_data "corrupt:base64"
fi
sum=$(sha256sum <"$work/kcore-data.tgz" | cut -d' ' -f1)
[ "$sum" = "$(guest_value KCORE_DATA_SHA256)" ] || no_data "corrupt:sha256-differs"
tar -xzf "$work/kcore-data.tgz" -C "$work" || no_data "corrupt:tar"
data=$work/k.data
if [ ! -f "$data/data" ] || [ ! -f "$data/kcore_dir/kcore" ]; then
	no_data "none:no-data-or-kcore_dir"
fi
result HOST_KCORE_DATA "ok:$(stat -c %s "$work/kcore-data.tgz")-bytes"

# --- the symbol: the kernel one (not a module's) most samples of this data
# get in the guest's perf script of it (kcore-script-series.txt: misc, ip,
# sym; the copy's kallsyms says which symbols are the kernel's) ---
sym=$(awk 'NR == FNR { if (NF == 3) kernel[$3] = 1; next }
	   $1 ~ /K/ && ($3 in kernel) { n[$3]++ }
	   END { for (s in n) if (n[s] > most) { most = n[s]; best = s }; print best }' \
	"$data/kcore_dir/kallsyms" "$outdir/guest/kcore-script-series.txt" 2>/dev/null || true)
result HOST_ANNOTATED_SYMBOL "${sym:-none}"
[ -n "$sym" ] || both_fail no-kernel-symbol-in-the-guest-script
addr=$(awk -v s="$sym" '$3 == s { print $1; exit }' "$data/kcore_dir/kallsyms" | sed 's/^0*//')
result HOST_SYMBOL_ADDRESS "${addr:-none}"

# --- each perf annotates it, and the module function the guest annotated
# from the same copy (KCORE_MODULE_SYMBOL): keys HOST_ and HOST_MODULE_ ---
host_annotate() { # SYMBOL ADDRESS KEY
	local sym=$1 addr=$2 key=$3 p perf out err rc lines first verdict
	for p in baseline series; do
		case $p in
		baseline) perf=$PERF_X86_BASELINE ;;
		series) perf=$PERF_X86_SERIES ;;
		esac
		if [ ! -x "$perf" ]; then
			result "$p.${key}ANNOTATE" "fail:no-perf"
			continue
		fi
		if ! command -v "$objdump" >/dev/null; then
			result "$p.${key}ANNOTATE" "fail:no-$objdump"
			continue
		fi
		result "$p.HOST_VERSION" "$("$perf" version 2>&1 | sed -n 's/^perf version //p')"
		say "$CONFIG_NAME: host: $p perf annotate $sym ($objdump)"
		out=$work/${key}annotate-$p.txt err=$work/${key}annotate-$p.err rc=0
		"$perf" annotate -i "$data" --objdump="$objdump" --stdio "$sym" >"$out" 2>"$err" || rc=$?
		lines=$(grep -cE '^ +[0-9.]+ +: +[0-9a-f]+:' "$out" || true)
		first=$(sed -n 's/^ *[0-9.]* *: *\([0-9a-f]*\):.*/\1/p' "$out" | sed -n '1s/^0*//p')
		if [ "$rc" -ne 0 ]; then
			verdict=$(status_of "$rc")
		elif [ "$lines" -eq 0 ]; then
			verdict=fail:no-disassembly
		elif [ "$first" != "$addr" ]; then
			verdict=fail:starts-at-$first-not-$addr
		else
			verdict=ok
		fi
		result "$p.${key}ANNOTATE" "$verdict"
		result "$p.${key}ANNOTATE_LINES" "$lines"
		# What perf said, on one line (e.g. "map_symbol__get_arch: unsupported arch 62").
		result "$p.${key}ANNOTATE_ERRORS" "$(awk 'NF && n < 5 { printf "%s%s", (n++ ? "; " : ""), $0 }' "$err" |
			tr '|' '/' | cut -c1-300)"
	done
}
host_annotate "$sym" "$addr" HOST_
msym=$(guest_value series.KCORE_MODULE_SYMBOL)
result HOST_MODULE_SYMBOL "${msym:-none}"
if [ -n "$msym" ]; then
	maddr=$(awk -v s="$msym" '$3 == s { print $1; exit }' "$data/kcore_dir/kallsyms" | sed 's/^0*//')
	host_annotate "$msym" "$maddr" HOST_MODULE_
fi
result HOST_ANNOTATE_SECONDS "$(ms_to_s $(($(now_ms) - start)))"
