# SPDX-License-Identifier: GPL-2.0
#
# The project's driver.  Everything runs in Debian roots made on demand
# (scripts/mkroot); caches live in ~/.cache/sframe-linux, outputs in out/.
# Run as root on a Debian or Debian-like host.

S := scripts

.PHONY: help demo check check-fast check-kernel check-kernel-arm64 check-series kernel tree sparse \
	refresh series bench bench-perf bench-kernel bench-clang stress boot-loop distro roots clean glibc bench-glibc

# Seconds of make stress
DURATION ?= 600
# Boots of make boot-loop
BOOTS ?= 50

help:
	@echo 'SFrame user-space unwinding for Linux 7.3: targets'
	@echo '  make demo          build the patched kernel, boot it in QEMU, show a user stack it took'
	@echo '  make check         all tests (tier 1, series check, kselftests in QEMU); CI runs this'
	@echo '  make check-fast    tier 1, no kernel: decoder harness, corpus, fuzz smoke, libsframe diff'
	@echo '  make check-kernel  assemble, build the test kernel, boot it, run the kselftests'
	@echo '  make check-kernel-arm64  the same with the arm64 kernel under qemu-system-aarch64'
	@echo '  ARCH=arm64         for demo, check-kernel, kernel: the arm64 kernel and guest'
	@echo '  make check-series  export the series, git am it on the pristine base, checkpatch it'
	@echo '  make cold-check    make check in a fresh clone of HEAD with an empty cache, timed; KEEP=1 keeps'
	@echo '                     the clone and cache, TARGET=T runs make T instead, DRY_RUN=1 only says what it does'
	@echo '  make kernel        assemble the tree and build the test kernel only'
	@echo '  make tree          assemble the kernel tree (base + series) as a git work tree in out/tree'
	@echo '  make refresh       regenerate the overlay and patches/ from the commits in out/tree'
	@echo '  make series        write the git format-patch series and cover letter to out/series'
	@echo '  make bench         decoder benchmark: ours vs libsframe, ns per lookup'
	@echo '  make bench-perf    perf record --call-graph sframe vs fp vs dwarf: data, slowdown, right stacks'
	@echo '  make bench-kernel  the kernel'"'"'s unwind per frame (SFrame vs FP; perf, BPF, bpftrace), registry growth, codectl costs'
	@echo '  make bench-clang   clang++ and its libraries'"'"' sidecars under perf: cost per sample, unwinder share'
	@echo '  make stress        the debug kernel under DURATION seconds (600) of sframe_stress, then of ftrace_stress'
	@echo '  make boot-loop     boot the debug kernel BOOTS times (50), two guests at a time, count boots with a splat'
	@echo '  make sparse        sparse (C=2) on the files of the series, in the test kernel build'
	@echo '  make distro        W=1 build of the series objects with Debian'"'"'s config and allmodconfig'
	@echo '  make glibc         Debian trixie'"'"'s glibc with glibc/ (ld.so calls codectl), built,\n                     and the codectl dlopen/stack/sidecar cases run with its ld.so in the guest,\n                     and glibc'"'"'s elf/ tests of dlopen and audit, with and without glibc/'
	@echo '  make bench-glibc   ld.so'"'"'s cost: dlopen and the start of a program, glibc with glibc/ against without'
	@echo '  make roots         make the Debian roots (trixie, sid) if missing'
	@echo '  make clean         remove out/ (caches stay in ~/.cache/sframe-linux)'

demo:
	$(S)/demo

check:
	$(S)/check

check-fast check-kernel check-kernel-arm64:
	$(S)/check $@

check-series: series
	$(S)/check-series

.PHONY: cold-check
cold-check:
	$(S)/cold-check

kernel: tree
	$(S)/build-kernel

tree:
	$(S)/tree

refresh:
	$(S)/refresh

series:
	$(S)/series

sparse:
	$(S)/check-sparse

bench:
	$(S)/bench

bench-perf:
	$(S)/bench-perf

bench-kernel:
	$(S)/bench-kernel

bench-clang:
	$(S)/bench-clang

stress:
	$(S)/stress $(DURATION)

boot-loop: kernel
	$(S)/boot-loop $(BOOTS) 2

distro: tree
	$(S)/build-distro

# Tier 3, not part of make check: scripts/build-glibc, then the guest runs.
glibc: kernel
	$(S)/check-glibc
	$(S)/check-glibc-elf

bench-glibc: kernel
	$(S)/check-glibc --bench

roots:
	$(S)/mkroot trixie
	$(S)/mkroot sid

clean:
	rm -rf out
