#!/bin/bash
# Build one perf, in the pinned configuration, from a tree or a commit.
#
# Build perf with the pinned configuration (base.conf: PERF_MAKE_FLAGS), plus
# any extra make arguments given, into OUT (OUT/perf).
#
#   scripts/build/perf.sh SRC OUT [make args...]
#	builds the source tree SRC, as it is, with OUT as object directory.
#   scripts/build/perf.sh --rev REV OUT [make args...]
#	builds commit REV of build/src in one worktree and one object
#	directory that every --rev build with the same make arguments shares
#	(BUILD/trees/shared, BUILD/obj/HASH). Switching the worktree from one
#	commit to the next touches only the files that differ, so a build
#	recompiles those alone: the series after the baseline, the bisect
#	builds and base+tests cost seconds, not minutes each. OUT gets a copy
#	of perf, FEATURE-DUMP and build.log.
#
# Skips the build when OUT/perf is from the same sources and arguments.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

usage="usage: $0 SRC OUT [make args...] or $0 --rev REV OUT [make args...]"
rev=
if [ "${1:-}" = --rev ]; then
	[ $# -ge 3 ] || die "$usage"
	rev=$(git -C "$SRC" rev-parse --verify "$2^{commit}") || die "no commit $2 in $SRC_NAME"
	shift 2
else
	[ $# -ge 2 ] || die "$usage"
	src=$(cd "$1" && pwd)
	shift
fi
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
name=${out#"$BUILD"/}
if [ -n "$rev" ]; then
	# NO_SHELLCHECK changes no object (it only adds perf's shellcheck
	# of its shell scripts): builds that differ in it alone share one.
	obj=$BUILD/obj/$(printf '%s\n' "${PERF_MAKE_FLAGS[@]}" "$@" | grep -v '^NO_SHELLCHECK=' |
		sha256sum | cut -c1-12)
	src=$BUILD/trees/shared
else
	obj=$out
fi

# What this build is made of: commit, uncommitted changes and arguments.
key=$( {
	if [ -n "$rev" ]; then
		echo "$rev"
	else
		git -C "$src" rev-parse HEAD
		git -C "$src" diff HEAD
	fi
	printf '%s\n' "${PERF_MAKE_FLAGS[@]}" "$@"
} | sha256sum | cut -d' ' -f1)
if [ -x "$out/perf" ] && [ "$(cat "$out/.build-key" 2>/dev/null)" = "$key" ]; then
	say "$name/perf is up to date"
	exit 0
fi

start=$SECONDS
rm -f "$out/.build-key"
if [ -n "$rev" ]; then
	# One --rev build at a time in the shared worktree.
	mkdir -p "$obj"
	exec 9>"$obj.lock"
	flock 9
	"$TOP/scripts/build/worktree.sh" "$rev" "$src"
	say "building $name/perf from $(git -C "$src" describe --tags --always) (seconds to 2 min with -j$(nproc); log: $name/build.log)"
else
	say "building $name/perf (about 1-2 min with -j$(nproc); log: $name/build.log)"
fi
# A --rev build in the shared object directory (one per flags), once it
# holds a perf, takes the feature tests' results from there, as perf's
# tests/make does with FEATURES_DUMP: 3 s instead of 8 s for a build with
# nothing to do, and the series does not touch tools/build.
# Not with LIBBPF_DYNAMIC=1 (the stable postings' second configuration):
# FEATURE-DUMP has no feature-libbpf, which that build then finds missing.
features=()
if [ -n "$rev" ] && [ -x "$obj/perf" ] && [ -s "$obj/FEATURE-DUMP" ] &&
	[[ " $* " != *" LIBBPF_DYNAMIC=1 "* ]]; then
	features=(FEATURES_DUMP="$obj/FEATURE-DUMP")
fi
if ! make -C "$src/tools/perf" -j"$(nproc)" O="$obj" "${PERF_MAKE_FLAGS[@]}" "$@" "${features[@]}" \
	>"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -20 >&2 || true
	die "perf build failed in $name: see $out/build.log"
fi
if [ -n "$rev" ]; then
	rm -f "$out/perf"
	cp "$obj/perf" "$obj/FEATURE-DUMP" "$out/"
fi

options=$("$out/perf" version --build-options)
for f in "${PERF_REQUIRED_FEATURES[@]}"; do
	feature=${f%%:*}
	package=${f#*:}
	grep -Eq "^ *$feature: \[ on  \]" <<<"$options" ||
		die "perf in $name was built without $feature: install $package (scripts/build/install-deps.sh) and rebuild"
done
echo "$key" >"$out/.build-key"
say "built $name/perf in $((SECONDS - start)) s"
