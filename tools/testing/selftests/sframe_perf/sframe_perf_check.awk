# SPDX-License-Identifier: GPL-2.0
#
# Compare the stacks perf script shows with the ground truth that
# sframe_perf_work wrote:
#
#	awk -f sframe_perf_check.awk [-v want=truth|wrong] [-v event=REGEX] \
#		[-v kernel=1] [-v callers=call] TRUTH... SCRIPT
#
# TRUTH files: one line per system call, "PID TID N ADDR:FUNC ...", in the
# order each thread made them.  SCRIPT: the output of "perf script -F
# pid,tid,event,ip,sym,dso": a header line per sample, one frame a line
# (tab, address, symbol, "(dso)"), a blank line.
#
# The k-th sample of an event whose name matches REGEX (by default
# syscalls:sys_enter_getppid) of a thread is checked against the k-th line of
# its truth: after the kernel's frames of the system call
# ([kernel.kallsyms]; with kernel=1 there must be some: the sample was
# taken in the kernel, not with the user registers of the system call),
# the user frames of the truth, frame by frame: the same address and the
# same symbol.  perf gives the callers' frames at the address before the
# return address, in the call (callers=call), for the stacks of its DWARF
# unwinders and for deferred ones alike.  Frames past the truth's
# last one (the C library's start code) are not checked.  Samples of
# threads without truth are counted as "other".
#
# Prints a mismatch table for the first few wrong samples and a summary;
# exits 0 when every sample is right (want=truth), or when every sample is
# there but fewer than half of them are right (want=wrong: a stack that the
# unwinder without SFrame must get wrong).

BEGIN {
	if (want == "")
		want = "truth"
	if (event == "")
		event = "syscalls:sys_enter_getppid"
	script = ARGV[ARGC - 1]
	shown = 0
}

function hexnorm(a) {
	a = tolower(a)
	sub(/^0x/, "", a)
	sub(/^0+/, "", a)
	return a
}

# The hex address @a minus one.
function hexdec(a,    i, d, digits) {
	digits = "0123456789abcdef"
	for (i = length(a); i > 0; i--) {
		d = index(digits, substr(a, i, 1)) - 1
		if (d > 0)
			return hexnorm(substr(a, 1, i - 1) substr(digits, d, 1) \
				       substr("ffffffffffffffff", 1, length(a) - i))
	}
	return a
}

FILENAME != script {
	if (NF < 3 || NF != $3 + 3) {
		printf "# %s:%d: a malformed truth line\n", FILENAME, FNR
		bad_truth++
		next
	}
	ntruth[$2]++
	truth[$2, ntruth[$2]] = $0
	total++
	next
}

# A sample's header.
/^[^\t]/ && !/^[ \t]*$/ {
	finish()
	tid = ""
	ours = 0
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^[0-9]+\/[0-9]+$/) {
			split($i, pt, "/")
			tid = pt[2]
		}
		if ($i ~ ("^" event ":$"))
			ours = 1
	}
	nf = 0
	insample = 1
	next
}

# A frame: address, symbol (may be [unknown]), (dso).
/^\t/ {
	if (!insample)
		next
	nf++
	faddr[nf] = hexnorm($1)
	fdso[nf] = $NF
	s = ""
	for (i = 2; i < NF; i++)
		s = s (i > 2 ? " " : "") $i
	fsym[nf] = s
	next
}

/^[ \t]*$/ {
	finish()
}

END {
	finish()
	for (t in ntruth) {
		if (seen[t] < ntruth[t]) {
			missing += ntruth[t] - seen[t]
			printf "# thread %s: %d samples of %d\n", t, seen[t] + 0,
			       ntruth[t]
		}
	}
	printf "# %d system calls: %d stacks right, %d wrong, %d missing, %d extra, %d with kernel frames, %d with a part missing, %d samples of other threads\n",
	       total, right, wrong, missing, extra, kstacks, unmerged, other
	if (bad_truth || total == 0 || missing || extra)
		exit 1
	if (want == "truth")
		exit !(right == total && unmerged == 0)
	exit !(right * 2 < total)
}

function finish(    k, n, f, nk, j, ok, why, e, a, name) {
	if (!insample)
		return
	insample = 0
	if (!ours)
		return
	if (!(tid in ntruth)) {
		other++
		return
	}
	k = ++seen[tid]
	if (k > ntruth[tid]) {
		extra++
		return
	}
	n = split(truth[tid, k], f, " ")
	nk = 0
	while (nk < nf && fdso[nk + 1] == "([kernel.kallsyms])")
		nk++
	if (nk)
		kstacks++
	if (nk == nf || (kernel && !nk))
		unmerged++
	ok = 1
	for (j = 1; j <= f[3] + 0 && ok; j++) {
		e = f[3 + j]
		a = hexnorm(substr(e, 1, index(e, ":") - 1))
		name = substr(e, index(e, ":") + 1)
		if (callers == "call" && j > 1)
			a = hexdec(a)
		if (nk + j > nf || faddr[nk + j] != a || fsym[nk + j] != name)
			ok = 0
	}
	if (ok) {
		right++
		return
	}
	wrong++
	if (shown++ >= 2)
		return
	printf "# thread %s, system call %d: user stack mismatch\n", tid, k
	printf "# %3s  %-40s %s\n", "#", "expected", "perf script"
	for (j = 1; j <= f[3] + 0 || nk + j <= nf; j++) {
		if (j > f[3] + 3)
			break
		e = j <= f[3] + 0 ? f[3 + j] : ""
		sub(/:/, " ", e)
		printf "# %3d  %-40s %s\n", j - 1, e,
		       nk + j <= nf ? faddr[nk + j] " " fsym[nk + j] " " fdso[nk + j] : "-"
	}
}
