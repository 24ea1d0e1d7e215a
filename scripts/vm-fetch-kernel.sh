#!/bin/bash
# Fetch the Debian kernel of a VM config (KERNEL_PACKAGE: the newest package
# matching it) with apt-get download, unpack it with dpkg -x (never installed)
# and print the unpacked package directory. The kernel image is
# DIR/KERNEL_FILE, its modules DIR/lib/modules/VERSION.
# Usage: scripts/vm-fetch-kernel.sh CONFIG
set -euo pipefail
. "$(dirname "$0")/vm-lib.sh"

[ $# -eq 1 ] || die "usage: $0 CONFIG (a name in vm/configs/ or a .conf file)"
load_config "$1"

vm_apt_update "$DEB_ARCH"
pkg=$(vm_newest_package "$DEB_ARCH" "$KERNEL_PACKAGE")
[ -n "$pkg" ] || die "$CONFIG_NAME: no $DEB_ARCH package matches KERNEL_PACKAGE='$KERNEL_PACKAGE' in the archive"
say "$CONFIG_NAME: kernel package $pkg"
dir=$(vm_unpack "$DEB_ARCH" "$pkg")

# The package's own kernel image; exactly one file must match KERNEL_FILE.
# shellcheck disable=SC2206
images=($dir/$KERNEL_FILE)
if [ ${#images[@]} -ne 1 ] || [ ! -f "${images[0]}" ]; then
	die "$CONFIG_NAME: $pkg has no single '$KERNEL_FILE' (found: ${images[*]})"
fi
echo "$dir"
