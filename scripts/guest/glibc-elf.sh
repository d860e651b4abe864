#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the x86-64 guest for scripts/check-glibc-elf, with /mnt the
# host's $OUT/glibc (GLIBC_OUT: its path on the host): serves the requests
# of glibc's test-wrapper glibc/test/guest-wrapper.sh in /mnt/queue until
# /mnt/queue/stop appears.  glibc's tests name their files by the build
# directory's absolute path, so $OUT/glibc is mounted at that path too (the
# root is read-only: on a tmpfs over the checkout's directory, which
# scripts/in-root made in the root).
set -u
: "${GLIBC_OUT:?}" "${TOPDIR:?}"
case $GLIBC_OUT in
"$TOPDIR"/*) ;;
*) echo "glibc-elf: $GLIBC_OUT is not under $TOPDIR" >&2; exit 1 ;;
esac
mount -t tmpfs tmpfs "$TOPDIR" && mkdir -p "$GLIBC_OUT" &&
	mount --bind /mnt "$GLIBC_OUT" || exit 1
q=/mnt/queue
# glibc's tests time out after TIMEOUTFACTOR x their own limit; TCG is slow.
export TIMEOUTFACTOR=10
touch "$q/ready"
while [ ! -e "$q/stop" ]; do
	for f in "$q"/*.cmd; do
		[ -e "$f" ] || continue
		id=${f%.cmd}
		mapfile -t -d '' a <"$f"
		rm -f "$f"
		(cd "${a[0]}" && exec "${a[@]:1}") </dev/null >"$id.out" 2>"$id.err"
		echo $? >"$id.rc.tmp"
		mv "$id.rc.tmp" "$id.rc"
	done
	sleep 0.1
done
