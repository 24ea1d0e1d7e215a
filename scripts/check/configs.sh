#!/bin/bash
# make check-configs: build the series in the distribution's and perf's own build-test configurations.
#
# Each configuration builds the series (build/src's HEAD: the postings and
# our check layer) in a worktree and object directory of its own,
# build/configs/NAME (with -o, build/configs-objects/, shared where
# config_dir() says). perf builds with -Werror, so a new warning fails the
# build. When the series does not build, the base is built in the same
# place: a configuration the base does not build in either is a SKIP with
# the base's first error, one only the series breaks is a FAIL.
#
#   distro         the distribution's configuration (base.conf: PERF_DISTRO_FLAGS)
#   clang-19       the same with CC=clang-19
#   no_libelf      perf's tests/make make_no_libelf: kcore is not read at all,
#                  the kcore tests must say Skip
#   no_libdw       make_no_libdw
#   refcnt_check   make_refcnt_check: REFCNT_CHECKING without AddressSanitizer
#   minimal        make_minimal (perf's list of NO_* flags)
#   util_map_o     make_util_map_o: util/map.o alone
#   capstone       the distribution's with libcapstone, which Debian's perf
#                  leaves out: the capstone disassemblers (util/capstone.c)
#
# Prints one line per configuration (STATUS|build: NAME|detail), as
# scripts/check/check.sh reports them, and with -r runs the two kcore suites
# in each perf built. With -o (make check) each configuration builds only
# the objects of the C files the series changes in tools/perf, with the
# libraries they need, in one make: what a new warning would break, at a
# fraction of a full build. Usage: scripts/check/configs.sh [-r|-o] [NAME...]
. "$(dirname "$0")/../lib.sh"

run_suites=0 objects=0
case ${1:-} in
-r) run_suites=1 && shift ;;
-o) objects=1 && shift ;;
esac

config_args() { # NAME: sets args
	case $1 in
	distro) args=("${PERF_DISTRO_FLAGS[@]}") ;;
	clang-19) args=(CC=clang-19 "${PERF_DISTRO_FLAGS[@]}") ;;
	no_libelf) args=("${PERF_DISTRO_FLAGS[@]}" NO_LIBELF=1) ;;
	no_libdw) args=("${PERF_DISTRO_FLAGS[@]}" NO_LIBDW=1) ;;
	refcnt_check) args=("${PERF_DISTRO_FLAGS[@]}" EXTRA_CFLAGS=-DREFCNT_CHECKING=1) ;;
	minimal)
		args=(NO_LIBPYTHON=1 NO_DEMANGLE=1 NO_LIBELF=1 NO_BACKTRACE=1 NO_LIBNUMA=1
			NO_LIBBIONIC=1 NO_LIBDW=1 NO_LIBBPF=1 NO_SDT=1 NO_JVMTI=1 NO_LIBZSTD=1
			NO_CAPSTONE=1) ;;
	util_map_o) args=("${PERF_DISTRO_FLAGS[@]}") ;;
	capstone) args=("${PERF_DISTRO_FLAGS[@]}" NO_CAPSTONE=) ;;
	*) die "no configuration '$1'" ;;
	esac
}

# The objects of the C files that REV changes in tools/perf (its own
# libraries are built by perf's 'prepare'), each as the configuration
# builds it: without libelf, symbol-minimal.c instead of symbol-elf.c;
# without libdw (and so without libelf), no tests/dwarf-unwind.c
# (tests/Build: perf-test-$(CONFIG_DWARF_UNWIND)); util/capstone.o only with
# libcapstone.
changed_objects() { # NAME REV
	git -C "$SRC" diff --name-only base "$2" -- tools/perf | sed -n 's|^tools/perf/\(.*\)\.c$|\1.o|p' |
		case $1 in
		capstone) cat ;;
		*) sed '/^util\/capstone\.o$/d' ;;
		esac |
		case $1 in
		no_libelf | minimal) sed -e 's|^util/symbol-elf\.o$|util/symbol-minimal.o|' \
			-e '/^tests\/dwarf-unwind\.o$/d' ;;
		no_libdw) sed '/^tests\/dwarf-unwind\.o$/d' ;;
		*) cat ;;
		esac
}

