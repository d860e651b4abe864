#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd reads the stacktrace:user records with what the format files
# say, as libtraceevent does: "trace-cmd report" of a recording made with
# the trigger must print each stack's frames and names, and they must be
# the frames and names that the kernel's own trace file shows.
cd "$(dirname "$0")" || exit 1
T=/sys/kernel/tracing
EV=$T/events/syscalls/sys_enter_getppid
DAT=/tmp/sframe_ftrace_tracecmd.dat

fail() {
	echo "not ok 1 trace-cmd report of stacktrace:user records: $*"
	cleanup
	exit 1
}
cleanup() {
	echo '!stacktrace:user' >>$EV/trigger 2>/dev/null
	rm -f $DAT
}

echo "TAP version 13"
echo "1..1"
if ! command -v trace-cmd >/dev/null; then
	echo "ok 1 # SKIP no trace-cmd"
	exit 4
fi
[ -d $T/events ] || mount -t tracefs nodev $T
[ -f $EV/trigger ] || fail "no $EV/trigger"

# One stack of a known program: ftrace_names' leaf system call.  Tracing
# on and no pid filter, whatever a test before this one left (ftracetest
# stopped midway leaves tracing off).
echo 1 >$T/tracing_on
echo >$T/set_event_pid
echo >$T/trace
echo 'stacktrace:user if comm == "ftrace_names"' >$EV/trigger ||
	fail "cannot set the trigger"
echo g | ./ftrace_names --leaf 0 || fail "ftrace_names did not run"
echo '!stacktrace:user' >>$EV/trigger
kernel=$(cat $T/trace)
trace-cmd extract -o $DAT >/dev/null 2>&1 || fail "trace-cmd extract failed"
report=$(trace-cmd report -i $DAT 2>&1) || fail "trace-cmd report failed: $report"
rm -f $DAT

# The kernel's frames of the stack, "name+0xoffset" a line
kframes=$(printf '%s\n' "$kernel" | awk '
	/<user stack> cookie=/ { n++; next }
	n == 1 && /^ => / && !/^ => \.\.\./ { sub(/^ => /, ""); print; next }
	n == 1 && !/^ => / { exit }')
[ -n "$kframes" ] || fail "no stack in the trace file: $kernel"

# trace-cmd's: the frames={...} words and the names=a|b|c list of the
# user_stack_deferred event, decoded the same way: the object in the top
# byte (2 + the index of its name), the offset in the 56 bits below.
line=$(printf '%s\n' "$report" | grep -m1 'user_stack_deferred:')
[ -n "$line" ] || fail "no user_stack_deferred event in the report: $report"
echo "# $line" | cut -c1-400
tframes=$(printf '%s\n' "$line" | awk '
	{
		f = $0; sub(/.*frames=\{/, "", f); sub(/\}.*/, "", f)
		nm = $0; sub(/.*names=/, "", nm); sub(/[ \t]*$/, "", nm)
		nn = split(nm, names, "|")
		nf = split(f, words, ",")
		for (i = 1; i <= nf; i++) {
			w = words[i]; sub(/^ *0x/, "", w)
			while (length(w) < 16) w = "0" w
			obj = w; sub(/..............$/, "", obj)
			off = substr(w, 3); sub(/^0+/, "", off)
			if (off == "") off = "0"
			o = 0
			for (j = 1; j <= 2; j++)
				o = o * 16 + index("0123456789abcdef", substr(obj, j, 1)) - 1
			if (o == 0) name = "[unknown]"
			else if (o == 1) name = "[anon]"
			else if (o == 255) name = "[unnamed]"
			else if (o - 1 <= nn) name = names[o - 1]
			else name = "[?]"
			print name "+0x" off
		}
	}')
[ -n "$tframes" ] || fail "the report has no frames: $line"
case $tframes in
*ftrace_names+0x*) ;;
*) fail "the report names no frame in ftrace_names" ;;
esac
if [ "$kframes" != "$tframes" ]; then
	echo "# the trace file:"
	printf '%s\n' "$kernel" | grep -v '^#' | head -n 40 | sed 's/^/# | /'
	echo "# its frames:"
	printf '# %s\n' $kframes
	echo "# trace-cmd report:"
	printf '# %s\n' $tframes
	fail "trace-cmd and the kernel disagree"
fi
echo "# $(printf '%s\n' "$tframes" | wc -l) frames, the same in both"
cleanup
echo "ok 1 trace-cmd report of stacktrace:user records"
