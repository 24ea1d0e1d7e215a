# Helpers for the real-kernel harness (scripts/vm-*.sh); sourced, not run.
# shellcheck shell=bash
#
# The harness boots Debian kernels in QEMU (TCG only) for x86_64, i386,
# arm64 and ppc64le and runs both perfs inside against the real /proc/kcore. See
# vm/README.md.

VM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The project's conventions: say, die, base.conf (PERF_MAKE_FLAGS).
# shellcheck source=lib.sh
. "$VM_TOP/scripts/lib.sh"

# Everything the harness makes goes under VM_BUILD, per base (build/vm for
# 7.3, build/stable-6.12/vm for 6.12: the perfs differ); what it downloads
# (kernels, root file system packages) is shared by both bases.
VM_BUILD=${VM_BUILD:-$BUILD/vm}
VM_CACHE=${VM_CACHE:-$VM_TOP/build/vm/cache} # downloaded .debs and unpacked packages
VM_CONFIGS=$VM_TOP/vm/configs
VM_GUEST=$VM_TOP/vm/guest

# The x86_64 perfs come from the project's own build (make perf). They are
# copied at the start of every run, as they may be rebuilt meanwhile.
PERF_X86_BASELINE=${PERF_X86_BASELINE:-$BUILD/baseline/perf}
PERF_X86_SERIES=${PERF_X86_SERIES:-$BUILD/patched/perf}

# Load a matrix row: vm/configs/NAME.conf, or a path to a .conf file.
# Checks that every key the scripts use is set.
load_config() {
	local conf=$1 k
	[ -f "$conf" ] || conf=$VM_CONFIGS/$1.conf
	[ -f "$conf" ] || die "no VM config '$1' (looked for $conf; see vm/configs/)"
	# shellcheck disable=SC1090
	. "$conf"
	CONFIG_NAME=$(basename "$conf" .conf)
	CONFIG_FILE=$(realpath "$conf")
	for k in DEB_ARCH QEMU MACHINE CPU CONSOLE KERNEL_PACKAGE KERNEL_FILE APPEND; do
		[ -n "${!k:-}" ] || die "$conf: $k is not set"
	done
	QEMU_MEM=${QEMU_MEM:-2G}
	QEMU_SMP=${QEMU_SMP:-1}
	INIT_TIMEOUT=${INIT_TIMEOUT:-300}     # seconds until /init runs
	RUN_TIMEOUT=${RUN_TIMEOUT:-1800}      # seconds for the whole run
	MODULES=${MODULES:-}
	QEMU_EXTRA=${QEMU_EXTRA:-}
	DATA_PORT=${DATA_PORT:-}
	CROSS_COMPILE=${CROSS_COMPILE:-}
}

# apt-get for Debian architecture $1, with its own package lists under
# VM_CACHE, the host's Debian sources and nothing of the host's dpkg state:
# the host needs no 'dpkg --add-architecture' and no foreign package is
# ever installed. Only 'update' and 'download' are used.
vm_apt() {
	local arch=$1
	shift
	local dir=$VM_CACHE/apt/$arch sources
	sources=$(vm_apt_sources)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	touch "$dir/status"
	apt-get -q \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::State::status="$dir/status" \
		-o Dir::Cache="$dir/cache" \
		-o Dir::Etc::SourceList="$sources" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o APT::Architecture="$arch" \
		-o APT::Architectures::="$arch" \
		-o Debug::NoLocking=1 \
		"$@"
}

# The host's Debian archive sources, and only those (no third-party
# repositories): Debian 12's deb822 file, or the classic sources.list.
vm_apt_sources() {
	local f
	for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
		if [ -s "$f" ]; then
			echo "$f"
			return 0
		fi
	done
	die "no Debian apt sources (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list)"
}

# Refresh the package lists for $1 once a day. A failing index (a mirror in
# the middle of a sync) is a warning as long as the lists can be used.
vm_apt_update() {
	local arch=$1 stamp=$VM_CACHE/apt/$1/updated
	if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440)" ]; then
		return 0
	fi
	say "updating the $arch package lists (private to the harness)"
	mkdir -p "$VM_CACHE/apt/$arch"
	if ! vm_apt "$arch" update >"$VM_CACHE/apt/$arch/update.log" 2>&1; then
		grep -E '^(E|W):' "$VM_CACHE/apt/$arch/update.log" | sed 's/^/    /' >&2 || true
		say "warning: apt-get update for $arch reported errors (above); going on with the lists it got"
	fi
	touch "$stamp"
}

