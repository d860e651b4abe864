#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The user stacks of the BPF tools users already run, as a distribution
# ships them: bpftrace's ustack and BCC's profile, which take them with
# bpf_get_stack() and bpf_get_stackid(BPF_F_USER_STACK).
#
# sframe_bpf_chain_v2 (no frame pointers, SFrame) and sframe_bpf_chain_fp
# (frame pointers, no SFrame) spin in their known chain: main calls
# spin_top, which calls spin_mid, which calls spin_leaf, where the time
# goes.  Both tools sample them at 99 Hz:
#
#   1. bpftrace -e 'profile:hz:99 /pid == $1 || pid == $2 || pid == $3/
#	{ @[pid, ustack] = count(); }' of both programs (and of a third,
#	below);
#   2. profile-bpfcc -U -f -F 99 -p PID of sframe_bpf_chain_v2;
#   3. sframe-profile -F 99 -p PID (tools/sframe/profile, the series' own
#	libbpf tool, which asks for the complete stack of each sample with
#	bpf_unwind_user_request()) of sframe_bpf_chain_v2, and of a third
#	program, sframe_bpf_chain_v2 spin-evict, whose other thread
#	(sfb-evict, whose own samples are left out) keeps dropping its
#	.sframe pages from its page tables: there the stacks taken in the
#	sampling interrupt cannot be complete (bpftrace's share on it, of
#	its main thread, is printed for comparison), the deferred ones must
#	be.  At least 95% of sframe-profile's samples must have their
#	deferred stack.
#
# Each stack the tool prints is compared, symbol by symbol, with the chain
# the program calls: its innermost frame, where the sample interrupted
# the program, may be any function of the chain, and the frames above it
# must be exactly its callers, up to main (what lies above main, in the C
# library, is not the program's).  A stack that ends early, or that has
# another frame on the way, is wrong.  The share of samples whose stack is
# right must be at least 95%, for the SFrame program under both tools, and
# for the frame pointer program under bpftrace, which unwound it before
# SFrame too, and for both programs under sframe-profile.  A tool that is missing or cannot start fails the test.
#
# Both tools start at once, before the programs spin (they wait for a line
# on their input): under TCG each takes minutes to compile its program,
# BCC the longest (5 minutes on a quiet 2-core host, 11 on a busy one):
# they have SFB_TOOLS_START_LIMIT (1200) seconds.  The programs spin once
# both tools have opened their perf events, and are sampled for
# SFB_TOOLS_SECONDS (10) seconds.
#
# BCC compiles its C at startup against the kernel's headers, which it
# unpacks from /sys/kernel/kheaders.tar.xz (CONFIG_IKHEADERS).  Since
# Linux 6.19 they need -fms-extensions, which BCC 0.31 (Debian trixie)
# does not pass: profile cannot start.  Where a newer Debian root is
# mounted at $SFB_BCC_ROOT (/run/sid-root: the test guest mounts sid's,
# with its BCC 0.37), its profile-bpfcc runs chrooted there.
cd "$(dirname "$0")" || exit 1

TARGET=95
SAMPLE_S=${SFB_TOOLS_SECONDS:-10}
START_LIMIT=${SFB_TOOLS_START_LIMIT:-1200}
BPFTRACE=${BPFTRACE:-bpftrace}
PROFILE=${BCC_PROFILE:-/usr/sbin/profile-bpfcc}
SFRAME_PROFILE=./sframe-profile
BCC_ROOT=${SFB_BCC_ROOT:-/run/sid-root}

TMP=$(mktemp -d /tmp/sframe_bpf_tools.XXXXXX) || exit 1
pids=
mounted=

cleanup() {
	for p in $pids; do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for m in $mounted; do
		umount -R "$m"
	done
	mounted=
	rm -rf "$TMP"
}

# bail REASON: every test not run yet fails, loudly.
bail() {
	echo "# $*"
	for n in 1 2 3 4 5; do
		echo "not ok $n $(name $n) # $*"
	done
	cleanup
	exit 1
}

name() {
	case $1 in
	1) echo "bpftrace ustack of sframe_bpf_chain_v2 (SFrame)" ;;
	2) echo "BCC profile -U of sframe_bpf_chain_v2 (SFrame)" ;;
	3) echo "bpftrace ustack of sframe_bpf_chain_fp (frame pointers)" ;;
	4) echo "sframe-profile of sframe_bpf_chain_v2 (SFrame, deferred stacks)" ;;
	5) echo "sframe-profile of sframe_bpf_chain_v2 with its .sframe evicted" ;;
	esac
}

