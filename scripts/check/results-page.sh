#!/bin/bash
# make results: write Documentation/results.md from the parts check-all stamped.
#
# Write Documentation/results.md, the one committed page of results, from
# the five parts make check-all runs, each stamped by scripts/check/stamp.sh
# in build/results/stamps/: check (check.txt), check-vm (vm-matrix.md and
# vm/checks.txt), check-full (logs/check-full.log), mutants (mutants.txt)
# and bench (bench.md). All five must be stamped with the same commit,
# clean in what the results depend on; otherwise it refuses and says which
# part is missing, unclean or of another commit. The page names that
# commit, the machine, and each part's date, duration and exit status.
# Commit the page afterwards. Its first line names the commit; make check
# prints a NOTE when what the results depend on changed since.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

results=$BUILD/results
stamps=$results/stamps
page=$TOP/Documentation/results.md
parts=(check check-vm check-full mutants bench)

# A stamp's value: stamp PART KEY.
stamp() { sed -n "s/^$2=//p" "$stamps/$1.txt"; }

# --- every part there, clean, of one commit ---
commit=
problems=()
for p in "${parts[@]}"; do
	if [ ! -f "$stamps/$p.txt" ]; then
		problems+=("$p: not run (no build/results/stamps/$p.txt; make $p, or make check-all)")
		continue
	fi
	c=$(stamp "$p" commit)
	[ -n "$commit" ] || commit=$c
	if [ "$(stamp "$p" clean)" != yes ]; then
		problems+=("$p: run on $c with uncommitted changes")
	elif [ "$c" != "$commit" ]; then
		problems+=("$p: of commit $c, not $commit (${parts[0]}'s or the first found)")
	fi
done
if [ ${#problems[@]} -gt 0 ]; then
	printf 'results: %s\n' "${problems[@]}" >&2
	die "refusing to write ${page#"$TOP"/} from a partial set: run make check-all on one clean commit"
fi
for f in check.txt vm-matrix.md vm/checks.txt logs/check-full.log mutants.txt bench.md; do
	[ -s "$results/$f" ] || die "no build/results/$f, though every part is stamped: run make check-all again"
done

# A fenced block of lines.
fenced() { echo '```'; cat; echo '```'; }
{
	echo "<!-- results of commit $(git -C "$TOP" rev-parse "$commit") -->"
	echo "# Results"
	echo
	echo "The last full measured run (make check-all), written by make results"
	echo "(scripts/check/results-page.sh) from its five parts, all of commit"
	echo "$(git -C "$TOP" log -1 --format='%h ("%s")' "$commit"), clean."
	echo "Machine: $(stamp check machine). Base: $BASE_PACKAGE" \
		"$(sed -n 's/^version=//p' "$BUILD/cache/base-used.txt" 2>/dev/null)."
	echo
	echo "| part | started (UTC) | took | exit |"
	echo "|---|---|---|---|"
	for p in "${parts[@]}"; do
		echo "| make $p | $(stamp "$p" start | tr T ' ' | tr -d Z) | $(stamp "$p" duration_s) s | $(stamp "$p" exit) |"
	done
	echo
	echo "## make check (host steps; its two rows are check-vm's)"
	echo
	grep -E '^(steps:|make check took|[0-9]+ passed)' "$results/check.txt" | fenced
	echo
	echo "Checks that did not pass (XFAIL: a defect of the base the check shows):"
	echo
	{ grep -vE '^(PASS|steps:|make check took|[0-9]+ passed)' "$results/check.txt" || echo "(none)"; } | fenced
	echo
	echo "## make check-vm: the real-kernel matrix"
	echo
	echo "$(grep -cE '^(PASS|XFAIL)\|' "$results/vm/checks.txt") checks passed" \
		"($(grep -c '^XFAIL|' "$results/vm/checks.txt") of them XFAIL)," \
		"$(grep -c '^FAIL|' "$results/vm/checks.txt") failed," \
		"$(grep -c '^SKIP|' "$results/vm/checks.txt") skipped; the checks that did not pass:"
	echo
	{ grep -v '^PASS|' "$results/vm/checks.txt" | tr '|' ' ' || echo "(none)"; } | fenced
	echo
	sed -e '1d' -e 's/^## /### /' "$results/vm-matrix.md"
	echo
	echo "## make check-full"
	echo
	sed -n '/test cases by verdict/,$p' "$results/logs/check-full.log" | cut -c1-160 | fenced
	echo
	echo "## make mutants"
	echo
	fenced <"$results/mutants.txt"
	echo
	echo "## make bench"
	echo
	sed 's/^# /### /; s/^## /### /' "$results/bench.md"
} >"$page"
say "wrote ${page#"$TOP"/}: commit $commit, from ${#parts[@]} parts"
