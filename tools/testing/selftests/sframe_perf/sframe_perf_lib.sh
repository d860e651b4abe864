#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the sframe_perf tests, sourced by each.  They run the perf in
# $PERF, or the one in $PATH, and fail (never skip) when there is none or
# when the kernel has no SFrame unwinder: these tests are for such a kernel.

SFP_DIR=$(cd "$(dirname "$0")" && pwd)
. "$SFP_DIR/../kselftest/ktap_helpers.sh"

PERF=${PERF:-perf}
SFP_TMP=$(mktemp -d /tmp/sframe_perf.XXXXXX)
trap 'rm -rf "$SFP_TMP"' EXIT

# sfp_require: perf and a kernel that unwinds with SFrame, or bail out.
sfp_require() {
	local v

	v=$("$PERF" version 2>&1) ||
		ktap_exit_fail_msg "no perf ('$PERF'): set PERF or PATH"
	ktap_print_msg "$v ($(command -v "$PERF"))"
	[ -e /proc/self/sframe ] ||
		ktap_exit_fail_msg "no /proc/self/sframe: the kernel has no SFrame unwinder"
}

# sfp_show FILE: print FILE as KTAP diagnostics.
sfp_show() {
	sed 's/^/# /' "$1"
}

# sfp_record NAME [PERF RECORD OPTION...] -- COMMAND...: record COMMAND into
# $SFP_TMP/NAME.data and write perf script's view of it, a frame a line, to
# $SFP_TMP/NAME.script.  Fails, saying why, when perf or COMMAND does.
sfp_record() {
	local name=$1 opts=() t0=$SECONDS

	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	if ! "$PERF" record -q -o "$SFP_TMP/$name.data" "${opts[@]}" -- "$@" \
		>"$SFP_TMP/$name.record" 2>&1; then
		ktap_print_msg "$name: perf record ${opts[*]} -- $* failed:"
		sfp_show "$SFP_TMP/$name.record"
		return 1
	fi
	if ! "$PERF" script -i "$SFP_TMP/$name.data" \
		-F pid,tid,event,ip,sym,dso >"$SFP_TMP/$name.script" \
		2>"$SFP_TMP/$name.script-err"; then
		ktap_print_msg "$name: perf script failed:"
		sfp_show "$SFP_TMP/$name.script-err"
		return 1
	fi
	ktap_print_msg "$name: perf record ${opts[*]}: $(grep -c ': *$' \
		"$SFP_TMP/$name.script") samples, $((SECONDS - t0)) s"
}

# sfp_check NAME TRUTHDIR [AWK OPTION...]: compare the stacks of
# $SFP_TMP/NAME.script with the truth files in TRUTHDIR (see
# sframe_perf_check.awk).  perf shows the callers' frames of the stacks
# of all its unwinders, deferred or DWARF, at the call, the address
# before the return address.
sfp_check() {
	local name=$1 truth=$2

	shift 2
	awk -f "$SFP_DIR/sframe_perf_check.awk" -v callers=call "$@" \
		"$truth"/truth.* "$SFP_TMP/$name.script"
}

# sfp_result DESCRIPTION COMMAND...: one KTAP result, COMMAND's success.
sfp_result() {
	local desc=$1

	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}
