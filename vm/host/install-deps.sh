#!/bin/bash
# Install the host packages the QEMU harness needs.
#
# Install the host packages the real-kernel harness needs, only those that
# are missing: QEMU for the guest architectures, the cross compilers, the
# guest architectures' objdump (binutils-<triplet>: the host annotates the
# guests' perf record --kcore data, vm/host/annotate.sh), and the
# tools that unpack packages and pack the initramfs. Guest-side
# packages (kernels, libraries) are never installed: vm/host/*.sh
# download and unpack them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VM_PACKAGES=(
	qemu-system-x86 qemu-system-arm qemu-system-ppc qemu-system-data
	# riscv64: qemu-system-riscv64 is in qemu-system-misc, the OpenSBI of
	# -bios default in qemu-system-data
	qemu-system-misc gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu
	gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-i686-linux-gnu
	binutils-aarch64-linux-gnu binutils-powerpc64le-linux-gnu binutils-i686-linux-gnu
	qemu-system-misc gcc-s390x-linux-gnu binutils-s390x-linux-gnu # s390x: qemu-system-s390x
	cpio gzip xz-utils binutils file pkg-config coreutils
)

missing=()
for pkg in "${VM_PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

say "installing missing packages: ${missing[*]}"
[ "$(id -u)" -eq 0 ] || die "not root: run 'sudo apt-get install ${missing[*]}' and retry"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed"
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install failed for: ${missing[*]}"
