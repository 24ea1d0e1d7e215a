#!/bin/bash
# make results: write Documentation/results.md from the parts check-all stamped.
#
# Write Documentation/results.md, the one committed page of results, from
# the five parts make check-all runs, each stamped by scripts/check/stamp.sh
# in build/results/stamps/: check (check.txt), check-vm (vm-matrix.md and
# vm/checks.txt), check-full (logs/check-full.log), mutants (mutants.txt)
# and bench (bench.md). All five must be stamped with the same commit,
# clean in what the results depend on; otherwise it refuses and says which
# part is missing, unclean or of another commit. Commit the page afterwards.
# Its first line names the commit; make check prints a NOTE when what the
# results depend on changed since.
#
# The page, in order: each part's verdict; one row per posting (its own
# checks in make check, the mutants of its code killed by its posted tests,
# what it costs a kcore load in instructions) and one for the whole series;
# the real-kernel matrix; check-full's verdicts; the expected failures and
# skips, one line per cause with its count; the mutants; the benchmark's
# summaries. Paths are the project's, relative.
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

# Paths of this machine made the project's.
relative() { sed -e "s|$TOP/||g"; }
# A fenced block of lines.
fenced() { echo '```'; relative; echo '```'; }

# The make check lines of posting NAME: its checkpatch, index lines, prefix
# builds (the "builds with patches 1-K" lines whose K falls in its
# patches), its sanitized prefixes and its build alone.
posting_lines() { # NAME
	local name=$1 first=0 last=0 n=0 p
	for p in $(postings); do
		if [ "$p" = "$name" ]; then
			first=$((n + 1))
			last=$((n + $(posting_files "$p" | wc -l)))
		fi
		n=$((n + $(posting_files "$p" | wc -l)))
	done
	awk -v name="$name" -v first="$first" -v last="$last" '
		/^(PASS|XFAIL|FAIL|SKIP) / {
			label = $0; sub(/^[A-Z]+ +/, "", label)
			if (index(label, "checkpatch patches/" name "/") == 1 ||
			    index(label, name ": index lines") == 1 ||
			    index(label, name " on the base with only") == 1 ||
			    index(label, "alone-" name ": ") == 1 ||
			    label ~ ("^" name " [0-9]+/[0-9]+ sanitized")) { print; next }
			if (match(label, /^builds with patches 1-[0-9]+ of/)) {
				k = substr(label, 22) + 0
				if (k >= first && k <= last) print
			}
		}' "$results/check.txt"
}

# "N passed, N failed" of check lines on stdin (XFAIL counts as passed).
verdicts() {
	awk '$1 == "PASS" || $1 == "XFAIL" { p++ } $1 == "FAIL" { f++ } $1 == "SKIP" { s++ }
	     END { printf "%d passed, %d failed%s", p, f, s ? ", " s " skipped" : "" }'
}

# Mutants of posting NAME (their "Posting:" line) killed by the posted test.
mutant_kills() { # NAME
	local name=$1 f nn total=0 killed=0
	for f in "$TOP"/checks/mutants/[0-9][0-9]-*.patch; do
		grep -qx "Posting: $name" "$f" || continue
		nn=$(basename "$f" | cut -c1-2)
		total=$((total + 1))
		grep -q "^mutant $nn .*posted test killed yes" "$results/mutants.txt" &&
			killed=$((killed + 1))
	done
	[ "$total" = 0 ] && echo "-" || echo "$killed of $total"
}

# The range of its instruction ratios in bench.md's "Instructions of one
# load against the base" table (every eBPF map and module count).
cost() { # NAME ("series" for the whole series)
	awk -F'|' -v name="$1" '
		/Instructions of one load against the base/ { on = 1; next }
		on && /^#/ { on = 0 }
		on && $2 ~ "^ " name " $" {
			for (i = 5; i <= 6; i++) {
				v = $i + 0
				if (v == 0) continue
				if (!n++ || v < lo) lo = v
				if (v > hi) hi = v
			}
		}
		END { if (n) printf "%.3f-%.3f", lo, hi; else printf "-" }' "$results/bench.md"
}

# The rows of the real-kernel matrix.
vm_rows() {
	awk '/^## Rows/ { on = 1; next } /^## / { on = 0 }
	     on && /^\| / && !/^\| guest/ && !/^\|---/ { n++ } END { print n + 0 }' "$results/vm-matrix.md"
}

# The lines that did not pass, one line per cause with its count and one
# example: the cause is the detail in parentheses, its log path, numbers
# and the build's name taken out.
by_cause() {
	awk '{
			status = $1; line = $0; sub(/^[A-Z]+ +/, "", line)
			i = index(line, " (")
			label = i ? substr(line, 1, i - 1) : line
			cause = i ? substr(line, i + 2, length(line) - i - 2) : "no detail"
			# Counts and sizes, not names: s390x and POWER9 stay.
			gsub(/ [0-9][0-9,.]*/, " N", cause)
			gsub(/log: [^;)]*/, "log", cause)
			if (length(cause) > 150) cause = substr(cause, 1, 150) "..."
			key = status " " cause
			if (!(key in n)) { order[++k] = key; example[key] = label }
			n[key]++
		}
		END { for (i = 1; i <= k; i++) printf "%4d  %s   (e.g. %s)\n", n[order[i]], order[i], example[order[i]] }'
}

