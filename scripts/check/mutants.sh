#!/bin/bash
# make mutants: count which planted mistakes the kcore tests catch.
#
# make mutants: would the tests notice if the kcore-merge code were wrong?
#
# Each checks/mutants/NN-name.patch is one small, plausible mistake in the
# code a posting adds (a "mutant"), written as a diff against build/src
# HEAD; its first line says what it breaks, and a second line "Posted test:
# DESC" names the posting's own test when that is not kcore-merge's. For
# each mutant in turn this script
#   1. resets the scratch worktree build/mutants/tree to build/src HEAD and
#      applies the mutant with git apply;
#   2. builds its perf with scripts/build/perf.sh into build/mutants/obj,
#      one object directory for all mutants, so that each build recompiles
#      only the file the mutant changes (and the one the last mutant did);
#   3. runs the two suites with that perf, from the worktree's tools/perf
#      as scripts/check/run-perf-tests.sh does:
#      - the posted test: perf test "Kernel maps from kcore" (the
#        kcore-merge posting's tools/perf/tests/kcore-merge.c) and its
#        shell test "... with each allocation failing", or the one
#        the mutant names ("split kallsyms" of kallsyms-symbol-end and
#        kallsyms-module-end);
#      - our full suite: perf test "kcore maps" (checks/layer/) and its
#        allocation-failure sweep, checks/failalloc/run-kcore-enomem.sh.
#   4. for a mutant whose header has the line "Sanitized: yes" (a mistake
#      only a sanitizer sees, such as a leaked reference), builds it again
#      under ASan, LSan and UBSan (DEBUG=1, REFCNT_CHECKING on) into
#      build/mutants/obj-asan and runs its posted test there.
# A suite kills a mutant when one of its cases fails, it crashes (a case
# gives no result line), runs out of time, or a sanitizer reports anything. First, build/src HEAD itself,
# unmutated, runs both suites: they must pass there, or no kill means
# anything.
#
# Prints one line per mutant and the totals, and writes the same to
# build/results/mutants.txt; progress goes to stderr, logs to
# build/mutants/logs/. A mutant that does not apply or does not build is an
# ERROR of the run (the mutant, or build/src HEAD under it, needs fixing),
# never a kill; the exit status is then non-zero.
#
# Usage: scripts/check/mutants.sh (after make perf: the Makefile sees to it)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

dir=$BUILD/mutants
tree=$dir/tree
obj=$dir/obj
asan_obj=$dir/obj-asan
asan_args=(DEBUG=1 "EXTRA_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer")
logs=$dir/logs
out=$BUILD/results/mutants.txt
# Time limit of each suite run, in seconds: at HEAD each takes 2 s or less
# (the posted test 0.3 s, "kcore maps" 1 s, the sweep 1.7 s), so only a
# hang meets it.
TIMEOUT=120