# Where a configuration builds. With -o, the gcc configurations that
# differ only in perf's own NO_* flags share one worktree and object
# directory: perf's build records each object's command line (.cmd files)
# and recompiles an object whose command changed, so each configuration
# recompiles the objects its flags change and reuses the feature tests and
# the libraries, which those flags do not touch. clang-19 and refcnt_check
# (EXTRA_CFLAGS) change every command: each has its own.
config_dir() { # NAME
	case $objects:$1 in
	1:distro | 1:no_libelf | 1:no_libdw | 1:minimal | 1:util_map_o | 1:capstone) echo gcc ;;
	*) echo "$1" ;;
	esac
}

# make in the configuration's tree at REV; the log goes to OUT/build-NAME.log.
build_at() { # NAME REV OUT
	local tree=$BUILD/trees/config-$(config_dir "$1") target=() makefile=()
	"$TOP/scripts/build/worktree.sh" "$2" "$tree" >/dev/null
	config_args "$1"
	mkdir -p "$3"
	if [ "$1" = util_map_o ]; then
		# In a shared directory another configuration may have built it.
		rm -f "$3/util/map.o"
		target=(util/map.o)
	elif [ $objects = 1 ]; then
		# One make of Makefile.perf itself: perf's Makefile would run
		# a make per goal, each preparing the libraries again.
		makefile=(-f Makefile.perf)
		mapfile -t target < <(changed_objects "$1" "$2")
		# Makefile.perf's rule for an object named as a goal does not
		# look at its sources or its command line: one that exists (from
		# another configuration or an earlier run) is "up to date".
		(cd "$3" && rm -f "${target[@]}")
		target=("$(realpath -m "$3")/libsymbol/libsymbol.a" "${target[@]}")
	fi
	make -C "$tree/tools/perf" "${makefile[@]}" -j"$(nproc)" O="$(realpath -m "$3")" \
		"${PERF_MAKE_FLAGS[@]}" "${args[@]}" "${target[@]}" >"$3/build-$1.log" 2>&1
}

# The compiler's or make's first error (not an object named *error*.o).
first_error() { # LOG
	grep -m1 -E '(error|Error)( [0-9]+)?:|\*\*\*' "$1" | cut -c1-160
}

# The kcore suites must pass, or say Skip where perf reads no ELF.
check_suites() { # NAME PERF
	local out verdicts
	out=$("$2" test "Kernel maps from kcore" "kcore maps" 2>&1)
	verdicts=$(sed -n 's/^ *[0-9.]*: .* : \([A-Za-z!]*\).*/\1/p' <<<"$out" | grep -v Running | sort | uniq -c |
		awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
	case $1:$verdicts in
	no_libelf:*Ok* | minimal:*Ok*) echo "FAIL|suites: $1|$verdicts: without libelf every case must say Skip" ;;
	no_libelf:*Skip* | minimal:*Skip*) echo "PASS|suites: $1|$verdicts" ;;
	*:*FAILED* | *:) echo "FAIL|suites: $1|${verdicts:-no verdict}" ;;
	*) echo "PASS|suites: $1|$verdicts" ;;
	esac
}

"$TOP/scripts/build/install-deps.sh" "${DISTRO_PACKAGES[@]}" >&2
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(distro clang-19 no_libelf no_libdw refcnt_check minimal util_map_o capstone)
what="the series builds"
[ $objects = 0 ] || what="the series' changed files build"
for name in "${configs[@]}"; do
	out=$BUILD/configs/$name
	[ $objects = 0 ] || out=$BUILD/configs-objects/$(config_dir "$name")
	start=$SECONDS
	say "configuration $name: building the series (log: ${out#"$TOP"/}/build-$name.log)"
	if build_at "$name" HEAD "$out"; then
		if [ "$name" = util_map_o ]; then
			echo "PASS|build: $name|util/map.o builds ($((SECONDS - start)) s)"
		else
			echo "PASS|build: $name|$what ($((SECONDS - start)) s)"
		fi
		if [ $run_suites = 1 ] && [ -x "$out/perf" ] && [ "$name" != util_map_o ]; then
			check_suites "$name" "$out/perf"
		fi
		continue
	fi
	error=$(first_error "$out/build-$name.log")
	cp "$out/build-$name.log" "$out/build-$name-series.log"
	say "configuration $name: the series does not build; building the base"
	if build_at "$name" base "$out"; then
		echo "FAIL|build: $name|the base builds, the series does not: $error"
	else
		echo "SKIP|build: $name|the base does not build either: $(first_error "$out/build-$name.log")"
	fi
done
