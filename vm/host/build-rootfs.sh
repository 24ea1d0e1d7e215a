#!/bin/bash
# Build the guest root file system of one architecture.
#
# Build the guest root filesystem for Debian architecture ARCH: the packages
# of vm/rootfs.conf unpacked with dpkg -x into one directory, packed as a
# newc cpio (gzip). The kernel modules, perfs, /init and the guest script
# are added at each run (vm/host/run.sh) as a second cpio, so this one is
# built once. Prints the path of the archive.
# Usage: vm/host/build-rootfs.sh ARCH   (amd64, i386, arm64, ppc64el, riscv64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=../vm/rootfs.conf
. "$VM_TOP/vm/rootfs.conf"

[ $# -eq 1 ] || die "usage: $0 ARCH (amd64, i386, arm64, ppc64el or riscv64)"
arch=$1
triplet=$(deb_triplet "$arch")
out=$VM_BUILD/rootfs/$arch
archive=$out/rootfs.cpio.gz
# shellcheck disable=SC2206 # a list of names
mapfile -t packages < <(deb_userland_packages "$arch" "${ROOTFS_PACKAGES[@]}" \
	${ROOTFS_ARCH_PACKAGES[$arch]:-} "binutils-${triplet//_/-}")

vm_apt_update "$(deb_userland "$arch")"

# What this image is made of: the .debs (name_version), the configuration
# and this script. An unchanged image is not rebuilt.
dirs=()
for p in "${packages[@]}"; do
	dirs+=("$(vm_unpack "$(deb_userland "$arch")" "$p")")
done
key=$( {
	printf '%s\n' "${dirs[@]##*/}"
	cat "$VM_TOP/vm/rootfs.conf" "$0"
} | sha256sum | cut -d' ' -f1)
if [ -f "$archive" ] && [ "$(cat "$out/.build-key" 2>/dev/null)" = "$key" ]; then
	say "rootfs for $arch is up to date ($(du -h "$archive" | cut -f1))"
	echo "$archive"
	exit 0
fi

say "building the $arch rootfs from ${#packages[@]} packages"
root=$out/root
rm -rf "$root" "$out/.build-key"
mkdir -p "$root"
for d in "${dirs[@]}"; do
	# Debian 12 packages are not usr-merged: /lib and /usr/lib stay apart,
	# which the dynamic loader searches both of.
	(cd "$d" && tar --exclude=./.done -cf - .) | tar -C "$root" -xf -
done
usrmerge_links "$root"

# Trim: no docs, no binutils programs but the ones the guest uses.
for e in "${ROOTFS_EXCLUDE[@]}"; do
	# shellcheck disable=SC2086
	rm -rf "${root:?}"/$e
done
for f in "$root"/usr/bin/*; do
	name=${f##*/}
	name=${name#"$triplet"-}
	keep=no
	for k in "${ROOTFS_KEEP_BINUTILS[@]}"; do
		[ "$name" = "$k" ] && keep=yes
	done
	[ $keep = yes ] || rm -f "$f"
done
mkdir -p "$root"/{proc,sys,dev,tmp,root,etc,sbin,usr/sbin,modules}
[ -x "$root/bin/busybox" ] || die "busybox-static did not provide /bin/busybox"
check_image_libs "$root" "${ROOTFS_CHECK_PROGRAMS[@]}"

# newc cpio, owned by root, in a stable order.
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 -n >"$archive.tmp"
mv "$archive.tmp" "$archive"
echo "$key" >"$out/.build-key"
say "rootfs for $arch: $(du -sh "$root" | cut -f1) unpacked, $(du -h "$archive" | cut -f1) packed"
echo "$archive"
