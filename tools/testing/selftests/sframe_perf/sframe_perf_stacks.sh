#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf record --call-graph sframe, system-wide, of the known call chain in
# each of the cases that matter: every sample of the chain's getppid system
# calls, as perf script shows it, must be the user stack the program really
# had, frame by frame, address by address, with the symbols of the chain --
# in a program built without frame pointers with SFrame V2 and V3, in one
# with frame pointers and no SFrame, in every thread, in a child after fork()
# and after exec(), in a library that dlopen() loaded and the audit module
# registered, and in threads and processes that exit in the system call
# (the kernel unwinds them on the way out).  Sampled in the kernel
# (raw_syscalls:sys_enter), the kernel's stack comes first, then the user
# stack, in one callchain.  The mode is set the way perf config does it,
# with perf record -g.  Where nothing can get the stack right without SFrame
# (the library, not registered), most stacks must be wrong: the comparison
# can fail.
#
# The recording is also seen with perf script --no-merge-callchains, each
# deferred record apart from its samples, and after perf inject, which
# passes the deferred records on: the same stacks.  A recursion deeper
# than perf's default --max-stack (127) is shown whole by default, cut by
# --max-stack 127.
#
# Then --call-graph dwarf, perf's own unwinder, on the same program: it must
# give the chain too, and perf script and perf report --children --sort
# dso,sym must name the same symbols for both, down to _start.  The C
# library and ld.so of the guest have no .sframe: the V2 program runs with
# the audit module and the SFrame sidecars of both (made by the codectl
# kselftests' build), as a distribution would have them registered.  On
# arm64, Debian's C library signs its return addresses (pac-ret), which
# perf's DWARF unwinder does not strip: there the two are compared up to
# the C library's caller of main, and the SFrame stacks must go on to
# __libc_start_main and _start.
#
# Each perf command costs seconds in a guest under emulation, so one perf
# record takes all the cases at once, each case's truth in its own
# directory.

# Runs of the chain per program; two system calls each.
RUNS=3
# Frames of the deep recursion, more than perf_event_max_stack (127).
DEEP=200

# The recorded command: every workload, one after the other.
if [ "${1:-}" = --workloads ]; then
	d=$2
	cd "$(dirname "$0")" || exit 1
	for c in v2 v3 fp threads fork exit dlopen noaudit deep; do
		mkdir -p "$d/$c" || exit 1
	done
	lib=$PWD/libsframe_perf_chain.so
	LD_AUDIT=$PWD/sframe-audit.so SFRAME_SIDECAR_PREFIX=$SIDECARS \
		./sframe_perf_v2 chain "$d/v2" $RUNS &&
	./sframe_perf_v3 chain "$d/v3" $RUNS &&
	./sframe_perf_fp chain "$d/fp" $RUNS &&
	./sframe_perf_v2 threads "$d/threads" 4 $RUNS &&
	./sframe_perf_v2 fork "$d/fork" $RUNS ./sframe_perf_v3 &&
	./sframe_perf_v2 exit "$d/exit" &&
	LD_AUDIT=$PWD/sframe-audit.so ./sframe_perf_v2 dlopen "$d/dlopen" $RUNS "$lib" &&
	./sframe_perf_v2 dlopen "$d/noaudit" $RUNS "$lib" &&
	./sframe_perf_v2 deep "$d/deep" $DEEP
	exit
fi

. "$(dirname "$0")/sframe_perf_lib.sh"

# getppid's number, for the filter of raw_syscalls:sys_enter; whether the
# C library signs return addresses (below).
PAC_RA=
case $(uname -m) in
x86_64) NR_GETPPID=110 ;;
aarch64) NR_GETPPID=173 PAC_RA=1 ;;
*) echo "# no getppid number for $(uname -m)"; exit 1 ;;
esac
# The chain's stack is some 45 KiB deep (st_big_frame has 40 KiB of locals).
DWARF_SIZE=65528
# The SFrame sidecars of the guest's C library and ld.so.
SIDECARS=$SFP_DIR/../codectl/sidecars-v2
export SIDECARS

ktap_print_header
sfp_require
[ -d "$SIDECARS/.build-id" ] ||
	ktap_exit_fail_msg "no sidecars in $SIDECARS: the codectl kselftests' build makes them"
ktap_set_plan $((18 + ${PAC_RA:-0}))

