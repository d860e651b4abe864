#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf's own tests (perf test) of --call-graph sframe, of the merging and
# the parse of deferred callchains and of --call-graph given twice; the
# first also checks that a mode word perf does not know and the options
# that cannot give SFrame stacks are refused.  Then the
# other uses of the mode that must fail with a clear error rather than
# record other stacks under its name: a kernel without the SFrame unwinder
# or without deferred callchains (made to look so by libsframe_perf_fake.so,
# preloaded into perf), a bad call-graph.record-mode in perf config, and the
# perf commands that do not wait for deferred stacks (given the mode on the
# command line, or by perf config).

. "$(dirname "$0")/sframe_perf_lib.sh"

ktap_print_header
sfp_require
ktap_set_plan 11
cd "$SFP_DIR" || ktap_exit_fail_msg "cannot cd to $SFP_DIR"

FAKE=$SFP_DIR/libsframe_perf_fake.so

# refused DESCRIPTION MESSAGE COMMAND...: COMMAND must fail, print MESSAGE,
# and leave no perf.data behind.
refused() {
	local desc=$1 want=$2 out rc=0

	shift 2
	rm -f "$SFP_TMP/perf.data"
	out=$("$@" 2>&1) || rc=$?
	if [ $rc -eq 0 ]; then
		ktap_print_msg "'$*' succeeded:"
		printf '%s\n' "$out" | sed 's/^/# /'
		ktap_test_fail "$desc"
	elif ! printf '%s\n' "$out" | grep -q -F -- "$want"; then
		ktap_print_msg "'$*' failed (exit $rc) without saying '$want':"
		printf '%s\n' "$out" | sed 's/^/# /'
		ktap_test_fail "$desc"
	elif [ -e "$SFP_TMP/perf.data" ]; then
		ktap_print_msg "'$*' left a perf.data"
		ktap_test_fail "$desc"
	else
		ktap_print_msg "exit $rc: $(printf '%s\n' "$out" | grep -m1 -F -- "$want")"
		ktap_test_pass "$desc"
	fi
}

record=("$PERF" record -o "$SFP_TMP/perf.data")

# perf_test NAME: run perf's own test NAME.
perf_test() {
	local out

	out=$("$PERF" test -v "$1" 2>&1)
	printf '%s\n' "$out" | sed 's/^/# /'
	if printf '%s\n' "$out" | grep -q -E "[0-9]+: $1 *: Ok"; then
		ktap_test_pass "perf test: $1"
	else
		ktap_test_fail "perf test: $1"
	fi
}

# The shell test tests/shell/record_sframe.sh, the merging of deferred
# callchains into the samples before and after their record and around
# their thread's exit, the parse's bound on a deferred record's callchain,
# a second --call-graph after "fp,defer", and the addresses the frames of
# a deferred stack are looked up at.
perf_test "perf record --call-graph sframe"
perf_test "Merge deferred callchains"
perf_test "Deferred callchain record size"
perf_test "Callchain record mode given twice"
perf_test "Deferred callchain frame addresses"

refused "a kernel without the SFrame unwinder (no codectl(2))" \
	"the kernel cannot unwind user stacks with SFrame" \
	env SFP_FAKE=no-sframe LD_PRELOAD="$FAKE" \
	"${record[@]}" --call-graph sframe -- true

refused "a kernel without deferred callchains" \
	"the kernel cannot take deferred user callchains" \
	env SFP_FAKE=no-defer LD_PRELOAD="$FAKE" \
	"${record[@]}" --call-graph sframe -- true

printf '[call-graph]\n\trecord-mode = sframe,8192\n' >"$SFP_TMP/bad-config"
refused "perf config call-graph.record-mode=sframe,8192" \
	"No more arguments needed for --call-graph sframe" \
	env PERF_CONFIG="$SFP_TMP/bad-config" "${record[@]}" -g -- true

refused "perf top --call-graph sframe" \
	"--call-graph sframe is only supported by perf record" \
	"$PERF" top --call-graph sframe

printf '[call-graph]\n\trecord-mode = sframe\n' >"$SFP_TMP/sframe-config"
refused "perf top -g after call-graph.record-mode = sframe in perf config" \
	"call-graph.record-mode = sframe in perf config is only supported by perf record" \
	env PERF_CONFIG="$SFP_TMP/sframe-config" "$PERF" top -g

refused "perf trace --call-graph sframe" \
	"--call-graph sframe is only supported by perf record" \
	"$PERF" trace --call-graph sframe -- true

ktap_finished
