# Entry points of the project, each one script: scripts/build (how it is
# built), scripts/check and scripts/bench (what checks it), vm/host (the QEMU
# guests). See README.md.
.DEFAULT_GOAL := perf
.PHONY: perf deps fetch tree export check check-vm check-all check-configs check-full bench bench-postings demo mutants results clean distclean

B := scripts/build
C := scripts/check
V := vm/host

# The base every target works on: 7.3 (upstream, the postings in patches/
# and our check layer) or 6.12 (only the stable postings, backports of
# mainline commits: BASE=6.12 make tree / export). base.conf, bases/.
BASE ?= 7.3
export BASE

# Build BUILD/baseline/perf (the pinned base) and BUILD/patched/perf (the
# series), fetching and preparing everything they need. BUILD is build/ for
# BASE=7.3 and build/stable-6.12/ for BASE=6.12.
perf: tree
	@$(B)/pair.sh

deps:
	@$(B)/install-deps.sh

fetch: deps
	@$(B)/fetch-base.sh

# BUILD/src: the base with its series applied (keeps unexported work: see
# scripts/build/prepare-tree.sh; FORCE=1 discards it).
tree: fetch
	@REBUILD=$(if $(filter tree,$(MAKECMDGOALS)),1,0) $(B)/prepare-tree.sh

# The postings of the base (and, for 7.3, checks/layer/) from the commits
# base..HEAD in BUILD/src.
export:
	@$(B)/export-series.sh

# The proof in three tiers, each part stamped with its commit, start,
# duration and machine (scripts/check/stamp.sh, build/results/stamps/).
# make check: the README's test command and what CI runs: the host checks,
# the stable postings (scripts/check/stable.sh) and the two matrix rows
# that stand for the mission.
check: perf
	@$(C)/stamp.sh check $(C)/check.sh

# Real kernels in QEMU guests: every row of the matrix (vm/README.md).
check-vm: perf
	@$(C)/stamp.sh check-vm $(V)/matrix.sh

# Every tier, one part after the other: make check's host steps,
# check-vm, check-full, mutants, bench (scripts/check/check-all.sh).
check-all: perf
	@$(C)/check-all.sh

# The series built in the distribution's configuration, with clang, and in
# perf's own build-test configurations that touch kcore (scripts/check/configs.sh).
check-configs: tree
	@$(C)/configs.sh -r

# Every perf test suite on this host, the 7.3 base against the series, in the
# distribution's configuration, and the C suites of maps, symbols and kcore in
# an arm64 and an x86_64 QEMU guest; not part of make check
# (scripts/check/full.sh; FULL_HOST=0: the guests only, FULL_VM=0: the host only).
check-full: tree
	@$(C)/stamp.sh check-full $(C)/full.sh

# perf bench internals kcore-load, baseline against the series, side by side.
# BENCH_ARGS: options of scripts/bench/compare.sh, for one table instead of
# the default two.
bench: tree
	@$(C)/stamp.sh bench scripts/bench/bench.sh $(BENCH_ARGS)

# Each posting alone against the base, and the whole series, on the real
# layouts with no eBPF program maps and with 2,000 (make bench runs it too;
# scripts/bench/postings.sh: ROUNDS, EBPF_MAPS, POSTINGS).
bench-postings: perf
	@scripts/bench/postings.sh

# The README's main command: the series' perf on a real arm64 kernel in QEMU,
# perf report and perf annotate read from its /proc/kcore.
# DEMO_START: when make started, so the total time includes the tree.
demo: export DEMO_START := $(shell date +%s)
demo: tree
	@$(V)/demo.sh

# Mutation testing: which mistakes of checks/mutants/ the kcore tests catch.
mutants: perf
	@$(C)/stamp.sh mutants $(C)/mutants.sh

# Documentation/results.md from build/results/, after a measured run.
results:
	@$(C)/results-page.sh

clean:
	for b in build build/stable-6.12; do \
		rm -rf $$b/baseline $$b/patched $$b/obj $$b/bisect $$b/variants $$b/trees $$b/results $$b/src.tmp $$b/base+tests $$b/mutants $$b/full; \
		git -C $$b/src worktree prune 2>/dev/null || true; \
	done

distclean:
	rm -rf build
