#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the test guest, from the work share mounted at /mnt: mount the
# kernel's file systems, run the job the host put in /mnt/job.sh, record its
# exit code, look for leaks with kmemleak where the kernel has it, and power
# off.
#
# "sh /mnt/run.sh leaks", from a job: kmemleak's scan now, its report in
# /mnt/kmemleak.txt and on the console, and kmemleak off for the rest of
# the job (its tracking of every allocation makes each fork and exec 2 to
# 3 times slower under TCG).  The scan at the end is then skipped.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
leaks=/sys/kernel/debug/kmemleak

# Once a job: where the kernel has kmemleak, and the job has not scanned.
leak_scan() {
	[ -w $leaks ] && [ ! -f /mnt/kmemleak.txt ] || return 0
	# An object is reported once it stayed unreferenced over two scans
	# some seconds apart; the report goes to the console for run-guest.
	# With kmemleak=off the file is there but refuses every write.
	{ echo scan >$leaks; } 2>/dev/null || return 0
	sleep 6
	echo scan >$leaks
	cat $leaks >/mnt/kmemleak.txt
	echo "sframe-guest: kmemleak: $(grep -c 'unreferenced object' /mnt/kmemleak.txt) leaks"
	sed -n '1,60p' /mnt/kmemleak.txt
	echo off >$leaks
}

if [ "${1:-}" = leaks ]; then
	leak_scan
	exit 0
fi

mount -t sysfs sysfs /sys
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts /dev/shm
# What udev would make: the kselftest runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
hostname sframe-guest
# The sid root, where the host shares it (x86-64): sid's BCC.
mkdir -p /run/sid-root
mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576,ro,cache=loose \
	sid /run/sid-root 2>/dev/null || rmdir /run/sid-root
# What boot allocated is not the job's: only leaks from here on count.
# The periodic scan of all memory would take a CPU from the tests for
# minutes under TCG; the two scans of leak_scan find the leaks.
if [ -w $leaks ] && { echo scan=off >$leaks; } 2>/dev/null; then
	echo clear >$leaks
fi
echo "sframe-guest: running job on $(uname -r) with $(nproc) CPUs"
cd /mnt
sh /mnt/job.sh </dev/null
echo $? >/mnt/job.rc
leak_scan
sync
echo "sframe-guest: job done, rc $(cat /mnt/job.rc)"
/bin/busybox reboot -f
