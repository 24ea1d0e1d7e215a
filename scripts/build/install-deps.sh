#!/bin/bash
# Install the Debian packages the perf build needs.
#
# Install the Debian packages the build needs (base.conf: BUILD_PACKAGES),
# only those that are missing. Extra packages may be passed as arguments.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

missing=()
for pkg in "${BUILD_PACKAGES[@]}" "$@"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

say "installing missing packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	die "not root: run 'sudo apt-get install ${missing[*]}' and retry"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed: check the network or /etc/apt/sources.list"
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install failed for: ${missing[*]} (is each package served by your archive?)"