vm_checks=$results/vm/checks.txt
{
	echo "<!-- results of commit $(git -C "$TOP" rev-parse "$commit") -->"
	echo "# Results"
	echo
	echo "The last full measured run (make check-all) of commit"
	echo "$(git -C "$TOP" log -1 --format='%h ("%s")' "$commit"), clean, written by make"
	echo "results. Machine: $(stamp check machine). Base: $BASE_PACKAGE" \
		"$(sed -n 's/^version=//p' "$BUILD/cache/base-used.txt" 2>/dev/null)."
	echo
	echo "| part | verdict | took | exit | started (UTC) |"
	echo "|---|---|---|---|---|"
	echo "| make check (host steps) | $(grep -E '^[0-9]+ passed' "$results/check.txt" | tail -1) | $(stamp check duration_s) s | $(stamp check exit) | $(stamp check start | tr T ' ' | tr -d Z) |"
	echo "| make check-vm | $(tr '|' ' ' <"$vm_checks" | verdicts) in $(vm_rows) rows | $(stamp check-vm duration_s) s | $(stamp check-vm exit) | $(stamp check-vm start | tr T ' ' | tr -d Z) |"
	echo "| make check-full | $(grep -m1 -E '[0-9]+ passed, [0-9]+ failed' "$results/logs/check-full.log" | sed 's/^[^0-9]*//') | $(stamp check-full duration_s) s | $(stamp check-full exit) | $(stamp check-full start | tr T ' ' | tr -d Z) |"
	echo "| make mutants | $(sed -n 's/^mutants: //p' "$results/mutants.txt") | $(stamp mutants duration_s) s | $(stamp mutants exit) | $(stamp mutants start | tr T ' ' | tr -d Z) |"
	echo "| make bench | see below | $(stamp bench duration_s) s | $(stamp bench exit) | $(stamp bench start | tr T ' ' | tr -d Z) |"
	echo
	echo "## Each posting"
	echo
	echo "Its own checks in make check (checkpatch, index lines of its declared"
	echo "tree, every prefix built, its prefixes sanitized, its build alone on"
	echo "what it needs); the mutants of its code that its posted tests kill,"
	echo "plain or sanitized; the"
	echo "instructions of one kcore load with it alone over the base's (x86_64"
	echo "and arm64, 0 and 2,000 eBPF maps, 4 and 100 modules). The whole"
	echo "series: every other check, the real kernels and the full suites."
	echo
	echo "| posting | make check | mutants killed | instructions of a load |"
	echo "|---|---|---|---|"
	for name in $(postings); do
		echo "| $name | $(posting_lines "$name" | verdicts) | $(mutant_kills "$name") | $(cost "$name") |"
	done
	echo "| the series | $(grep -E '^(PASS|XFAIL|FAIL|SKIP) ' "$results/check.txt" | verdicts) (all of make check); check-vm $(tr '|' ' ' <"$vm_checks" | verdicts) | $(sed -n 's/^mutants: //p' "$results/mutants.txt") | $(cost series) |"
	echo
	echo "## make check-vm: the real-kernel matrix"
	echo
	sed -e '1d' -e 's/^## /### /' "$results/vm-matrix.md" | relative
	echo
	echo "## make check-full"
	echo
	sed -n '/test cases by verdict/,$p' "$results/logs/check-full.log" | cut -c1-160 | fenced
	echo
	echo "## What did not pass, by cause"
	echo
	echo "XFAIL: a defect of the base, or a later patch's case, that the check"
	echo "shows as expected; SKIP: what this machine cannot run. One line per"
	echo "cause, with its count and one of its checks."
	echo
	echo "make check:"
	echo
	grep -E '^(XFAIL|SKIP|FAIL) ' "$results/check.txt" | by_cause | fenced
	echo
	echo "make check-vm:"
	echo
	# The cause: what the check says is expected, or its detail.
	grep -v '^PASS|' "$vm_checks" | awk -F'|' '{
		i = index($3, "expected: "); cause = i ? substr($3, i + 10) : $3
		gsub(/[()]/, "", cause)
		printf "%s  %s (%s)\n", $1, $2, cause }' | by_cause | fenced
	echo
	echo "make check's steps:"
	echo
	grep -E '^(steps:|make check took)' "$results/check.txt" | fenced
	echo
	echo "## make mutants"
	echo
	fenced <"$results/mutants.txt"
	echo
	echo "## make bench (summaries; the full tables: build/results/bench.md)"
	echo
	awk '/^#+ (Targets|Summary|Instructions of one load)/ { on = 1 }
	     on && /^#+ / && !/^#+ (Targets|Summary|Instructions of one load)/ { on = 0 }
	     on' "$results/bench.md" | sed -E 's/^#+ /### /' | relative
} >"$page"
say "wrote ${page#"$TOP"/}: commit $commit, from ${#parts[@]} parts"
