#!/bin/bash
# Download and verify the pinned base source package.
#
# Download the pinned linux-source package of the base (BASE, base.conf) with
# apt, verify both checksums and leave the source tarball in BUILD/cache.
# Reuses a verified download.
#
# apt reads the base's suites (bases/BASE.conf: BASE_APT_SOURCES) through
# package lists of its own under BUILD/cache/apt: the host's apt sources and
# dpkg state are not touched, and the host need not list trixie-backports.
# A mirror in the middle of a sync ("File has unexpected size", "Hash Sum
# mismatch") is retried a few times before giving up.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

cache=$BUILD/cache
tarball=$cache/$(basename "$BASE_TARBALL")
used=$cache/base-used.txt
aptdir=$cache/apt
mkdir -p "$cache"

sha_ok() { echo "$2  $1" | sha256sum --quiet -c - >/dev/null 2>&1; }

if [ -f "$tarball" ] && [ -f "$used" ] && grep -qx "version=$BASE_VERSION" "$used" &&
	sha_ok "$tarball" "$BASE_TARBALL_SHA256"; then
	exit 0
fi

# apt-get and apt-cache with the private lists (apt_opts).
apt_opts=()
private_apt_opts "$aptdir" "$aptdir/sources.list"
for s in "${BASE_APT_SOURCES[@]}"; do
	debian_sources_line "$s"
done >"$aptdir/sources.list"

# Retry a command that talks to the mirror: $1 attempts, 20 s apart.
retry() {
	local tries=$1 i
	shift
	for ((i = 1; i <= tries; i++)); do
		"$@" && return 0
		[ "$i" -lt "$tries" ] || break
		say "attempt $i of $tries failed (a mirror mid-sync?); retrying in 20 s"
		sleep 20
	done
	return 1
}

update_lists() {
	say "reading the package lists of ${BASE_APT_SOURCES[*]} (private to the project)"
	apt-get -q "${apt_opts[@]}" update >"$aptdir/update.log" 2>&1 &&
		! grep -qE '^(E|W): (Failed|Some index files)' "$aptdir/update.log"
}

download() { # package=version
	rm -f "$cache"/*.deb
	(cd "$cache" && apt-get -q "${apt_opts[@]}" download "$1" >"$aptdir/download.log" 2>&1) ||
		{ tail -3 "$aptdir/download.log" >&2; return 1; }
	ls "$cache"/"${1%%=*}"_*.deb >/dev/null 2>&1
}

if ! retry 3 update_lists; then
	grep -E '^(E|W):' "$aptdir/update.log" | sed 's/^/    /' >&2 || true
	say "warning: the package lists are incomplete (above); trying with what was read"
fi

version=$BASE_VERSION
if [ -z "$(apt-cache "${apt_opts[@]}" madison "$BASE_PACKAGE" | awk -v v="$version" '$3 == v')" ]; then
	newest=$(apt-cache "${apt_opts[@]}" policy "$BASE_PACKAGE" | awk '/Candidate:/ { print $2 }')
	[ -n "$newest" ] && [ "$newest" != "(none)" ] ||
		die "no $BASE_PACKAGE in ${BASE_APT_SOURCES[*]}: see $aptdir/update.log; if the archive moved it, change BASE_APT_SOURCES in bases/$BASE.conf"
	cat >&2 <<-MSG
	################################################################
	WARNING: $BASE_PACKAGE $BASE_VERSION (the pin in bases/$BASE.conf)
	is no longer served. Using the newest one served: $newest.
	Its checksum is NOT the pinned one; results are for $newest.
	Update bases/$BASE.conf once the series is checked on it.
	################################################################
	MSG
	version=$newest
fi

say "downloading $BASE_PACKAGE=$version (~160 MB)"
retry 3 download "$BASE_PACKAGE=$version" || die "apt-get download $BASE_PACKAGE=$version failed: see $aptdir/download.log"

deb=$(ls "$cache"/"$BASE_PACKAGE"_*.deb)
if [ "$version" = "$BASE_VERSION" ] && ! sha_ok "$deb" "$BASE_DEB_SHA256"; then
	die "checksum mismatch for $deb: expected $BASE_DEB_SHA256, got $(sha256sum "$deb" | cut -d' ' -f1). Delete $cache and retry; if it persists the archive changed the package: do not build on it."
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