# All in a function, so that bash has read the whole script before it runs:
# editing it during a run cannot change what the run does.
main() {
	local start=$SECONDS rev patches p nn name n=0 posted_kills=0 full_kills=0
	local built posted full sanitized ptest line e errors=() nr_sanitized=0 sanitized_kills=0

	mkdir -p "$dir" "$logs" "$(dirname "$out")"
	# One run at a time: they share the worktree and the object directory.
	exec 9>"$dir/lock"
	flock -n 9 || die "another make mutants is running (lock: ${dir#"$TOP"/}/lock)"

	rev=$(git -C "$SRC" rev-parse HEAD)
	mapfile -t patches < <(find "$TOP/checks/mutants" -name '[0-9][0-9]-*.patch' | sort)
	[ ${#patches[@]} -gt 0 ] || die "no mutants in checks/mutants/"
	rm -f "$logs"/*.log
	: >"$out"
	# Whatever happens, leave the worktree at HEAD with no mutant in it.
	trap reset_tree EXIT

	# HEAD unmutated: it must build and pass both suites.
	say "build/src HEAD $(git -C "$SRC" rev-parse --short HEAD), unmutated: build and both suites (a first build takes minutes, the mutants' builds seconds)"
	"$TOP/scripts/build/worktree.sh" "$rev" "$tree"
	reset_tree
	build "$logs/00-head-build.log" || die "build/src HEAD does not build: see ${logs#"$TOP"/}/00-head-build.log"
	head_suite_cases=0
	declare -A head_posted_cases=()
	for p in "${patches[@]}"; do
		posted=$(posted_test "$p")
		[ -z "${head_posted_cases[$posted]:-}" ] || continue
		head_posted_cases[$posted]=0
		if posted_killed 00-head "$posted"; then
			die "the posted test \"$posted\" fails on build/src HEAD: see ${logs#"$TOP"/}/00-head-posted.log"
		fi
		head_posted_cases[$posted]=$(count_results "$logs/00-head-posted.log")
	done
	# The posted tests of the sanitized mutants must pass sanitized at HEAD.
	declare -A head_sanitized_cases=()
	for p in "${patches[@]}"; do
		wants_sanitized "$p" || continue
		posted=$(posted_test "$p")
		[ -z "${head_sanitized_cases[$posted]:-}" ] || continue
		say "build/src HEAD sanitized, for the mutants a sanitizer must see (minutes the first time)"
		sanitized_build "$logs/00-head-sanitized-build.log" ||
			die "build/src HEAD does not build sanitized: see ${logs#"$TOP"/}/00-head-sanitized-build.log"
		head_sanitized_cases[$posted]=0
		if suite_kills "$posted" "$logs/00-head-sanitized.log" 0 "$asan_obj"; then
			die "the posted test \"$posted\" fails sanitized on build/src HEAD: see ${logs#"$TOP"/}/00-head-sanitized.log"
		fi
		head_sanitized_cases[$posted]=$(count_results "$logs/00-head-sanitized.log")
	done
	if full_killed 00-head; then
		die "the full suite fails on build/src HEAD: see ${logs#"$TOP"/}/00-head-suite.log and 00-head-enomem.log"
	fi
	# How many result lines a run that did not crash prints.
	head_suite_cases=$(count_results "$logs/00-head-suite.log")
	say "HEAD passes: the posted tests (${!head_posted_cases[*]}) and the full suite ($head_suite_cases cases and the sweep)"

	for p in "${patches[@]}"; do
		n=$((n + 1))
		name=$(basename "$p" .patch)
		nn=${name%%-*}
		name=${name#*-}
		built=no posted=no full=no sanitized=-
		say "mutant $nn $name ($n of ${#patches[@]}): $(head -1 "$p" | sed 's/^Mutant: //')"
		reset_tree
		if ! git -C "$tree" apply "$p" >"$logs/$nn-apply.log" 2>&1; then
			errors+=("mutant $nn $name does not apply to build/src HEAD: see ${logs#"$TOP"/}/$nn-apply.log")
		elif ! build "$logs/$nn-build.log"; then
			errors+=("mutant $nn $name does not build: see ${logs#"$TOP"/}/$nn-build.log")
		else
			built=yes
			if posted_killed "$nn" "$(posted_test "$p")"; then
				posted=yes posted_kills=$((posted_kills + 1))
			fi
			if full_killed "$nn"; then
				full=yes full_kills=$((full_kills + 1))
			fi
			if wants_sanitized "$p"; then
				nr_sanitized=$((nr_sanitized + 1)) sanitized=no
				ptest=$(posted_test "$p")
				if ! sanitized_build "$logs/$nn-sanitized-build.log"; then
					errors+=("mutant $nn $name does not build sanitized: see ${logs#"$TOP"/}/$nn-sanitized-build.log")
					sanitized=error
				elif suite_kills "$ptest" "$logs/$nn-sanitized.log" \
					"${head_sanitized_cases[$ptest]}" "$asan_obj"; then
					sanitized=yes sanitized_kills=$((sanitized_kills + 1))
				fi
			fi
		fi
		[ $built = yes ] || say "ERROR: ${errors[-1]}"
		line="mutant $nn $name: built $built, posted test killed $posted, full suite killed $full"
		[ "$sanitized" = - ] || line+=", sanitized posted test killed $sanitized"
		echo "$line" | tee -a "$out"
	done

	echo "mutants: $posted_kills of $n killed by the posted test, $full_kills of $n by the full suite, $sanitized_kills of $nr_sanitized by the sanitized posted test" |
		tee -a "$out"
	for e in "${errors[@]}"; do
		echo "ERROR: $e" | tee -a "$out"
	done
	say "make mutants took $((SECONDS - start)) s (results: ${out#"$TOP"/}, logs: ${logs#"$TOP"/}/)"
	[ ${#errors[@]} = 0 ]
}

# The worktree as build/src HEAD has it: the last mutant undone (with fresh
# modification times, so make recompiles what it had changed).
reset_tree() {
	[ -e "$tree/.git" ] || return 0
	git -C "$tree" reset -q --hard
	git -C "$tree" clean -fdq
}

# Build the worktree's perf into the shared object directory.
build() { # LOG
	local t=$SECONDS
	if "$TOP/scripts/build/perf.sh" "$tree" "$obj" >"$1" 2>&1; then
		say "  built in $((SECONDS - t)) s"
		return 0
	fi
	# make's output, which the next build overwrites.
	cat "$obj/build.log" >>"$1" 2>/dev/null || true
	return 1
}

# Build the worktree's perf sanitized into its own object directory.
sanitized_build() { # LOG
	local t=$SECONDS
	if "$TOP/scripts/build/perf.sh" "$tree" "$asan_obj" "${asan_args[@]}" >"$1" 2>&1; then
		say "  built sanitized in $((SECONDS - t)) s"
		return 0
	fi
	cat "$asan_obj/build.log" >>"$1" 2>/dev/null || true
	return 1
}

# Whether mutant file PATCH asks for the sanitized run: a header line
# "Sanitized: yes" before its diff.
wants_sanitized() { # PATCH
	sed '/^---/q' "$1" | grep -qx 'Sanitized: yes'
}

# The number of result lines (" 12: desc : Ok", " 12.3: desc : FAILED!") in
# a perf test log.
count_results() { # LOG
	grep -cE '^ *[0-9]+(\.[0-9]+)?: .*: (Ok|FAILED!|Skip.*)$' "$1" || true
}

# Run perf test suite DESC (its exact description) with the worktree's perf
# from its tools/perf, as run-perf-tests.sh does; log to LOG. Succeeds
# (returns 0) when the suite kills the mutant: a case failed, the run timed
# out (TIMEOUT), or it printed fewer result lines than at HEAD (CASES; 0:
# at least one), which is a crash.
suite_kills() { # DESC LOG CASES [OBJ]
	local desc=$1 log=$2 cases=$3 o=${4:-$obj} num rc=0 nr
	# The suite's number: perf test takes a name as a substring.
	num=$("$o/perf" test list 2>&1 | awk -v want="$desc" '
		match($0, /^ *[0-9]+: /) {
			if (substr($0, RLENGTH + 1) == want) { sub(/:.*/, "", $1); print $1; exit }
		}')
	if [ -z "$num" ]; then
		echo "no test \"$desc\" in this perf" >"$log"
		say "  $desc: no such test in this perf"
		return 0
	fi
	(cd "$tree/tools/perf" && PATH=$o:$PATH ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		timeout -k 10 "$TIMEOUT" "$o/perf" test -vv "$num") >"$log" 2>&1 || rc=$?
	nr=$(count_results "$log")
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		say "  $desc: timed out after $TIMEOUT s"
	elif grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
		say "  $desc: a sanitizer report"
	elif grep -qE ': FAILED!$' "$log"; then
		say "  $desc: $(grep -cE ': FAILED!$' "$log") of $nr cases FAILED"
	elif [ "$nr" = 0 ] || [ "$nr" -lt "$cases" ]; then
		say "  $desc: $nr result lines, $cases at HEAD: crashed"
	else
		say "  $desc: all $nr cases pass"
		return 1
	fi
	return 0
}