# Newest version of the packages named by the extended regular expression $2
# for arch $1 (the whole name must match); prints the package name.
vm_newest_package() {
	local arch=$1 re=$2
	apt-cache -o Dir::State::Lists="$VM_CACHE/apt/$arch/lists" \
		-o Dir::State::status="$VM_CACHE/apt/$arch/status" \
		-o Dir::Cache="$VM_CACHE/apt/$arch/cache" \
		-o APT::Architecture="$arch" -o APT::Architectures::="$arch" \
		pkgnames | { grep -E "^($re)\$" || true; } | sort -V | tail -1
}

# Download package $2 (name or name=version) for arch $1 into the cache and
# unpack it (dpkg -x) once; prints the directory it was unpacked into.
vm_unpack() {
	local arch=$1 pkg=$2 debs=$VM_CACHE/debs/$1 deb dir
	mkdir -p "$debs"
	deb=$(find "$debs" -maxdepth 1 -name "${pkg%%=*}_*.deb" | sort -V | tail -1)
	if [ -z "$deb" ]; then
		(cd "$debs" && vm_apt "$arch" download "$pkg" >download.log 2>&1) ||
			die "package $pkg for $arch is not served by the archive (apt-get download failed: $(tail -1 "$debs/download.log"))"
		deb=$(find "$debs" -maxdepth 1 -name "${pkg%%=*}_*.deb" | sort -V | tail -1)
	fi
	dir=$VM_CACHE/unpacked/$arch/$(basename "$deb" .deb)
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg -x "$deb" "$dir" || die "dpkg -x failed on $deb"
		touch "$dir/.done"
	fi
	echo "$dir"
}

# GNU triplet of Debian architecture $1: the prefix of its cross tools and
# the name of its binutils package (binutils-<triplet>).
deb_triplet() {
	case $1 in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	ppc64el) echo powerpc64le-linux-gnu ;;
	i386) echo i686-linux-gnu ;;
	*) die "unknown Debian architecture $1" ;;
	esac
}

# Multiarch directory of Debian architecture $1 (/usr/lib/<multiarch>): the
# GNU triplet, except for i386, whose libraries are in i386-linux-gnu.
deb_multiarch() {
	case $1 in
	i386) echo i386-linux-gnu ;;
	*) deb_triplet "$1" ;;
	esac
}

# Milliseconds since the epoch, and milliseconds as seconds (12.3).
now_ms() { date +%s%3N; }
ms_to_s() { printf '%d.%d\n' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# Check that the ELF programs $2... (paths inside the image directory $1, or
# absolute paths of programs to be added to it) find
# every shared library they need, and their interpreter, inside the image.
# Reads the dynamic sections with the host's readelf (any architecture).
# Dies naming each missing library.
check_image_libs() {
	local root=$1 f path interp lib missing=() seen=" " queue=()
	shift
	for f in "$@"; do
		case $f in
		/*) path=$f ;;   # a program not (yet) in the image
		*) path=$root/$f ;;
		esac
		[ -e "$path" ] || die "no $path"
		interp=$(readelf -lW "$path" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
		if [ -n "$interp" ] && [ ! -e "$root/$interp" ] && [ ! -L "$root/$interp" ]; then
			missing+=("$interp (interpreter of ${f##*/})")
		fi
		queue+=("$path")
	done
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		for lib in $(readelf -dW "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen+="$lib "
			local found=
			for d in "$root"/{lib,usr/lib,lib64}{,/*-linux-gnu*}; do
				if [ -e "$d/$lib" ]; then
					found=$(realpath "$d/$lib")
					break
				fi
			done
			if [ -z "$found" ]; then
				missing+=("$lib (needed by ${f##*/})")
			else
				queue+=("$found")
			fi
		done
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "image $root lacks: ${missing[*]} (add the package that ships it to vm/rootfs.conf)"
}
