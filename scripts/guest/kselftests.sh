#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the test guest (the job of scripts/check-kernel): the kselftests
# installed in /mnt/kselftest, in two runs of the kselftest runner.
#
#  1. The C programs, with kmemleak tracking every allocation, then
#     kmemleak's scan ("run.sh leaks"), which reports what they leaked and
#     turns kmemleak off;
#  2. the shell programs: the tests of perf, bpftrace, BCC, ftracetest and
#     trace-cmd, and the documentation check.  They start hundreds of
#     processes, and under TCG kmemleak's tracking makes each fork and exec
#     2 to 3 times slower; the kernel code they drive is the C programs'.
#
# Results: /mnt/kselftest.tap and /mnt/kselftest-tools.tap, each there
# and empty from the start until its run writes it, gone when it has no
# test.  The guest's uptime at the start and at each result:
# /mnt/kselftest.times.  The exit code is non-zero if either run's is.
cd /mnt/kselftest || exit 1
: >/mnt/kselftest.tap
: >/mnt/kselftest-tools.tap

stamp() {
	echo "$(cut -d' ' -f1 /proc/uptime) $*" >>/mnt/kselftest.times
}

# run_part TAP TEST...: run_kselftest.sh -t TEST..., its output in TAP
run_part() {
	tap=$1
	shift
	if [ $# -eq 0 ]; then
		rm -f "$tap"
		return 0
	fi
	args=
	for t; do
		args="$args -t $t"
	done
	# shellcheck disable=SC2086 # one word per test
	{ ./run_kselftest.sh $args 2>&1; echo $? >/mnt/kselftest.rc; } |
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line" >>"$tap"
		case $line in
		'ok '* | 'not ok '*) stamp "$line" ;;
		esac
	done
	return "$(cat /mnt/kselftest.rc)"
}

: >/mnt/kselftest.times
stamp start
rc=0
# shellcheck disable=SC2046 # one word per test
run_part /mnt/kselftest.tap $(grep -v '\.sh$' kselftest-list.txt) || rc=1
sh /mnt/run.sh leaks
stamp kmemleak scan
# shellcheck disable=SC2046
run_part /mnt/kselftest-tools.tap $(grep '\.sh$' kselftest-list.txt) || rc=1
exit $rc
