# Helpers for the real-kernel harness (vm/host/*.sh); sourced, not run.
# shellcheck shell=bash
#
# The harness boots Debian kernels in QEMU (TCG only) for x86_64, i386,
# arm64, ppc64le and riscv64 and runs both perfs inside against the real /proc/kcore. See
# vm/README.md.

VM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

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
	MODULES_PACKAGE=${MODULES_PACKAGE:-} # where the modules are not in KERNEL_PACKAGE
	QEMU_EXTRA=${QEMU_EXTRA:-}
	DATA_PORT=${DATA_PORT:-}
	MOD_ABOVE_COPY=${MOD_ABOVE_COPY:-no} # yes: kcore-check.sh's module-above-_end copy
	KERNEL_SUITE=${KERNEL_SUITE:-}       # empty: the host's suites (bookworm)
	KERNEL_VERSION=${KERNEL_VERSION:-}   # the pinned version of KERNEL_PACKAGE
	KERNEL_PIN_STRICT=${KERNEL_PIN_STRICT:-no} # yes: no fallback when the pin is gone
	CROSS_COMPILE=${CROSS_COMPILE:-}
}

# Where the harness's packages come from: a "package source" is a Debian
# architecture, read from the host's Debian suites (bookworm), or ARCH@SUITE
# for another suite of the same archive (sid, trixie), read through a
# sources list of the harness's own. The bookworm host lists no other suite.
src_arch() { echo "${1%@*}"; }
src_suite() { case $1 in *@*) echo "${1#*@}" ;; esac; }

# The package source of an architecture's userland (sysroot and root file
# system): bookworm, the host's own release, where it has the port;
# riscv64 became a release architecture only with trixie.
deb_userland() {
	case $1 in
	riscv64) echo riscv64@trixie ;;
	*) echo "$1" ;;
	esac
}

# The names, in architecture $1's userland (deb_userland), of the bookworm
# packages $2...: trixie's 64-bit time_t transition renamed libelf1 and
# libdw1 (libc6, zlib1g, libtraceevent1 and the others kept their names),
# and its libbinutils (2.44) needs libsframe1, which bookworm's 2.40 has not.
deb_userland_packages() {
	local arch=$1 p
	shift
	for p in "$@"; do
		case $(src_suite "$(deb_userland "$arch")"):$p in
		trixie:libelf1 | trixie:libdw1) echo "${p}t64" ;;
		trixie:libbinutils) printf '%s\n' libbinutils libsframe1 ;;
		*) echo "$p" ;;
		esac
	done
}

# apt-get for package source $1, with its own package lists under VM_CACHE,
# and nothing of the host's dpkg state: the host needs no 'dpkg
# --add-architecture' and no foreign package is ever installed. Only
# 'update' and 'download' are used.
vm_apt() {
	vm_apt_run apt-get "$@"
}

# apt-cache on the lists vm_apt reads for package source $1. It must be
# given the same sources list: it reads only the lists that list names.
vm_apt_cache() {
	vm_apt_run apt-cache "$@"
}

vm_apt_run() { # PROGRAM SOURCE ARGS...
	local prog=$1 arch suite dir=$VM_CACHE/apt/$2 sources
	arch=$(src_arch "$2")
	suite=$(src_suite "$2")
	shift 2
	if [ -n "$suite" ]; then
		sources=$dir/sources.list
		mkdir -p "$dir"
		debian_sources_line "$VM_DEBIAN_MIRROR $suite" >"$sources"
	else
		sources=$(vm_apt_sources)
	fi
	local apt_opts
	private_apt_opts "$dir" "$sources"
	"$prog" -q "${apt_opts[@]}" \
		-o APT::Architecture="$arch" -o APT::Architectures::="$arch" "$@"
}
VM_DEBIAN_MIRROR=${VM_DEBIAN_MIRROR:-http://deb.debian.org/debian}

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

# Refresh the package lists of package source $1 once a day. A failing
# index (a mirror in the middle of a sync) is a warning as long as the lists
# can be used.
vm_apt_update() {
	local src=$1 stamp=$VM_CACHE/apt/$1/updated
	if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440)" ]; then
		return 0
	fi
	say "updating the $src package lists (private to the harness)"
	mkdir -p "$VM_CACHE/apt/$src"
	if ! vm_apt "$src" update >"$VM_CACHE/apt/$src/update.log" 2>&1; then
		grep -E '^(E|W):' "$VM_CACHE/apt/$src/update.log" | sed 's/^/    /' >&2 || true
		say "warning: apt-get update for $src reported errors (above); going on with the lists it got"
	fi
	touch "$stamp"
}

# The packages of package source $1 named by the extended regular
# expression $2 (the whole name must match), newest version first.
vm_matching_packages() {
	vm_apt_cache "$1" pkgnames | { grep -E "^($2)\$" || true; } | sort -rV
}

# Whether package source $1 serves version $3 of package $2.
vm_has_version() {
	vm_apt_cache "$1" madison "$2" 2>/dev/null | awk -v v="$3" '$3 == v { f = 1 } END { exit !f }'
}

# Download package $2 (name or name=version) from package source $1 into the
# cache and unpack it (dpkg -x) once; prints the directory it was unpacked
# into.
vm_unpack() {
	local arch debs deb dir name=${2%%=*} pattern
	arch=$(src_arch "$1")
	debs=$VM_CACHE/debs/$arch
	pattern="${name}_*.deb"
	case $2 in *=*) pattern="${name}_${2#*=}_*.deb" ;; esac
	pattern=${pattern//:/%3a} # how apt-get download writes an epoch
	mkdir -p "$debs"
	deb=$(find "$debs" -maxdepth 1 -name "$pattern" | sort -V | tail -1)
	if [ -z "$deb" ]; then
		(cd "$debs" && vm_apt "$1" download "$2" >download.log 2>&1) ||
			die "package $2 for $1 is not served by the archive (apt-get download failed: $(tail -1 "$debs/download.log"))"
		deb=$(find "$debs" -maxdepth 1 -name "$pattern" | sort -V | tail -1)
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

# Trixie's packages are usr-merged (/usr/lib/ld-linux-riscv64-lp64d.so.1,
# /usr/bin/busybox) and leave the /lib, /bin, /sbin links to base-files,
# which a directory of unpacked packages (sysroot, root file system) does
# not have: make them in directory $1, where /usr has the directory and /
# has nothing by its name (bookworm's packages are not merged: no change).
usrmerge_links() {
	local d
	for d in bin sbin lib; do
		if [ -d "$1/usr/$d" ] && [ ! -e "$1/$d" ] && [ ! -L "$1/$d" ]; then
			ln -s "usr/$d" "$1/$d"
		fi
	done
}

# GNU triplet of Debian architecture $1: the prefix of its cross tools and
# the name of its binutils package (binutils-<triplet>).
deb_triplet() {
	case $1 in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	riscv64) echo riscv64-linux-gnu ;;
	ppc64el) echo powerpc64le-linux-gnu ;;
	i386) echo i686-linux-gnu ;;
	s390x) echo s390x-linux-gnu ;;
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
