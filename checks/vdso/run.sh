#!/bin/bash
# Run perf test "Object code reading" with samples in the vDSO; print what it read.
#
# Usage: checks/vdso/run.sh PERF OUTDIR
# Builds the vdso-calls.c shim into OUTDIR, runs the test with it preloaded
# (log: OUTDIR/ocr.log) and prints three KEY=VALUE lines:
#   OCR=Ok|FAILED!|...      the test's verdict
#   VDSO_READ=N             vDSO samples read from the copy perf makes of it
#   VDSO_NO_DATA=N          vDSO samples whose dso was "[vdso]" (no data)
set -euo pipefail
perf=$(realpath "${1:?usage: $0 PERF OUTDIR}")
out=${2:?usage: $0 PERF OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
gcc -O2 -Wall -Werror -shared -fPIC -o "$out/vdso-calls.so" "$here/vdso-calls.c" -ldl
cd "$out"
LD_PRELOAD=$out/vdso-calls.so timeout -k 10 300 "$perf" test -vv "Object code reading" >ocr.log 2>&1 || true
echo "OCR=$(sed -n 's/^ *[0-9]*: Object code reading *: *\([A-Za-z!]*\).*/\1/p' ocr.log | tail -1)"
echo "VDSO_READ=$(grep -c '^File is: .*/perf-vdso\.so-' ocr.log || true)"
echo "VDSO_NO_DATA=$(grep -c '^File is: \[vdso\]$' ocr.log || true)"
