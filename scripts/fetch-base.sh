#!/bin/bash
# Download the pinned linux-source package with apt, verify both checksums and
# leave the source tarball in build/cache. Reuses a verified download.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=$BUILD/cache
tarball=$cache/$(basename "$BASE_TARBALL")
used=$cache/base-used.txt
mkdir -p "$cache"

sha_ok() { echo "$2  $1" | sha256sum --quiet -c - >/dev/null 2>&1; }

if [ -f "$tarball" ] && [ -f "$used" ] && grep -qx "version=$BASE_VERSION" "$used" &&
	sha_ok "$tarball" "$BASE_TARBALL_SHA256"; then
	exit 0
fi

download() { # package=version
	(cd "$cache" && apt-get download -q "$1" 2>&1 | grep -v '^W: Download is performed unsandboxed') || return 1
	ls "$cache"/"${1%%=*}"_*.deb >/dev/null 2>&1
}

rm -f "$cache"/*.deb
version=$BASE_VERSION
say "downloading $BASE_PACKAGE=$version (~150 MB)"
if ! download "$BASE_PACKAGE=$version"; then
	say "not found in the package lists; running apt-get update and retrying"
	apt-get update -qq || true
	if ! download "$BASE_PACKAGE=$version"; then
		newest=$(apt-cache policy "$BASE_PACKAGE" | awk '/Candidate:/ { print $2 }')
		[ -n "$newest" ] && [ "$newest" != "(none)" ] ||
			die "the archive serves no $BASE_PACKAGE at all: add Debian bookworm-security to /etc/apt/sources.list"
		cat >&2 <<-MSG
		################################################################
		WARNING: $BASE_PACKAGE $BASE_VERSION (the pin in base.conf) is
		no longer served. Using the newest one served: $newest.
		Its checksum is NOT the pinned one; results are for $newest.
		Update base.conf once the series is checked on it.
		################################################################
		MSG
		version=$newest
		download "$BASE_PACKAGE=$version" || die "apt-get download $BASE_PACKAGE=$version failed"
	fi
fi

deb=$(ls "$cache"/"$BASE_PACKAGE"_*.deb)
if [ "$version" = "$BASE_VERSION" ] && ! sha_ok "$deb" "$BASE_DEB_SHA256"; then
	die "checksum mismatch for $deb: expected $BASE_DEB_SHA256, got $(sha256sum "$deb" | cut -d' ' -f1). Delete build/cache and retry; if it persists the archive changed the package: do not build on it."
fi

say "unpacking the source tarball from the package"
tmp=$cache/deb.tmp
rm -rf "$tmp"
dpkg-deb -x "$deb" "$tmp"
mv "$tmp/$BASE_TARBALL" "$tarball"
rm -rf "$tmp" "$deb"
if [ "$version" = "$BASE_VERSION" ] && ! sha_ok "$tarball" "$BASE_TARBALL_SHA256"; then
	rm -f "$tarball"
	die "checksum mismatch for the tarball inside $BASE_PACKAGE $version"
fi
{
	echo "package=$BASE_PACKAGE"
	echo "version=$version"
	echo "tarball_sha256=$(sha256sum "$tarball" | cut -d' ' -f1)"
} >"$used"
say "base tarball ready: $tarball ($version)"
