#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-wrapper.sh QUEUE COMMAND...: glibc's test-wrapper (Makeconfig: "a
# command that, prepended to the name and arguments of a program, causes
# that program to be run on the host for which the library is built"), for
# scripts/check-glibc-elf: COMMAND runs in the test guest, in the current
# directory, which the guest has at the same path.  The request is a file
# in QUEUE (the directory, then the arguments, NUL-terminated) that
# scripts/guest/glibc-elf.sh picks up; its output and exit code come back
# through QUEUE.  QUEUE/dead (the guest is gone) ends the wait with 125.
set -u
q=$1
shift
id=$q/$(date +%s%N)-$$
{
	printf '%s\0' "$PWD"
	printf '%s\0' "$@"
} >"$id.tmp"
mv "$id.tmp" "$id.cmd"
while [ ! -e "$id.rc" ]; do
	if [ -e "$q/dead" ]; then
		echo "guest-wrapper: the guest is gone" >&2
		exit 125
	fi
	sleep 0.1
done
cat "$id.out"
cat "$id.err" >&2
rc=$(cat "$id.rc")
rm -f "$id.out" "$id.err" "$id.rc"
exit "$rc"