printf '[call-graph]\n\trecord-mode = sframe\n' >"$SFP_TMP/perfconfig"
t=$SFP_TMP/truth
PERF_CONFIG=$SFP_TMP/perfconfig sfp_record all -a -g \
	-e syscalls:sys_enter_getppid \
	-e raw_syscalls:sys_enter --filter "id == $NR_GETPPID" \
	-e syscalls:sys_enter_exit -e syscalls:sys_enter_exit_group -- \
	"$SFP_DIR/sframe_perf_stacks.sh" --workloads "$t" ||
	ktap_exit_fail_msg "perf record of the workloads failed"

sfp_result "v2: no frame pointers, SFrame V2: the chain" \
	sfp_check all "$t/v2"
sfp_result "syscall: the kernel's stack, then the deferred user stack" \
	sfp_check all "$t/v2" -v event=raw_syscalls:sys_enter -v kernel=1
sfp_result "v3: no frame pointers, SFrame V3, static: the chain" \
	sfp_check all "$t/v3"
sfp_result "fp build: frame pointers, no .sframe: the chain" \
	sfp_check all "$t/fp"
sfp_result "threads: 4 threads, each its chain" \
	sfp_check all "$t/threads"
sfp_result "fork and exec: a forked child, an exec'ed V3 child, the parent" \
	sfp_check all "$t/fork"
sfp_result "exit: a thread in exit, a process in exit_group, unwound on the way out" \
	sfp_check all "$t/exit" -v 'event=syscalls:sys_enter_exit(_group)?'
sfp_result "dlopen: the chain in a library registered by sframe-audit.so" \
	sfp_check all "$t/dlopen"
sfp_result "dlopen without the audit module: the library's stacks are wrong" \
	sfp_check all "$t/noaudit" -v want=wrong

# blocks SCRIPT: the samples of perf script -F pid,tid,time,event,ip,sym,dso
# output SCRIPT, one line each (its header, then its frames), sorted.  In
# the output of --no-merge-callchains, a sample's cookie frame stands for
# the frames of the deferred record of that cookie, which replace it, and
# the records' own blocks go: what perf script shows when it merges.
blocks() {
	awk '
	FNR == 1 { pass++ }
	/^[^\t]/ && !/^[ \t]*$/ {
		flush()
		hdr = $0
		nf = 0
		rec = ""
		if (match($0, /DEFERRED CALLCHAIN \[cookie: [0-9a-f]+\]/))
			rec = substr($0, RSTART + 28, RLENGTH - 29)
		next
	}
	/^\t/ { fr[++nf] = $1 " " $2 " " $NF; cookie[nf] = ($2 == "(cookie)"); next }
	/^[ \t]*$/ { flush() }
	END { flush() }
	function flush(    i, line, a) {
		if (hdr == "")
			return
		if (pass == 1 && rec != "") {
			line = ""
			for (i = 1; i <= nf; i++)
				line = line " | " fr[i]
			recs[rec] = line
		} else if (pass == 2 && rec == "") {
			line = hdr
			for (i = 1; i <= nf; i++) {
				split(fr[i], a, " ")
				if (cookie[i] && (a[1] in recs))
					line = line recs[a[1]]
				else
					line = line " | " fr[i]
			}
			print line
		}
		hdr = ""
	}' "$1" "$1" | sort
}

# same_blocks NAME DESCRIPTION: one KTAP result, whether
# $SFP_TMP/NAME.blocks has the same lines as all.blocks, and some.
same_blocks() {
	local n

	n=$(wc -l <"$SFP_TMP/$1.blocks")
	if cmp -s "$SFP_TMP/all.blocks" "$SFP_TMP/$1.blocks" && [ "$n" -gt 0 ]; then
		ktap_test_pass "$2: the same $n samples"
	else
		diff -u "$SFP_TMP/all.blocks" "$SFP_TMP/$1.blocks" | head -n 20 |
			sed 's/^/# /'
		ktap_test_fail "$2: not the same samples ($n)"
	fi
}

# The same recording seen record by record, and through perf inject
# (which passes the deferred records on as they are): the same stacks.
# Warnings go apart: stderr would land inside the buffered output.
fields=pid,tid,time,event,ip,sym,dso
"$PERF" script -i "$SFP_TMP/all.data" -F $fields >"$SFP_TMP/all.full" \
	2>"$SFP_TMP/all.err"
"$PERF" script -i "$SFP_TMP/all.data" -F $fields --no-merge-callchains \
	>"$SFP_TMP/nomerge.full" 2>"$SFP_TMP/nomerge.err"
