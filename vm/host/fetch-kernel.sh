#!/bin/bash
# Download and unpack the Debian kernel of one matrix row.
#
# Fetch the Debian kernel of a VM config with apt-get download, unpack it
# with dpkg -x (never installed) and print the unpacked package directory.
# The package: the newest matching KERNEL_PACKAGE in KERNEL_SUITE (default:
# the host's bookworm), at KERNEL_VERSION when the config pins one; a pin the
# archive no longer serves (sid moves on) falls back to the newest match,
# loudly, unless the row's pin is strict (KERNEL_PIN_STRICT=yes: make
# check's rows), which then fails. The kernel image is DIR/KERNEL_FILE, its modules
# DIR/lib/modules/VERSION (DIR/usr/lib/modules/VERSION from trixie on), or,
# when the row loads MODULES and sets MODULES_PACKAGE, in that package of
# the same version, whose directory is printed on a line before DIR.
# Usage: vm/host/fetch-kernel.sh CONFIG
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 CONFIG (a name in vm/configs/ or a .conf file)"
load_config "$1"

src=$DEB_ARCH${KERNEL_SUITE:+@$KERNEL_SUITE}
suite=${KERNEL_SUITE:-bookworm}
vm_apt_update "$src"
# Candidates, best first: the pin, then every match, newest first. An index
# can name a .deb its pool no longer has (trixie's 6.12.117 for ppc64el and
# s390x answered 404): the next candidate is tried, loudly.
mapfile -t matches < <(vm_matching_packages "$src" "$KERNEL_PACKAGE")
[ ${#matches[@]} -gt 0 ] || die "$CONFIG_NAME: no $src package matches KERNEL_PACKAGE='$KERNEL_PACKAGE' in the archive"
candidates=()
if [ -n "$KERNEL_VERSION" ]; then
	for m in "${matches[@]}"; do
		if vm_has_version "$src" "$m" "$KERNEL_VERSION"; then
			candidates+=("$m=$KERNEL_VERSION")
			break
		fi
	done
	if [ ${#candidates[@]} -eq 0 ] && [ "$KERNEL_PIN_STRICT" = yes ]; then
		die "$CONFIG_NAME: KERNEL_VERSION $KERNEL_VERSION (a strict pin) is not in $suite's index any more: pin a version the archive serves (vm/configs/$CONFIG_NAME.conf)"
	fi
	[ ${#candidates[@]} -gt 0 ] ||
		say "WARNING: $CONFIG_NAME: KERNEL_VERSION $KERNEL_VERSION (the config's pin) is not in $suite's index any more: using the newest match"
fi
# A strict pin takes no other version, not even when its .deb fails.
[ "$KERNEL_PIN_STRICT" = yes ] && [ -n "$KERNEL_VERSION" ] || candidates+=("${matches[@]}")
dir=
for pkg in "${candidates[@]}"; do
	if dir=$(vm_unpack "$src" "$pkg"); then
		break
	fi
	say "WARNING: $CONFIG_NAME: $pkg is in $suite's index but could not be downloaded: trying the next match"
	dir=
done
[ -n "$dir" ] || die "$CONFIG_NAME: none of ${candidates[*]} could be downloaded from $suite"
say "$CONFIG_NAME: kernel package ${dir##*/} ($suite)"

# The package's own kernel image; exactly one file must match KERNEL_FILE.
# shellcheck disable=SC2206
images=($dir/$KERNEL_FILE)
if [ ${#images[@]} -ne 1 ] || [ ! -f "${images[0]}" ]; then
	die "$CONFIG_NAME: $pkg has no single '$KERNEL_FILE' (found: ${images[*]})"
fi

# The modules, where they are a package of their own (sid's 7.x kernels:
# linux-binary-* holds the image, linux-modules-* the modules), of the
# kernel package's version. Only for a row that loads modules.
if [ -n "$MODULES" ] && [ -n "$MODULES_PACKAGE" ]; then
	version=${dir##*/}
	version=${version#*_}
	version=${version%_*}
	version=${version//%3a/:}
	mapfile -t mods < <(vm_matching_packages "$src" "$MODULES_PACKAGE")
	[ ${#mods[@]} -eq 1 ] ||
		die "$CONFIG_NAME: MODULES_PACKAGE='$MODULES_PACKAGE' matches ${#mods[@]} packages of $src (${mods[*]}), not one"
	say "$CONFIG_NAME: modules package ${mods[0]} $version (about 50-120 MB the first time)"
	mdir=$(vm_unpack "$src" "${mods[0]}=$version") ||
		die "$CONFIG_NAME: ${mods[0]}=$version could not be downloaded from $suite"
	# Printed before the kernel's directory, which comes last.
	echo "$mdir"
fi
echo "$dir"