# The posted test that mutant file PATCH is for: its "Posted test:" line,
# else kcore-merge's.
posted_test() { # PATCH
	local t
	t=$(sed -n '2s/^Posted test: //p' "$1")
	echo "${t:-Kernel maps from kcore}"
}

# Whether posted test DESC kills the mutant (or HEAD) in the worktree; logs
# LOGS/NN-posted.log.
posted_killed() { # NN DESC
	suite_kills "$2" "$logs/$1-posted.log" "${head_posted_cases[$2]}" && return 0
	# kcore-merge posts a shell test too: it runs the C suite's allocation
	# failure cases under a library it builds.
	[ "$2" = "Kernel maps from kcore" ] || return 1
	suite_kills "$2 with each allocation failing" "$logs/$1-posted-enomem.log" 1
}

# Whether our full suite kills it: perf test "kcore maps" and the
# allocation-failure sweep (the failalloc shim preloaded; it needs the shim
# built, which run-kcore-enomem.sh does into build/mutants/failalloc, where
# it also leaves perf test's output of each case). Logs LOGS/NN-suite.log,
# NN-enomem.log and NN-enomem-CASE.log.
full_killed() { # NN
	local killed=1 rc=0 f
	suite_kills "kcore maps" "$logs/$1-suite.log" "$head_suite_cases" &&
		killed=0
	rm -f "$dir/failalloc/"*.log
	(cd "$tree/tools/perf" &&
		timeout -k 10 "$TIMEOUT" "$TOP/checks/failalloc/run-kcore-enomem.sh" \
			"$obj/perf" "$dir/failalloc") >"$logs/$1-enomem.log" 2>&1 || rc=$?
	for f in "$dir/failalloc/"*.log; do
		[ ! -e "$f" ] || cp "$f" "$logs/$1-enomem-$(basename "$f")"
	done
	if [ $rc = 0 ]; then
		say "  allocation failures: $(sed -n 's/^\([0-9]*\) loads with an allocation failing.*/\1/p' \
			"$logs/$1-enomem.log" | paste -sd+ -) loads pass"
	else
		killed=0
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			say "  allocation failures: timed out after $TIMEOUT s"
		else
			say "  allocation failures: $(grep -m1 -oE '^(no result from perf test|FAIL.*|ERROR.*|SUMMARY.*)' \
				"$logs/$1-enomem.log" | cut -c1-100 || echo failed) (${logs#"$TOP"/}/$1-enomem*.log)"
		fi
	fi
	return $killed
}

main "$@"
