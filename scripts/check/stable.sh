#!/bin/bash
# Check the stable postings: each applies to the 6.12 base, builds and passes.
#
# The part of make check that is about what goes to stable: the postings of
# patches/postings whose base is 6.12.* (backports of mainline commits, in
# stable's form). Each is applied to the 6.12 base (bases/6.12.conf) on its
# own, checked with checkpatch, built in the default configuration and in
# the one that compiles every file it touches (STABLE_NONDISTRO_FLAGS, with
# DEBUG=1 under ASan, LSan and UBSan), and perf's annotate suites
# (PERF_SUITES of bases/6.12.conf) run in both builds.
# Prints one line per check: STATUS|NAME|DETAIL (scripts/check/check.sh reports
# them). Run by scripts/check/check.sh; progress and logs go to stderr and
# build/stable-6.12/results/logs.
set -euo pipefail
export BASE=6.12
. "$(dirname "$0")/../lib.sh"

logs=$BUILD/results/logs
mkdir -p "$logs"
emit() { printf '%s|stable-6.12: %s|%s\n' "$1" "$2" "${3:-}"; }

mapfile -t names < <(postings)
if [ ${#names[@]} -eq 0 ]; then
	emit SKIP "stable postings" "none in patches/postings"
	exit 0
fi

# The base, and build/stable-6.12/src: the base with every stable posting.
say "stable-6.12: the base and the stable postings (make tree BASE=6.12)"
if ! { "$TOP/scripts/build/install-deps.sh" "${STABLE_PACKAGES[@]}" &&
	"$TOP/scripts/build/fetch-base.sh" && "$TOP/scripts/build/prepare-tree.sh"; } \
	>"$logs/tree.log" 2>&1; then
	emit FAIL "$SRC_NAME holds the stable postings" "$(tail -1 "$logs/tree.log")"
	exit 0
fi
emit PASS "$SRC_NAME holds the stable postings" "${names[*]}"

for name in "${names[@]}"; do
	# 1. It applies to the base alone (git am, in a scratch worktree).
	"$TOP/scripts/build/worktree.sh" base "$BUILD/trees/apply-$name"
	applied=yes
	for p in $(dir_patches "$SERIES_DIR/$name"); do
		if ! git -C "$BUILD/trees/apply-$name" am -q --committer-date-is-author-date \
			"$TOP/$p" >"$logs/apply-$name.log" 2>&1; then
			git -C "$BUILD/trees/apply-$name" am --abort >/dev/null 2>&1 || true
			emit FAIL "$name applies to the 6.12 base" "$p does not apply"
			applied=no
			break
		fi
	done
	[ $applied = yes ] || continue
	emit PASS "$name applies to the 6.12 base" "$BASE_VERSION"

	# 2. checkpatch, as for the upstream postings (accepted types below '---').
	for p in $(dir_patches "$SERIES_DIR/$name"); do
		log=$logs/checkpatch-$(basename "$p").log
		n=$(checkpatch_findings "$p" "$log")
		if [ "$n" = 0 ]; then
			emit PASS "checkpatch $p"
		else
			emit FAIL "checkpatch $p" "$n findings, see ${log#"$TOP"/}"
		fi
	done

	# 3. The default build (plain) and the one that compiles every file
	# the posting touches (sanitized), and the annotate suites in each.
	# (The scratch worktree is one of $SRC_NAME: its commit is there.)
	rev=$(git -C "$BUILD/trees/apply-$name" rev-parse HEAD)
	sanitize_args=("${STABLE_NONDISTRO_FLAGS[@]}" DEBUG=1
		"EXTRA_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer")
	for variant in default nondistro-sanitize; do
		args=()
		[ $variant = default ] || args=("${sanitize_args[@]}")
		out=$BUILD/$name/$variant
		say "stable-6.12: building $name's perf, $variant"
		if ! "$TOP/scripts/build/perf.sh" --rev "$rev" "$out" "${args[@]}" \
			>"$logs/build-$name-$variant.log" 2>&1; then
			emit FAIL "$name: $variant: build" "see ${logs#"$TOP"/}/build-$name-$variant.log"
			continue
		fi
		# The second build exists to compile what the default one
		# leaves out: it must have.
		if [ $variant != default ] &&
			! "$out/perf" version --build-options | grep -qE '^ +libbfd: \[ on'; then
			emit FAIL "$name: $variant: build" "no libbfd in $out/perf: util/disasm_bpf.c was not built"
			continue
		fi
		emit PASS "$name: $variant: build" "${args[*]:-the PERF_MAKE_FLAGS of base.conf}"
		say "stable-6.12: perf's annotate suites with the $variant perf"
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			"$TOP/scripts/check/run-perf-tests.sh" "$variant" "$out/perf" \
			"$BUILD/trees/apply-$name" "${PERF_SUITES[@]}" |
			sed "s/|/|stable-6.12: $name: /"
	done

	# 4. What the posting fixes, shown on the base: the base's perf in
	# the sanitized configuration (the same object directory: only the
	# files the posting touches recompile) fails the annotate suites;
	# checks/xfail-base-sanitize-6.12.txt lists what must fail there.
	say "stable-6.12: the base's perf, nondistro-sanitize, and the annotate suites"
	if "$TOP/scripts/build/perf.sh" --rev base "$BUILD/base-sanitize" "${sanitize_args[@]}" \
		>"$logs/build-base-sanitize.log" 2>&1; then
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			"$TOP/scripts/check/run-perf-tests.sh" base-sanitize "$BUILD/base-sanitize/perf" \
			"$BUILD/trees/apply-$name" "${PERF_SUITES[@]}" |
			sed "s/|/|stable-6.12: $name: /"
	else
		emit FAIL "$name: base-sanitize: build" "see ${logs#"$TOP"/}/build-base-sanitize.log"
	fi
done