blocks "$SFP_TMP/all.full" >"$SFP_TMP/all.blocks"
blocks "$SFP_TMP/nomerge.full" >"$SFP_TMP/nomerge.blocks"
ktap_print_msg "--no-merge-callchains: $(grep -c 'DEFERRED CALLCHAIN' \
	"$SFP_TMP/nomerge.full") deferred records"
same_blocks nomerge "perf script --no-merge-callchains, each sample with its record"
if "$PERF" inject -i "$SFP_TMP/all.data" -o "$SFP_TMP/inject.data" \
	>"$SFP_TMP/inject.log" 2>&1; then
	"$PERF" script -i "$SFP_TMP/inject.data" -F $fields \
		>"$SFP_TMP/inject.full" 2>"$SFP_TMP/inject.err"
	blocks "$SFP_TMP/inject.full" >"$SFP_TMP/inject.blocks"
	same_blocks inject "perf inject, then perf script"
else
	sfp_show "$SFP_TMP/inject.log"
	ktap_test_fail "perf inject failed"
fi

# deep_frames SCRIPT: the most sfp_deep frames in a getppid sample of the
# deep workload's thread in perf script output SCRIPT.
deep_frames() {
	local tid

	tid=$(basename "$(ls "$t"/deep/deep.*)")
	awk -v tid="${tid#deep.}" '
		/^[^\t]/ && !/^[ \t]*$/ {
			ours = $0 ~ ("/" tid " .*syscalls:sys_enter_getppid:")
			n = 0; next }
		/^\t/ && ours && $2 == "sfp_deep" { if (++n > most) most = n }
		END { print most + 0 }' "$1"
}

# A stack deeper than perf_event_max_stack: perf script shows it whole by
# default, and cuts it where --max-stack says.
n=$(deep_frames "$SFP_TMP/all.script")
if [ "$n" -eq $DEEP ]; then
	ktap_test_pass "deep: all $DEEP frames of a recursion by default"
else
	ktap_test_fail "deep: $n frames of a recursion of $DEEP by default"
fi
"$PERF" script -i "$SFP_TMP/all.data" -F pid,tid,event,ip,sym,dso \
	--max-stack 127 >"$SFP_TMP/deep127.script" 2>&1
n=$(deep_frames "$SFP_TMP/deep127.script")
if [ "$n" -gt 0 ] && [ "$n" -le 127 ]; then
	ktap_test_pass "deep: --max-stack 127 cuts it ($n frames)"
else
	ktap_test_fail "deep: --max-stack 127 gave $n frames"
fi

# The exits again, recorded as a command is (the events of its tasks, not
# of the CPUs): the deferred stacks must be written before the tasks' events
# go.
mkdir -p "$t/exit-task"
sfp_record exit-task -e syscalls:sys_enter_exit \
	-e syscalls:sys_enter_exit_group --call-graph sframe -- \
	"$SFP_DIR/sframe_perf_v2" exit "$t/exit-task"
sfp_result "exit, perf record of the command: unwound on the way out" \
	sfp_check exit-task "$t/exit-task" \
	-v 'event=syscalls:sys_enter_exit(_group)?'

# --call-graph sframe asks for what --call-graph fp,defer asks for: the
# kernel chooses SFrame or frame pointers frame by frame.  The same stacks.
mkdir -p "$t/fpdefer"
sfp_record fpdefer -e syscalls:sys_enter_getppid --call-graph fp,defer -- \
	"$SFP_DIR/sframe_perf_v2" chain "$t/fpdefer" 1
sfp_result "fp,defer: the same attributes, the chain from SFrame" \
	sfp_check fpdefer "$t/fpdefer"

# The same program under perf's DWARF unwinder.
mkdir -p "$t/dwarf"
sfp_record dwarf -e syscalls:sys_enter_getppid \
	--call-graph dwarf,$DWARF_SIZE -- \
	env LD_AUDIT="$SFP_DIR/sframe-audit.so" SFRAME_SIDECAR_PREFIX="$SIDECARS" \
	"$SFP_DIR/sframe_perf_v2" chain "$t/dwarf" $RUNS
sfp_result "dwarf,$DWARF_SIZE: perf's DWARF unwinder gives the chain" \
	sfp_check dwarf "$t/dwarf"

