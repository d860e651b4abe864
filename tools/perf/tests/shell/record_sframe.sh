#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf record --call-graph sframe
#
# A program built without frame pointers and with SFrame tables
# (-fomit-frame-pointer -Wa,--gsframe) spins in a known chain of functions:
# with --call-graph sframe every sample in the chain must show the whole
# chain down to main, where --call-graph fp cannot.  Bad uses of the mode
# must fail with their own error.

set -e

err=0
tmpdir=$(mktemp -d /tmp/perf-test-sframe.XXXXXX)
prog="$tmpdir/sframe_chain"
perfdata="$tmpdir/perf.data"

cleanup() {
	trap - EXIT TERM INT
	rm -rf "$tmpdir"
}

trap_cleanup() {
	echo "Unexpected signal in ${FUNCNAME[1]}"
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# fails_with MESSAGE ARGS...: perf record ARGS must exit non-zero, saying
# MESSAGE.
fails_with() {
	local want=$1 out

	shift
	if out=$(perf record -o "$perfdata" "$@" -- true 2>&1); then
		echo "perf record $* succeeded"
		err=1
	elif ! echo "$out" | grep -q -F -- "$want"; then
		echo "perf record $*: no '$want' in:"
		echo "$out"
		err=1
	fi
}

echo "Bad uses of --call-graph sframe"
fails_with "Unknown --call-graph option value: sframes" --call-graph sframes
fails_with "No more arguments needed for --call-graph sframe" \
	--call-graph sframe,8192
fails_with "cannot be used with --kernel-callchains" \
	--call-graph sframe --kernel-callchains
fails_with "call-graph=sframe cannot be set per event" \
	-e cpu-clock/call-graph=sframe/
if [ $err -ne 0 ]; then
	cleanup
	exit 1
fi

if [ ! -e /proc/self/sframe ]; then
	echo "The kernel has no SFrame unwinder: perf record must refuse the mode"
	fails_with "the kernel cannot unwind user stacks with SFrame" \
		--call-graph sframe
	cleanup
	[ $err -eq 0 ] && exit 2
	exit 1
fi

cat >"$tmpdir/chain.c" <<'EOF'
#include <time.h>

static volatile unsigned long sink;

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE void sf_inner(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOINLINE void sf_middle(unsigned long n)
{
	sf_inner(n);
	sink++;
}

NOINLINE void sf_outer(unsigned long n)
{
	sf_middle(n);
	sink++;
}

int main(void)
{
	time_t end = time(NULL) + 2;

	while (time(NULL) < end)
		sf_outer(1000000);
	return 0;
}
EOF
cc=${CC:-cc}
if ! $cc -O2 -fomit-frame-pointer -Wa,--gsframe -o "$prog" "$tmpdir/chain.c" \
	2>"$tmpdir/cc.log"; then
	echo "Skip: no C compiler that emits SFrame ($cc -Wa,--gsframe)"
	cat "$tmpdir/cc.log"
	cleanup
	exit 2
fi

# chain_stats MODE: record the program with --call-graph MODE and print how
# many samples are in the chain and how many of them show it down to main.
chain_stats() {
	perf record -q -e cpu-clock:u -F 500 --call-graph "$1" -o "$perfdata" \
		-- "$prog"
	perf script -i "$perfdata" -F ip,sym | awk '
		BEGIN {
			RS = ""
			FS = "\n"
			n = split("sf_inner sf_middle sf_outer main", want, " ")
		}
		{
			split($1, f, " ")
			for (first = 1; first <= n && want[first] != f[2]; first++)
				;
			if (first > n)
				next
			in_chain++
			for (i = first; i <= n; i++) {
				split($(i - first + 1), f, " ")
				if (f[2] != want[i])
					next
			}
			right++
		}
		END { print in_chain + 0, right + 0 }'
}

echo "The stacks of --call-graph sframe"
read -r in_chain right < <(chain_stats sframe)
echo "sframe: $right of $in_chain samples in the chain show it down to main"
if [ "$in_chain" -lt 20 ] || [ "$right" -ne "$in_chain" ]; then
	echo "sframe: every sample in the chain must show it"
	err=1
fi

# The comparison can fail: frame pointers do not find the chain.
read -r in_chain right < <(chain_stats fp)
echo "fp: $right of $in_chain samples in the chain show it down to main"
if [ "$in_chain" -lt 20 ] || [ $((right * 2)) -ge "$in_chain" ]; then
	echo "fp: without frame pointers most samples must miss the chain"
	err=1
fi

cleanup
exit $err
