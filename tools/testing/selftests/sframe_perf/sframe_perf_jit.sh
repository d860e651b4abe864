#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf record --call-graph sframe of code a JIT emits at run time:
# sframe_perf_jit runs C -> JIT -> C -> JIT -> C, its two JIT functions
# without frame pointers, described to the kernel by a CODECTL_REGISTER_JIT
# table and to perf by a jitdump file.  After perf inject --jit, every
# sample of the chain's getppid system calls, as perf script shows it, must
# be the user stack the program really had, frame by frame, address by
# address, the JIT functions named as the jitdump names them, their C
# callers and callees too; perf report must name them.  Without perf
# inject, perf has no names for the JIT frames (their addresses are an
# anonymous mapping's): most stacks must be wrong by name, which shows the
# names come from the jitdump.  The table's own effect on the stacks is
# codectl_jit's test (../codectl).

# Runs of the chain: one system call each.
RUNS=5

SFP_DIR=$(cd "$(dirname "$0")" && pwd)
. "$SFP_DIR/sframe_perf_lib.sh"

ktap_print_header
sfp_require
ktap_set_plan 3

printf '[call-graph]\n\trecord-mode = sframe\n' >"$SFP_TMP/perfconfig"
t=$SFP_TMP/truth
mkdir -p "$t"
# The jitdump's timestamps are CLOCK_MONOTONIC's: perf inject --jit
# orders its records with the samples'.
PERF_CONFIG=$SFP_TMP/perfconfig sfp_record jit -g -k mono \
	-e syscalls:sys_enter_getppid -- "$SFP_DIR/sframe_perf_jit" "$t" $RUNS ||
	ktap_exit_fail_msg "perf record of the JIT workload failed"

sfp_result "jit: without perf inject, the JIT frames have no names" \
	sfp_check jit "$t" -v want=wrong

if ! "$PERF" inject --jit -i "$SFP_TMP/jit.data" -o "$SFP_TMP/injected.data" \
	>"$SFP_TMP/inject.log" 2>&1 ||
   ! "$PERF" script -i "$SFP_TMP/injected.data" -F pid,tid,event,ip,sym,dso \
	>"$SFP_TMP/injected.script" 2>>"$SFP_TMP/inject.log"; then
	sfp_show "$SFP_TMP/inject.log"
	ktap_test_fail "jit: perf inject --jit, perf script"
	ktap_test_fail "jit: perf report"
	ktap_finished
	exit
fi
ktap_print_msg "perf inject --jit: $(ls "$t" | grep -c '^jitted-.*\.so$') objects"
sfp_result "jit: after perf inject --jit, the chain, the JIT functions by name" \
	sfp_check injected "$t"

# perf report names both JIT functions, with their share of the samples
"$PERF" report -i "$SFP_TMP/injected.data" --stdio --children \
	--sort sym >"$SFP_TMP/report" 2>&1
if grep -q 'sfp_jit_a' "$SFP_TMP/report" &&
   grep -q 'sfp_jit_b' "$SFP_TMP/report"; then
	ktap_test_pass "jit: perf report --children names sfp_jit_a and sfp_jit_b"
else
	sfp_show "$SFP_TMP/report"
	ktap_test_fail "jit: perf report --children does not name sfp_jit_a and sfp_jit_b"
fi
ktap_finished