# perf_fds PID: the perf events PID has open.
perf_fds() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event'
}

# The stacks that are right, innermost frame first, up to main, '|'
# between two: the interrupted frame may be any function of the chain,
# and the frames above it must be exactly its callers.  A frame pointer
# walk, with SFrame as before it, misses the caller of spin_leaf, which
# keeps no frame record (GCC makes none in a leaf that needs no stack):
# there, the stacks a frame pointer walk gives.
RIGHT_SFRAME="spin_leaf spin_mid spin_top main|spin_mid spin_top main|spin_top main|main"
RIGHT_FP="spin_leaf spin_top main|spin_mid spin_top main|spin_top main|main"

# check FILE RIGHT: FILE has one stack a line, "COUNT FRAME..." with the
# innermost frame first; print "RIGHT TOTAL", the samples whose stack
# begins with one of RIGHT and all, and the first wrong stacks in
# FILE.wrong.
check() {
	awk -v right="$2" -v wrong="$1.wrong" '
	BEGIN { nr = split(right, r, "|") }
	{
		total += $1
		ok = 0
		for (i = 1; i <= nr && !ok; i++) {
			n = split(r[i], want, " ")
			ok = NF >= 1 + n
			for (j = 1; j <= n && ok; j++)
				ok = $(1 + j) == want[j]
		}
		if (ok) {
			good += $1
		} else if (shown++ < 5) {
			printf "# wrong (%d samples):", $1 > wrong
			for (j = 2; j <= NF && j < 14; j++)
				printf " %s", $j > wrong
			printf "\n" > wrong
		}
	}
	END { printf "%d %d\n", good, total }' "$1"
}

# deferred N WHAT ERR: the share of sframe-profile's samples that got
# their deferred stack, from its last line on stderr, ERR, must be at
# least TARGET; else test N fails.
deferred() {
	set -- "$1" "$2" $(awk '/samples:/ { n = $2; d = $4 } END { print n + 0, d + 0 }' "$3")
	echo "# $2: $4 of $3 samples with their deferred stack"
	awk -v d="$4" -v n="$3" -v t=$TARGET 'BEGIN { exit !(n && 100 * d >= t * n) }' &&
		return 0
	echo "not ok $1 $2 # $4 of $3 samples with their deferred stack"
	return 1
}

# report N WHAT FILE RIGHT: the verdict of test N on the stacks in FILE.
report() {
	set -- "$1" "$2" "$3" $(check "$3" "$4")
	cat "$3.wrong" 2>/dev/null
	if [ "$5" -eq 0 ]; then
		echo "not ok $1 $2 # no samples"
		return 1
	fi
	pct=$(awk -v r="$4" -v t="$5" 'BEGIN { printf "%.1f", 100 * r / t }')
	echo "# $2: $4 of $5 samples complete and right ($pct%)"
	if awk -v p="$pct" -v t=$TARGET 'BEGIN { exit !(p >= t) }'; then
		echo "ok $1 $2"
	else
		echo "not ok $1 $2 # $pct% < $TARGET%"
		return 1
	fi
}

echo "TAP version 13"
echo "1..5"
for t in ./sframe_bpf_chain_v2 ./sframe_bpf_chain_fp $SFRAME_PROFILE; do
	[ -x $t ] || bail "no $t"
done
command -v "$BPFTRACE" >/dev/null || bail "no bpftrace: install bpftrace"
[ -x "$BCC_ROOT$PROFILE" ] || BCC_ROOT=
[ -x "$BCC_ROOT$PROFILE" ] || bail "no $PROFILE: install bpfcc-tools"
bcc_version=$(sed -n "s/^__version__ *= *'\(.*\)'/\1/p" \
	"$BCC_ROOT/usr/lib/python3/dist-packages/bcc/version.py" 2>/dev/null)
echo "# $("$BPFTRACE" --version 2>&1), BCC $bcc_version in ${BCC_ROOT:-/}"

