# Entry points of the project; each calls one script. See README.md.
.DEFAULT_GOAL := perf
.PHONY: perf deps fetch tree export check bench check-vm demo clean distclean

S := scripts

# Build build/baseline/perf (the pinned base) and build/patched/perf (the
# series), fetching and preparing everything they need.
perf: tree
	@$(S)/worktree.sh base build/trees/base
	@$(S)/build-perf.sh build/trees/base build/baseline
	@$(S)/build-perf.sh build/src build/patched

deps:
	@$(S)/install-deps.sh

fetch: deps
	@$(S)/fetch-base.sh

# build/src: the base with patches/ applied (keeps unexported work: see
# scripts/prepare-tree.sh; FORCE=1 discards it).
tree: fetch
	@REBUILD=$(if $(filter tree,$(MAKECMDGOALS)),1,0) $(S)/prepare-tree.sh

# patches/ from the commits base..HEAD in build/src.
export:
	@$(S)/export-series.sh

# The README's test command, and what CI runs.
check: perf
	@$(S)/check.sh

# perf bench internals kcore-load, baseline against the series, side by side.
# BENCH_ARGS: options of scripts/bench-compare.sh, for one table instead of
# the default two.
bench: tree
	@$(S)/bench.sh $(BENCH_ARGS)

# The README's main command: the series' perf on a real arm64 kernel in QEMU,
# perf report and perf annotate read from its /proc/kcore.
# DEMO_START: when make started, so the total time includes the tree.
demo: export DEMO_START := $(shell date +%s)
demo: tree
	@$(S)/demo.sh

# Real kernels in QEMU guests (x86_64, arm64, ppc64le): vm/README.md.
check-vm: perf
	@$(S)/vm-matrix.sh

clean:
	rm -rf build/baseline build/patched build/bisect build/variants build/trees build/results build/src.tmp
	git -C build/src worktree prune 2>/dev/null || true

distclean:
	rm -rf build
