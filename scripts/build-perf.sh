#!/bin/bash
# Build perf from source tree SRC into OUT with the pinned configuration
# (base.conf: PERF_MAKE_FLAGS), plus any extra make arguments given.
# Skips the build when the sources and arguments are those of the last
# successful build. Usage: scripts/build-perf.sh SRC OUT [make args...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 SRC OUT [make args...]"
src=$(cd "$1" && pwd)
out=$2
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
name=${out#"$BUILD"/}

# What this build is made of: commit, uncommitted changes and arguments.
key=$( {
	git -C "$src" rev-parse HEAD
	git -C "$src" diff HEAD
	printf '%s\n' "${PERF_MAKE_FLAGS[@]}" "$@"
} | sha256sum | cut -d' ' -f1)
if [ -x "$out/perf" ] && [ "$(cat "$out/.build-key" 2>/dev/null)" = "$key" ]; then
	say "$name/perf is up to date"
	exit 0
fi

say "building $name/perf (about 1-2 min with -j$(nproc); log: $name/build.log)"
start=$SECONDS
rm -f "$out/.build-key"
if ! make -C "$src/tools/perf" -j"$(nproc)" O="$out" "${PERF_MAKE_FLAGS[@]}" "$@" \
	>"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -20 >&2 || true
	die "perf build failed in $name: see $out/build.log"
fi

options=$("$out/perf" version --build-options)
for f in "${PERF_REQUIRED_FEATURES[@]}"; do
	feature=${f%%:*}
	package=${f#*:}
	grep -Eq "^ *$feature: \[ on  \]" <<<"$options" ||
		die "perf in $name was built without $feature: install $package (scripts/install-deps.sh) and rebuild"
done
echo "$key" >"$out/.build-key"
say "built $name/perf in $((SECONDS - start)) s"
