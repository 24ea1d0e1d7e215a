#!/bin/bash
# Build the failalloc LD_PRELOAD shim. Usage: checks/failalloc/build.sh OUTDIR
# Writes OUTDIR/failalloc.so and OUTDIR/failalloc-selftest, then runs the
# self-test (which checks that the shim's allocator is the one called).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
so=$out/failalloc.so
if [ ! -e "$so" ] || [ "$here/failalloc.c" -nt "$so" ]; then
	gcc -O2 -g -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
		-o "$so.tmp" "$here/failalloc.c" -ldl
	mv "$so.tmp" "$so"
fi
if [ ! -e "$out/failalloc-selftest" ] || [ "$here/selftest.c" -nt "$out/failalloc-selftest" ]; then
	gcc -O0 -g -Wall -Wextra -Werror -o "$out/failalloc-selftest" "$here/selftest.c" -ldl
fi
LD_PRELOAD=$so "$out/failalloc-selftest"
