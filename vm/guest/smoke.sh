#!/bin/sh
# Smallest guest script: proves the guest boots, both perfs start and
# /proc/kcore is readable. Prints KEY=VALUE lines like kcore-check.sh.
echo "KERNEL=$(uname -r)"
echo "MACHINE=$(uname -m)"
echo "UPTIME=$(cut -d' ' -f1 /proc/uptime)"
echo "KERNEL_STEXT=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)"
echo "KCORE_LOADS=$(readelf -lW /proc/kcore | grep -c ' LOAD ')"
echo "MODULES=$(cut -d" " -f1 /proc/modules | tr "\n" " ")"
for p in baseline series; do
	/perf-$p version >/dev/null 2>&1
	echo "$p.VERSION_RC=$?"
done
