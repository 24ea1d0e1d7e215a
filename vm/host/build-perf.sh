#!/bin/bash
# Cross-build the baseline and series perfs for one guest architecture.
#
# Build the baseline perf (tag 'base') and the series perf (branch 'main')
# for guest architecture ARCH, into build/vm/perf/ARCH/{baseline,series}/perf.
#
# arm64, ppc64el, riscv64, s390x and i386 are cross-built with Debian's gcc-<triplet>
# (gcc-i686-linux-gnu for i386) against a sysroot of that architecture's
# Debian packages (unpacked, not installed; riscv64's are trixie's) with
# base.conf's PERF_MAKE_FLAGS. amd64 is not built here: the guest uses the project's
# own build/{baseline,patched}/perf (make perf), which links against the
# same Debian 12 libraries as the guest rootfs.
#
# The sources are a clone of the project's build/src (VM_PERF_SRC), fetched
# again at each call; a perf whose commit and flags did not change is not
# rebuilt. Usage: vm/host/build-perf.sh ARCH [baseline|series]...
# (ARCH: arm64, ppc64el, riscv64, s390x, i386, amd64; default both perfs; 'sysroot' instead
# makes the sysroot and builds nothing). Both perfs share
# one worktree and object directory per architecture (see build() below).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: $0 ARCH [baseline|series]... (ARCH: arm64, ppc64el, riscv64, s390x, i386 or amd64)"
arch=$1
shift
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(baseline series)
for w in "${which[@]}"; do
	case $w in baseline | series | sysroot) ;; *) die "no perf '$w': baseline or series (or sysroot)" ;; esac
done
triplet=$(deb_triplet "$arch")
multiarch=$(deb_multiarch "$arch")

if [ "$arch" = amd64 ]; then
	for p in "$PERF_X86_BASELINE" "$PERF_X86_SERIES"; do
		[ -x "$p" ] || die "no $p: run 'make perf' in the project first"
	done
	say "amd64 uses the project's perfs: $PERF_X86_BASELINE, $PERF_X86_SERIES"
	exit 0
fi

# karch: perf's ARCH; elf: what file(1) says of a perf for the guest.
case $arch in
arm64) karch=arm64 elf='ELF 64-bit LSB.*aarch64' ;;
riscv64) karch=riscv elf='ELF 64-bit LSB.*RISC-V' ;;
ppc64el) karch=powerpc elf='ELF 64-bit LSB.*PowerPC' ;;
# x86 with a 32-bit compiler: perf's Makefile.arch then sets IS_64_BIT=0.
i386) karch=x86 elf='ELF 32-bit LSB.*Intel 80386' ;;
# big-endian 64-bit
s390x) karch=s390 elf='ELF 64-bit MSB.*S/390' ;;
*) die "no cross build for $arch" ;;
esac
cross=$triplet-
command -v "${cross}gcc" >/dev/null ||
	die "no ${cross}gcc: run vm/host/install-deps.sh (package gcc-$triplet)"

# --- sysroot: the guest architecture's libraries and headers ---
sysroot=$VM_BUILD/sysroot/$arch
mapfile -t sysroot_packages < <(deb_userland_packages "$arch" \
	libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev libgcc-s1 \
	libelf1 libelf-dev libdw1 libdw-dev zlib1g zlib1g-dev \
	libtraceevent1 libtraceevent-dev liblzma5 libbz2-1.0 libzstd1)
vm_apt_update "$(deb_userland "$arch")"
dirs=()
for p in "${sysroot_packages[@]}"; do
	dirs+=("$(vm_unpack "$(deb_userland "$arch")" "$p")")
done
sysroot_key=$(printf '%s\n' "${dirs[@]##*/}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$sysroot/.key" 2>/dev/null)" != "$sysroot_key" ]; then
	say "making the $arch sysroot from ${#sysroot_packages[@]} packages"
	rm -rf "$sysroot"
	mkdir -p "$sysroot"
	for d in "${dirs[@]}"; do
		(cd "$d" && tar --exclude=./.done -cf - .) | tar -C "$sysroot" -xf -
	done
	echo "$sysroot_key" >"$sysroot/.key"
fi
# libc.so names /lib/riscv64-linux-gnu/libc.so.6, which trixie's libc6 ships
# in /usr/lib.
usrmerge_links "$sysroot"
# Absolute symlinks (ppc64el's /lib64/ld64.so.2) would point into the host:
# make them relative, inside the sysroot.
find "$sysroot" -type l -lname '/*' | while read -r link; do
	target=$(readlink "$link")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
done

# 'sysroot' alone: only the sysroot (vm/host/matrix.sh -s fetches ahead),
# without touching the clone below, which a build may be using meanwhile.
[ "${which[*]}" != sysroot ] || exit 0

# --- sources: a clone of the project's tree, base and series checked out ---
src_repo=${VM_PERF_SRC:-$SRC}
clone=$VM_BUILD/src
if [ ! -d "$clone/.git" ]; then
	say "cloning $src_repo into $clone"
	git clone -q "$src_repo" "$clone"