# The programs, waiting for a line each.
mkfifo "$TMP/go_v2" "$TMP/go_fp" "$TMP/go_ev" || bail "mkfifo failed"
exec 3<>"$TMP/go_v2" 4<>"$TMP/go_fp" 5<>"$TMP/go_ev"
./sframe_bpf_chain_v2 spin 100000 <"$TMP/go_v2" >"$TMP/v2.out" 2>&1 &
v2=$!
./sframe_bpf_chain_fp spin 100000 <"$TMP/go_fp" >"$TMP/fp.out" 2>&1 &
fp=$!
./sframe_bpf_chain_v2 spin-evict 100000 <"$TMP/go_ev" >"$TMP/ev.out" 2>&1 &
ev=$!
pids="$v2 $fp $ev"

# The tools, at once.  A job started with & ignores SIGINT, which stops
# both tools, and BCC's Python only takes it as KeyboardInterrupt
# when it is not ignored: start them with the default.
t0=$(cut -d' ' -f1 /proc/uptime)
env --default-signal=INT "$BPFTRACE" -e \
	'profile:hz:99 /pid == $1 || pid == $2 || tid == $3/ { @[pid, ustack] = count(); }' \
	"$v2" "$fp" "$ev" >"$TMP/bt.out" 2>"$TMP/bt.err" &
bt=$!
env --default-signal=INT $SFRAME_PROFILE -F 99 -d 100000 -p "$v2" \
	>"$TMP/sp.out" 2>"$TMP/sp.err" &
sp=$!
env --default-signal=INT $SFRAME_PROFILE -F 99 -d 100000 -p "$ev" \
	>"$TMP/spev.out" 2>"$TMP/spev.err" &
spev=$!
# BCC in $BCC_ROOT, chrooted, with /proc, /sys, /dev, a /tmp, and the
# top directory of the programs' path (/mnt in the test guest), where BCC
# reads their symbols: mounted in this mount namespace, for BCC to see
# the programs' files as they do (in a namespace of its own, BCC 0.37
# finds no symbols), and unmounted at the end.
set --
if [ -n "$BCC_ROOT" ]; then
	top=/$(pwd -P | cut -d/ -f2)
	for m in /proc /sys /dev "$top"; do
		mount --rbind "$m" "$BCC_ROOT$m" || bail "cannot mount $m in $BCC_ROOT"
		mounted="$BCC_ROOT$m $mounted"
	done
	mount -t tmpfs none "$BCC_ROOT/tmp" || bail "cannot mount $BCC_ROOT/tmp"
	mounted="$BCC_ROOT/tmp $mounted"
	set -- chroot "$BCC_ROOT"
fi
env --default-signal=INT "$@" "$PROFILE" -U -f -F 99 -p "$v2" \
	>"$TMP/bcc.out" 2>"$TMP/bcc.err" &
bcc=$!
pids="$pids $bt $bcc $sp $spev"

cpus=$(getconf _NPROCESSORS_ONLN)
bt_up= bcc_up= sp_up= spev_up=
while [ -z "$bt_up" ] || [ -z "$bcc_up" ] || [ -z "$sp_up" ] ||
      [ -z "$spev_up" ]; do
	now=$(cut -d' ' -f1 /proc/uptime)
	el=$(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%d", b - a }')
	for p in bt bcc sp spev; do
		eval "pid=\$$p up=\$${p}_up"
		[ -n "$up" ] && continue
		if ! kill -0 "$pid" 2>/dev/null; then
			sed 's/^/# /' "$TMP/$p.err" "$TMP/$p.out" 2>/dev/null |
				head -n 30
			bail "$p exited before it sampled"
		fi
		[ "$(perf_fds "$pid")" -ge "$cpus" ] && eval "${p}_up=$el"
	done
	if [ "$el" -gt "$START_LIMIT" ]; then
		sed 's/^/# /' "$TMP/bt.err" "$TMP/bcc.err" "$TMP/sp.err" \
			2>/dev/null | head -n 30
		bail "the tools did not start within ${START_LIMIT}s (started after: bpftrace ${bt_up:-no}, BCC ${bcc_up:-no}, sframe-profile ${sp_up:-no} and ${spev_up:-no})"
	fi
	sleep 1
done
echo "# started in: bpftrace ${bt_up}s, BCC profile ${bcc_up}s, sframe-profile ${sp_up}s and ${spev_up}s"

sleep 1
echo go >&3
echo go >&4
echo go >&5
sleep "$SAMPLE_S"
kill -INT "$bt" "$bcc" "$sp" "$spev"
wait "$bt"
bt_rc=$?
wait "$bcc"
bcc_rc=$?
wait "$sp"
sp_rc=$?
wait "$spev"
spev_rc=$?
for p in $v2 $fp $ev; do
	kill -KILL "$p" 2>/dev/null
done
pids=
wait 2>/dev/null
exec 3>&- 4>&- 5>&-
now=$(cut -d' ' -f1 /proc/uptime)
echo "# $(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%d", b - a }')s with both tools"