# user_syms NAME TRUTHDIR: the symbols of the user frames of the getppid
# samples of the thread of TRUTHDIR, a line per sample, all of them.
user_syms() {
	local tid

	tid=$(basename "$(ls "$2"/truth.*)")
	awk -v tid="${tid#truth.}" '
		/^[^\t]/ && !/^[ \t]*$/ {
			ours = $0 ~ ("/" tid " .*syscalls:sys_enter_getppid:")
			line = ""; next }
		/^\t/ && ours && $NF != "([kernel.kallsyms])" { line = line " " $2 }
		/^[ \t]*$/ { if (ours && line != "") print line; ours = 0 }
		END { if (ours && line != "") print line }' "$SFP_TMP/$1.script"
}

# same_as_dwarf KIND DESCRIPTION: one KTAP result, whether
# $SFP_TMP/sframe.KIND is not empty and has the same lines as dwarf.KIND.
same_as_dwarf() {
	local n

	n=$(wc -l <"$SFP_TMP/sframe.$1")
	if diff -u "$SFP_TMP/dwarf.$1" "$SFP_TMP/sframe.$1" >"$SFP_TMP/$1.diff" &&
	   [ "$n" -gt 0 ]; then
		ktap_test_pass "$2: the same $n lines as dwarf"
	else
		sfp_show "$SFP_TMP/$1.diff"
		ktap_test_fail "$2: not the same lines as dwarf ($n lines)"
	fi
}

# The frames DWARF can show right: all of them, or on arm64 (above) those
# up to main's caller.  ("[unknown]": __libc_start_call_main, which the C
# library's dynamic symbol table does not name.)
dwarf_part() {
	if [ -n "$PAC_RA" ]; then
		sed 's/\( main [^ ]*\) .*/\1/'
	else
		cat
	fi
}

user_syms all "$t/v2" >"$SFP_TMP/sframe.all"
user_syms dwarf "$t/dwarf" >"$SFP_TMP/dwarf.all"
ktap_print_msg "sframe, first sample:$(head -n1 "$SFP_TMP/sframe.all")"
ktap_print_msg "dwarf, first sample:$(head -n1 "$SFP_TMP/dwarf.all")"
dwarf_part <"$SFP_TMP/sframe.all" >"$SFP_TMP/sframe.syms"
dwarf_part <"$SFP_TMP/dwarf.all" >"$SFP_TMP/dwarf.syms"
same_as_dwarf syms "perf script: the user symbols of each sample"
if [ -n "$PAC_RA" ]; then
	n=$(grep -c ' main \[unknown\] __libc_start_main _start$' "$SFP_TMP/sframe.all")
	all=$(wc -l <"$SFP_TMP/sframe.all")
	what="perf script, arm64: SFrame stacks end in main, its caller, __libc_start_main, _start"
	if [ "$n" -gt 0 ] && [ "$n" -eq "$all" ]; then
		ktap_test_pass "$what: $n of $all"
	else
		ktap_test_fail "$what: $n of $all"
	fi
fi

# report NAME PID: perf report's rows of the user-space objects for the
# getppid samples of PID.  A frame without a symbol (the C library's
# __libc_start_call_main is not in its dynamic symbol table) is shown by
# address, which ASLR changes from run to run: it becomes "[unknown]".
report() {
	"$PERF" report -i "$SFP_TMP/$1.data" --pid "$2" --percentage relative \
		--stdio --children \
		--sort dso,sym -g none --percent-limit 0 2>&1 |
		awk '/^# Samples: .* of event / {
			     ours = $0 ~ /syscalls:sys_enter_getppid/ }
		     ours && !/^#/ && /%/ && !/\[kernel\.kallsyms\]/ {
			     sub(/\[\.\] 0x[0-9a-f]+$/, "[.] [unknown]"); print }' |
		sort
}

pid_of() {
	cut -d' ' -f1 "$(ls "$1"/truth.*)" | head -n1
}

# On arm64 without the rows of what DWARF cannot show right: the objects it
# cannot name, __libc_start_main and _start (checked above).
report_part() {
	if [ -n "$PAC_RA" ]; then
		grep -v -E '\[unknown\] +\[\.\] \[unknown\]$|\[\.\] (__libc_start_main|_start)$'
	else
		cat
	fi
}

report all "$(pid_of "$t/v2")" | report_part >"$SFP_TMP/sframe.report"
report dwarf "$(pid_of "$t/dwarf")" | report_part >"$SFP_TMP/dwarf.report"
sfp_show "$SFP_TMP/sframe.report"
same_as_dwarf report "perf report --children --sort dso,sym: the rows"

ktap_finished