fi
git -C "$clone" fetch -q -f --tags origin '+refs/heads/*:refs/remotes/origin/*'
checkout() { # REV DIR: DIR is a worktree of the clone at REV, detached
	local rev dir=$2
	rev=$(git -C "$clone" rev-parse --verify "$1^{commit}") || die "no commit $1 in $src_repo"
	if [ -e "$dir/.git" ]; then
		[ "$(git -C "$dir" rev-parse HEAD)" = "$rev" ] || git -C "$dir" checkout -q --detach -f "$rev"
	else
		git -C "$clone" worktree prune
		git -C "$clone" worktree add -q --detach "$dir" "$rev"
	fi
}
tree_rev() { # PERF: the revision it is built from
	case $1 in
	baseline) echo base ;;
	series) echo "${VM_SERIES_REV:-origin/main}" ;;
	esac
}

# --- build ---
sysroot_flags=(--sysroot="$sysroot")
# A userland of another suite than bookworm (riscv64: trixie, glibc 2.41)
# has a newer glibc than bookworm's cross compiler, whose search path puts
# its own glibc 2.36 (/usr/<triplet>/lib: libc.so and crt files when
# libc6-dev-<triplet>-cross, a Recommends of the compiler, is installed)
# ahead of the sysroot: trixie's libelf needs __isoc23_strtol@GLIBC_2.38.
# The sysroot's libraries and crt files come first (-L, -B), and so do the
# libraries they need (-rpath-link).
if [ -n "$(src_suite "$(deb_userland "$arch")")" ]; then
	libdir=$sysroot/usr/lib/$multiarch
	# shellcheck disable=SC2054 # -Wl,... is one argument
	sysroot_flags+=(-B"$libdir/" -L"$libdir" -Wl,-rpath-link="$libdir")
fi
make_args=(
	ARCH="$karch" CROSS_COMPILE="$cross"
	EXTRA_CFLAGS="${sysroot_flags[*]}"
	PKG_CONFIG=pkg-config
	"${PERF_MAKE_FLAGS[@]}"
)
# Bookworm's gcc 12 has no inline 1- and 2-byte atomics for RISC-V (gcc 13's
# -minline-atomics): perf's __atomic_fetch_or_2 and the like are libatomic's
# (libatomic1 in the rootfs: vm/rootfs.conf).
[ "$arch" != riscv64 ] || make_args+=(EXTRA_PERFLIBS=-latomic)
export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$sysroot/usr/lib/$multiarch/pkgconfig:$sysroot/usr/share/pkgconfig
export PKG_CONFIG_PATH=

# Both perfs of an architecture are built in one worktree and one object
# directory, switching the worktree between base and series: git touches
# only the files that differ, so the second build recompiles those alone
# (as the bisect builds of make check do). Each perf is copied out.
tree=$VM_BUILD/trees/$arch
obj=$VM_BUILD/obj/$arch
build() { # PERF (baseline or series)
	local w=$1 out=$VM_BUILD/perf/$arch/$1 rev key start f tests features cpu
	mkdir -p "$out" "$obj"
	rev=$(git -C "$clone" rev-parse --verify "$(tree_rev "$w")^{commit}") ||
		die "no commit $(tree_rev "$w") in $src_repo"
	key=$( {
		echo "$rev"
		echo "$sysroot_key"
		printf '%s\n' "${make_args[@]}"
	} | sha256sum | cut -d' ' -f1)
	if [ -x "$out/perf" ] && [ "$(cat "$out/.build-key" 2>/dev/null)" = "$key" ]; then
		say "$arch $w perf is up to date"
		return 0
	fi
	checkout "$rev" "$tree"
	say "building $arch $w perf from $(git -C "$tree" describe --always --tags) (a few minutes at -j2 the first time; log: $out/build.log)"
	start=$SECONDS
	rm -f "$out/.build-key" "$out/perf"
	# The second perf reuses the first one's feature tests (FEATURES_DUMP,
	# as scripts/build/perf.sh does).
	features=()
	[ ! -x "$obj/perf" ] || [ ! -s "$obj/FEATURE-DUMP" ] ||
		features=(FEATURES_DUMP="$obj/FEATURE-DUMP")
	# 'time' gives the build's CPU time (user and system), said below.
	if ! cpu=$( {
		TIMEFORMAT='%U %S'
		time make -C "$tree/tools/perf" -j2 O="$obj" "${make_args[@]}" "${features[@]}" >"$out/build.log" 2>&1
	} 2>&1); then
		grep -E 'error|Error' "$out/build.log" | head -20 >&2 || true
		die "perf build failed for $arch: see $out/build.log"
	fi
	# The features the series needs must be on (base.conf), as for make perf.
	# FEATURE-DUMP names them by their feature tests: 6.12's dwarf test is
	# libdw in 7.3 (perf version --build-options still says dwarf).
	for f in "${PERF_REQUIRED_FEATURES[@]}"; do
		case ${f%%:*} in
		dwarf) tests='dwarf|libdw' ;;
		*) tests=${f%%:*} ;;
		esac
		grep -qE "^feature-($tests)=1\$" "$obj/FEATURE-DUMP" ||
			die "$arch perf in $obj was built without ${f%%:*} (is ${f#*}:$arch in the sysroot?)"
	done
	file "$obj/perf" | grep -q "$elf" ||
		die "$obj/perf is not an $arch program: $(file -b "$obj/perf")"
	cp "$obj/perf" "$obj/FEATURE-DUMP" "$out/"
	echo "$key" >"$out/.build-key"
	say "built $arch $w perf in $((SECONDS - start)) s (CPU $(echo "$cpu" | awk '{ printf "%d", $1 + $2 }') s)"
}
for w in "${which[@]}"; do
	build "$w"
done