# bpftrace's map, a stack a key: "@[PID, " and the frames a line, then
# "]: COUNT".  One line a stack for check, per program.
awk -v v2="$v2" -v fp="$fp" -v ev="$ev" -v dir="$TMP" '
	/^@\[/ { pid = $0; sub(/^@\[/, "", pid); sub(/,.*/, "", pid)
		 frames = ""; next }
	/^\]: [0-9]+$/ { f = pid == v2 ? "v2" : pid == fp ? "fp" : pid == ev ? "ev" : "other"
			 printf "%s%s\n", $2, frames >> (dir "/bt_" f ".stacks")
			 next }
	{ s = $1; sub(/\+[0-9]+$/, "", s); frames = frames " " s }
' "$TMP/bt.out"

# The folded stacks of BCC and sframe-profile:
# "COMM;OUTERMOST;...;INNERMOST COUNT", but those of the thread that drops
# the .sframe pages.
unfold() {
	awk '/^sfb-evict;/ { next } {
		c = $NF; sub(/ [0-9]+$/, "")
		n = split($0, f, ";")
		printf "%s", c
		for (i = n; i >= 2; i--) printf " %s", f[i]
		printf "\n"
	}' "$1"
}
unfold "$TMP/bcc.out" >"$TMP/bcc_v2.stacks"
unfold "$TMP/sp.out" >"$TMP/sp_v2.stacks"
unfold "$TMP/spev.out" >"$TMP/sp_ev.stacks"

echo "# bpftrace exit $bt_rc, BCC profile exit $bcc_rc, sframe-profile exit $sp_rc and $spev_rc"
for f in bt_v2 bcc_v2 bt_fp sp_v2 sp_ev bt_ev; do
	touch "$TMP/$f.stacks"
	echo "# $f: the most frequent stacks:"
	sort -rn "$TMP/$f.stacks" | head -n 3 | cut -c1-200 | sed 's/^/#   /'
done
[ -s "$TMP/bt.err" ] && sed 's/^/# bpftrace: /' "$TMP/bt.err" | head -n 10
[ -s "$TMP/bcc.err" ] && sed 's/^/# bcc: /' "$TMP/bcc.err" | head -n 10
sed 's/^/# /' "$TMP/sp.err" "$TMP/spev.err"

rc=0
report 1 "$(name 1)" "$TMP/bt_v2.stacks" "$RIGHT_SFRAME" || rc=1
if [ $bcc_rc -ne 0 ]; then
	echo "not ok 2 $(name 2) # exit $bcc_rc"
	rc=1
else
	report 2 "$(name 2)" "$TMP/bcc_v2.stacks" "$RIGHT_SFRAME" || rc=1
fi
report 3 "$(name 3)" "$TMP/bt_fp.stacks" "$RIGHT_FP" || rc=1
for t in "4 sp $sp_rc sp_v2" "5 spev $spev_rc sp_ev"; do
	set -- $t
	if [ "$3" -ne 0 ]; then
		echo "not ok $1 $(name $1) # exit $3"
		rc=1
	elif deferred "$1" "$(name $1)" "$TMP/$2.err"; then
		report "$1" "$(name $1)" "$TMP/$4.stacks" "$RIGHT_SFRAME" || rc=1
	else
		rc=1
	fi
done
# What the walk in the sampling interrupt gives while the pages are gone
touch "$TMP/bt_ev.stacks"
set -- $(check "$TMP/bt_ev.stacks" "$RIGHT_SFRAME")
echo "# bpftrace ustack of the program whose .sframe is evicted (no deferred stacks): $1 of $2 samples complete and right"
[ $bt_rc -eq 0 ] || { echo "# bpftrace exit $bt_rc"; rc=1; }
cleanup
exit $rc
