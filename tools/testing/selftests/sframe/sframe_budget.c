// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame work of one user stack walk is bounded.
 *
 * bt_heavy, in assembly below, is one function with 65,535 FREs, the most
 * an SFrame V3 FDE can have: GNU as emits one for each push and pop of the
 * 32,767 pairs the function jumps over (arm64: 32,766 pairs of stores and
 * loads that move the stack pointer, and two for the link register the
 * recursion saves).  Every call and system call of
 * bt_heavy lies past all of them, so every lookup in it scans all of its
 * FREs.  It calls itself 600 times, then makes a getppid system call.  A
 * perf event on the tracepoint asks for the deferred user callchain, which
 * the kernel unwinds before the system call returns to user space, so the
 * system call's time includes the walk.  Unbounded, the walk does one such
 * lookup per frame for the 510 frames the deferred unwinder keeps: 33
 * million FREs, 5.3 s under QEMU's TCG.  Bounded, the walk goes on with
 * frame pointers once its SFrame budget is spent, and ends there: the
 * frame pointer is 0 in these frames.
 *
 * bt_light is the same function without the padding.  Its stack shows that
 * the functions and their SFrame data do what this test thinks, and its
 * system call is the time without the event's walk.
 *
 * Cases:
 *  - binary: bt_heavy has one FDE of 65,535 FREs; bt_light has a few;
 *  - light: the stack of 100 levels of bt_light, frame by frame;
 *  - heavy: each frame the walk through bt_heavy gives is right, and the
 *    section is still "ok" afterwards (a spent budget is no corruption);
 *  - time: the system call that triggers the walk through bt_heavy takes
 *    less than half a second (printed, with the time without the event);
 *  - SIGKILL: a child that keeps making such walks dies within half a
 *    second of SIGKILL.
 *  - killed: a child whose system call at the bottom of bt_heavy is
 *    kill(itself, SIGKILL), sampled with a deferred callchain by an event
 *    of the parent, dies without walking its stack: the walk runs on the
 *    way out of that system call with the signal pending, and stops before
 *    its first lookup, so the deferred stack the parent reads has one
 *    frame (it had 510, after two scans of 65,535 FREs, when a killed
 *    task finished its walk);
 *  - cache: a walk allocates nothing for the cache of SFrame rules, which
 *    is per CPU and made at boot: a child whose slab allocations all fail
 *    (failslab, task filter) walks 100 levels of bt_light through SFrame
 *    and fails no allocation (the failslab counter "times"; it failed one
 *    when each task made its own cache at its first walk, and 106 when
 *    each frame tried again).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "sframe_budget.h"
#include "sframe_codectl.h"
#include "sframe_lib.h"

/*
 * The FREs of bt_heavy: the first, and one per push and per pop; on arm64
 * two more, for the save and restore of the link register.
 */
#if defined(__x86_64__)
#define BT_PAIRS	32767
#define BT_HEAVY_FRES	(1 + 2 * BT_PAIRS)
#else
#define BT_PAIRS	32766
#define BT_HEAVY_FRES	(1 + 2 * BT_PAIRS + 2)
#endif
/* Levels of recursion: more frames than the deferred unwinder keeps */
#define BT_DEEP		600
/* Levels of recursion of the light stack, checked down to main */
#define BT_SHALLOW	100
/* Frames below the recursion: bt_enter, bt_call, bt_run, check_*, main */
#define BT_BELOW	5
/* Runs of each kind that are timed */
#define BT_RUNS		3
/*
 * Unbounded, the walk took 5.3 s under TCG; bounded, up to 0.49 s on the
 * debug kernel, and more on a loaded host: a third of the unbounded time.
 */
#define BT_MAX_SECONDS	1.5
/* How long the child is left in its walks before SIGKILL */
#define BT_KILL_DELAY_MS	200

#define BT_STR(x)	#x
#define BT_XSTR(x)	BT_STR(x)

#if defined(__x86_64__)
/*
 * bt_body NAME: the body of bt_heavy and bt_light, %rdi levels of
 * recursion, then the system call bt_sysnr (getppid, or kill).  The CFA
 * is %rsp + 8 throughout: return addresses only.
 */
asm(".macro bt_body name\n"
	"	test %rdi, %rdi\n"
	"	jz 1f\n"
	"	dec %rdi\n"
	"	call \\name\n"
	"	.globl \\name\\()_callret\n"
	"\\name\\()_callret:\n"
	"	ret\n"
	"1:	mov bt_sysnr(%rip), %rax\n"
	"	mov bt_sysarg0(%rip), %rdi\n"
	"	mov bt_sysarg1(%rip), %rsi\n"
	"	syscall\n"
	"	.globl \\name\\()_sysret\n"
	"\\name\\()_sysret:\n"
	"	ret\n"
	".endm\n"

	".text\n"
	".globl bt_heavy\n"
	".type bt_heavy, @function\n"
	"bt_heavy:\n"
	".cfi_startproc\n"
	"	jmp 2f\n"
	"	.rept " BT_XSTR(BT_PAIRS) "\n"
	"	push %rax\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pop %rax\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.endr\n"
	"2:	bt_body bt_heavy\n"
	".cfi_endproc\n"
	".size bt_heavy, . - bt_heavy\n"

	".globl bt_light\n"
	".type bt_light, @function\n"
	"bt_light:\n"
	".cfi_startproc\n"
	"	bt_body bt_light\n"
	".cfi_endproc\n"
	".size bt_light, . - bt_light\n"
	".purgem bt_body\n"

	/*
	 * bt_enter(depth, fn): call fn(depth) with %rbp 0, so that the frame
	 * pointer unwinder stops in fn's frames.
	 */
	".globl bt_enter\n"
	".type bt_enter, @function\n"
	"bt_enter:\n"
	".cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_offset %rbp, -16\n"
	"	xor %ebp, %ebp\n"
	"	call *%rsi\n"
	"	.globl bt_enter_ret\n"
	"bt_enter_ret:\n"
	"	pop %rbp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbp\n"
	"	ret\n"
	".cfi_endproc\n"
	".size bt_enter, . - bt_enter\n");
#elif defined(__aarch64__)
/*
 * bt_body NAME: the body of bt_heavy and bt_light, x0 levels of recursion,
 * then the system call bt_sysnr (getppid, or kill).  Each level saves the
 * link register below its call: the CFA is SP, or SP + 16 with the return
 * address at CFA - 16.  The
 * functions are called through a register: BTI landing pads (bti c).
 */
asm(".macro bt_body name\n"
	"	cbz x0, 1f\n"
	"	sub x0, x0, #1\n"
	"	str x30, [sp, #-16]!\n"
	"	.cfi_adjust_cfa_offset 16\n"
	"	.cfi_offset x30, -16\n"
	"	bl \\name\n"
	"	.globl \\name\\()_callret\n"
	"\\name\\()_callret:\n"
	"	ldr x30, [sp], #16\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	.cfi_restore x30\n"
	"	ret\n"
	"1:	adrp x9, bt_sysnr\n"
	"	ldr x8, [x9, :lo12:bt_sysnr]\n"
	"	adrp x9, bt_sysarg0\n"
	"	ldr x0, [x9, :lo12:bt_sysarg0]\n"
	"	adrp x9, bt_sysarg1\n"
	"	ldr x1, [x9, :lo12:bt_sysarg1]\n"
	"	svc #0\n"
	"	.globl \\name\\()_sysret\n"
	"\\name\\()_sysret:\n"
	"	ret\n"
	".endm\n"

	".text\n"
	".globl bt_heavy\n"
	".type bt_heavy, %function\n"
	"bt_heavy:\n"
	".cfi_startproc\n"
	"	hint #34\n"
	"	b 2f\n"
	"	.rept " BT_XSTR(BT_PAIRS) "\n"
	"	str x1, [sp, #-16]!\n"
	"	.cfi_adjust_cfa_offset 16\n"
	"	ldr x1, [sp], #16\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	.endr\n"
	"2:	bt_body bt_heavy\n"
	".cfi_endproc\n"
	".size bt_heavy, . - bt_heavy\n"

	".globl bt_light\n"
	".type bt_light, %function\n"
	"bt_light:\n"
	".cfi_startproc\n"
	"	hint #34\n"
	"	bt_body bt_light\n"
	".cfi_endproc\n"
	".size bt_light, . - bt_light\n"
	".purgem bt_body\n"

	/*
	 * bt_enter(depth, fn): call fn(depth) with x29 0, so that the frame
	 * pointer unwinder stops in fn's frames.
	 */
	".globl bt_enter\n"
	".type bt_enter, %function\n"
	"bt_enter:\n"
	".cfi_startproc\n"
	"	hint #34\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	.cfi_adjust_cfa_offset 16\n"
	"	.cfi_offset x29, -16\n"
	"	.cfi_offset x30, -8\n"
	"	mov x29, xzr\n"
	"	blr x1\n"
	"	.globl bt_enter_ret\n"
	"bt_enter_ret:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	.cfi_restore x29\n"
	"	.cfi_restore x30\n"
	"	ret\n"
	".cfi_endproc\n"
	".size bt_enter, . - bt_enter\n");
#else
#error "the test's functions are written for x86-64 and arm64"
#endif

/* The system call at the bottom of the recursion, and its arguments */
long bt_sysnr = __NR_getppid, bt_sysarg0, bt_sysarg1;

static struct sft_symtab syms;
static struct sft_self self;
static struct sft_perf ev = { .fd = -1 };

/* The recursion, from a C function of its own: the frame below bt_enter */
static SFT_FN long bt_call(const char *fn, long depth)
{
	long r = bt_enter(depth, fn);

	SFT_KEEP(r);
	return r;
}

/* The FDE of a function of this program: its FRE count, or -1 */
static long fre_count(const char *name)
{
	const struct sft_sym *s = sft_symtab_find(&syms, name);
	struct sft_fde fde;

	if (!s || !self.has_sframe ||
	    sft_sframe_find(&self.sframe, s->start - syms.bias, &fde)) {
		ksft_print_msg("%s: no symbol or no FDE\n", name);
		return -1;
	}
	if (fde.start != s->start - syms.bias || fde.size != s->size) {
		ksft_print_msg("%s: FDE %#llx+%u, symbol %#lx+%lu\n", name,
			       (unsigned long long)fde.start, fde.size,
			       s->start - syms.bias, s->size);
		return -1;
	}
	ksft_print_msg("%s: %lu bytes, %u FREs\n", name, s->size,
		       fde.num_fres);
	return fde.num_fres;
}

static bool check_binary(void)
{
	long heavy = fre_count("bt_heavy"), light = fre_count("bt_light");

	if (self.has_sframe && self.sframe.version != SFT_SFRAME_VERSION) {
		ksft_print_msg("SFrame version %u, built for %d\n",
			       self.sframe.version, SFT_SFRAME_VERSION);
		return false;
	}
	return heavy == BT_HEAVY_FRES && light > 0 && light < 8;
}

/*
 * Run @fn @depth levels deep, with the event or without, and time the
 * call.  Return: true when the system call was made and, with the event,
 * its sample and deferred stack arrived (in @s).
 */
static SFT_FN bool bt_run(const char *fn, long depth, bool traced,
			  double *secs, struct sft_sample *s)
{
	static struct sft_sample samples[4];
	struct sft_ring_stats st;
	double t0;
	long ret;
	int n;

	if (ev.fd < 0) {
		ksft_print_msg("no perf event\n");
		return false;
	}
	if (traced && sft_perf_enable(&ev))
		return false;
	t0 = sft_now();
	ret = bt_call(fn, depth);
	*secs = sft_now() - t0;
	if (traced && sft_perf_disable(&ev))
		return false;
	n = sft_perf_collect(&ev, samples, ARRAY_SIZE(samples), &st);
	if (ret != getppid()) {
		ksft_print_msg("getppid() returned %ld through the recursion\n",
			       ret);
		return false;
	}
	if (!traced)
		return n == 0;
	if (n != 1 || st.deferred != 1 || st.lost || !samples[0].merged ||
	    samples[0].pid != (__u32)getpid() ||
	    samples[0].tid != (__u32)gettid()) {
		ksft_print_msg("%d samples, %u deferred records, %u lost, %s\n",
			       n, st.deferred, st.lost,
			       n > 0 && samples[0].merged ?
			       "merged" : "no deferred stack");
		return false;
	}
	*s = samples[0];
	return true;
}

/*
 * The stack of @depth levels of @fn, called by @caller through bt_run,
 * innermost first: the system call, the recursion, then bt_enter, bt_call,
 * bt_run, @caller and main.  Return: the number of frames.
 */
static unsigned int bt_expect(struct sft_frame *f, const char *name,
			      const char *sysret, const char *callret,
			      long depth, const char *caller)
{
	unsigned int n = 0;
	long i;

	f[n++] = (struct sft_frame){ name, (unsigned long)sysret };
	for (i = 0; i < depth; i++)
		f[n++] = (struct sft_frame){ name, (unsigned long)callret };
	f[n++] = (struct sft_frame){ "bt_enter", (unsigned long)bt_enter_ret };
	f[n++] = (struct sft_frame){ "bt_call", 0 };
	f[n++] = (struct sft_frame){ "bt_run", 0 };
	f[n++] = (struct sft_frame){ caller, 0 };
	f[n++] = (struct sft_frame){ "main", 0 };
	return n;
}

static struct sft_frame expect[BT_DEEP + BT_BELOW + 1];

static SFT_FN bool check_light(void)
{
	static struct sft_sample s;
	unsigned int n;
	double secs;

	n = bt_expect(expect, "bt_light", bt_light_sysret, bt_light_callret,
		      BT_SHALLOW, __func__);
	if (!bt_run(bt_light, BT_SHALLOW, true, &secs, &s))
		return false;
	ksft_print_msg("light, %d levels: %u frames in %.6f s\n", BT_SHALLOW,
		       s.nr, secs);
	return sft_stack_matches(&syms, expect, n, s.ips, s.nr);
}

/* Every registration of this program's section is still "ok". */
static bool regs_ok(void)
{
	struct sft_reg regs[16];
	unsigned int i, seen = 0;
	bool ok = true;
	int n;

	n = sft_regs_read(regs, ARRAY_SIZE(regs));
	for (i = 0; n > 0 && i < (unsigned int)n && i < ARRAY_SIZE(regs); i++) {
		if (regs[i].sframe_start != self.sframe_start)
			continue;
		seen++;
		if (regs[i].bad)
			ok = false;
	}
	if (!seen || !ok) {
		ksft_print_msg("%u registrations of the section, %s\n", seen,
			       ok ? "none bad" : "one bad");
		sft_regs_dump();
	}
	return seen && ok;
}

static double heavy_secs[BT_RUNS], plain_secs[BT_RUNS];
static bool heavy_ran;

/* The walks through bt_heavy: their frames, and their time */
static SFT_FN bool check_heavy(void)
{
	static struct sft_sample s;
	unsigned int n, i;
	bool ok = true;

	n = bt_expect(expect, "bt_heavy", bt_heavy_sysret, bt_heavy_callret,
		      BT_DEEP, __func__);
	/*
	 * Run 0 is not timed: its walk faults the pages of the section in,
	 * from the file, which takes seconds on a debug kernel under TCG.
	 */
	for (i = 0; i <= BT_RUNS; i++) {
		struct sft_sample dummy;
		double plain, heavy;

		if (!bt_run(bt_heavy, BT_DEEP, false, &plain, &dummy) ||
		    !bt_run(bt_heavy, BT_DEEP, true, &heavy, &s))
			return false;
		ksft_print_msg("heavy%s: %u frames, syscall %.6f s (%.6f s without the event)\n",
			       i ? "" : ", first run, not timed", s.nr, heavy,
			       plain);
		if (i) {
			heavy_secs[i - 1] = heavy;
			plain_secs[i - 1] = plain;
		}
		/* What the walk gave, all right, however far it went */
		if (!sft_stack_matches(&syms, expect, s.nr < n ? s.nr : n,
				       s.ips, s.nr) || !s.nr)
			ok = false;
	}
	heavy_ran = true;
	return ok && regs_ok();
}

static bool check_time(void)
{
	double worst = 0, plain = 1e9;
	unsigned int i;

	if (!heavy_ran)
		return false;
	for (i = 0; i < BT_RUNS; i++) {
		if (heavy_secs[i] > worst)
			worst = heavy_secs[i];
		if (plain_secs[i] < plain)
			plain = plain_secs[i];
	}
	ksft_print_msg("system call with a walk: %.3f s at most, bound %.1f s\n",
		       worst, BT_MAX_SECONDS);
	ksft_print_msg("system call without the event: %.6f s at least\n",
		       plain);
	return worst <= BT_MAX_SECONDS;
}

/*
 * The child: walks through bt_heavy, one after the other, until killed.
 * The parent's event samples the parent only, and its ring buffer is not
 * mapped in the child (perf maps it VM_DONTCOPY): the child opens its own.
 */
static __noreturn void kill_child(int fd, int tp)
{
	static struct sft_sample samples[4];
	struct sft_ring_stats st;

	ev.base = NULL;
	sft_perf_close(&ev);
	if (sft_perf_open_tracepoint(&ev, tp, true) || sft_perf_enable(&ev))
		exit(1);
	for (;;) {
		/* One byte per walk: the first tells the parent to wait. */
		if (write(fd, "w", 1) != 1)
			exit(1);
		bt_call(bt_heavy, BT_DEEP);
		/* Room in the ring for the next one */
		sft_perf_collect(&ev, samples, ARRAY_SIZE(samples), &st);
	}
}

static bool check_kill(int tp)
{
	struct timespec delay = { 0, BT_KILL_DELAY_MS * 1000000L };
	unsigned int started = 0;
	unsigned char buf[256];
	int fds[2], status = 0;
	bool dead = false;
	double t0, secs;
	ssize_t got;
	pid_t pid;

	if (pipe(fds)) {
		ksft_perror("pipe");
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		return false;
	}
	if (!pid) {
		close(fds[0]);
		kill_child(fds[1], tp);
	}
	close(fds[1]);
	/* Wait until the child starts its first walk, then some more. */
	if (read(fds[0], buf, 1) == 1)
		started++;
	nanosleep(&delay, NULL);
	t0 = sft_now();
	kill(pid, SIGKILL);
	while (!dead && sft_now() - t0 < 60) {
		dead = waitpid(pid, &status, WNOHANG) == pid;
		if (!dead)
			usleep(1000);
	}
	secs = sft_now() - t0;
	if (!dead) {
		ksft_print_msg("the child still lives %.0f s after SIGKILL\n",
			       secs);
		waitpid(pid, &status, 0);
	}
	while (started && (got = read(fds[0], buf, sizeof(buf))) > 0)
		started += got;
	close(fds[0]);
	ksft_print_msg("the child started %u walks in %d ms\n", started,
		       BT_KILL_DELAY_MS);
	ksft_print_msg("it died %.3f s after SIGKILL, bound %.1f s\n", secs,
		       BT_MAX_SECONDS);
	if (!started || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		ksft_print_msg("the child did not start, or did not die of SIGKILL (status %#x)\n",
			       status);
		return false;
	}
	return secs <= BT_MAX_SECONDS;
}

/*
 * killed: the child waits for the parent's event, then makes kill(itself,
 * SIGKILL) at the bottom of bt_heavy's recursion.
 */
static __noreturn void killed_child(int fd)
{
	char c;

	bt_sysnr = __NR_kill;
	bt_sysarg0 = getpid();
	bt_sysarg1 = SIGKILL;
	if (read(fd, &c, 1) != 1)
		exit(1);
	bt_call(bt_heavy, BT_DEEP);
	exit(2);
}

static bool check_killed(void)
{
	static struct sft_sample samples[4];
	struct sft_perf kev = { .fd = -1 };
	struct sft_ring_stats st;
	int fds[2], status = 0, tp, n;
	bool ok = false;
	double t0, secs;
	pid_t pid;

	tp = sft_tracepoint_id("syscalls", "sys_enter_kill");
	if (tp < 0 || pipe(fds)) {
		ksft_print_msg("no sys_enter_kill tracepoint, or no pipe\n");
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		return false;
	}
	if (!pid) {
		close(fds[1]);
		killed_child(fds[0]);
	}
	close(fds[0]);
	if (sft_perf_open_tracepoint_pid(&kev, tp, true, pid) ||
	    sft_perf_enable(&kev)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		sft_perf_close(&kev);
		return false;
	}
	t0 = sft_now();
	if (write(fds[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	secs = sft_now() - t0;
	close(fds[1]);
	n = sft_perf_collect(&kev, samples, ARRAY_SIZE(samples), &st);
	sft_perf_close(&kev);
	ksft_print_msg("killed: dead %.3f s after it was let go\n", secs);
	ksft_print_msg("%d samples, %u deferred records, a stack of %u frames\n",
		       n, st.deferred, n > 0 ? samples[0].nr : 0);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		ksft_print_msg("the child did not die of SIGKILL (status %#x)\n",
			       status);
		return false;
	}
	if (n != 1 || samples[0].tid != (__u32)pid)
		ksft_print_msg("not the one sample of the child's kill()\n");
	else if (samples[0].merged && samples[0].nr > 1)
		ksft_print_msg("the killed task walked %u frames\n",
			       samples[0].nr);
	else
		ok = true;
	return ok;
}

/* failslab's debugfs files, and what the case writes in them */
#define BT_FAILSLAB	"/sys/kernel/debug/failslab/"
#define BT_FAIL_TIMES	100000

static bool bt_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val);

	if (!ok)
		ksft_print_msg("cannot write %s to %s: %s\n", val, path,
			       strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

static long bt_read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return got > 0 ? strtol(buf, NULL, 10) : -1;
}

/*
 * cache: what the child tells the parent: the failures injected during
 * the walk, and the frames of its stack.
 */
struct bt_cache_report {
	long injected;
	unsigned int frames;
};

static __noreturn void cache_child(int fd, int tp)
{
	static struct sft_sample samples[4];
	struct bt_cache_report rep = { -1, 0 };
	unsigned long sf_start, sf_len, i;
	struct sft_ring_stats st;
	struct sft_reg regs[16];
	char sink;
	int fail, nregs, j, ret;
	long before;

	ev.base = NULL;
	sft_perf_close(&ev);
	if (sft_perf_open_tracepoint(&ev, tp, true) || sft_perf_enable(&ev))
		exit(1);
	/*
	 * A first walk with this program's section unregistered: it makes
	 * the deferred unwinder's buffer, not the cache of SFrame rules,
	 * and faults in the stack that the second walk reads.  The bytes of
	 * the section, read here, are in memory for the second one too.
	 */
	nregs = sft_regs_read(regs, ARRAY_SIZE(regs));
	for (j = 0; j < nregs && j < (int)ARRAY_SIZE(regs); j++) {
		if (regs[j].sframe_start != self.sframe_start)
			continue;
		ret = sft_codectl_unregister(regs[j].text_start);
		if (ret) {
			ksft_print_msg("unregistering %#lx: %s\n",
				       regs[j].text_start, strerror(-ret));
			exit(1);
		}
	}
	bt_call(bt_light, BT_SHALLOW);
	sft_perf_collect(&ev, samples, ARRAY_SIZE(samples), &st);
	for (j = 0; j < nregs && j < (int)ARRAY_SIZE(regs); j++) {
		if (regs[j].sframe_start != self.sframe_start)
			continue;
		ret = sft_codectl_register(regs[j].text_start, regs[j].text_end,
					   regs[j].sframe_start,
					   regs[j].sframe_end);
		if (ret) {
			ksft_print_msg("registering %#lx-%#lx again: %s\n",
				       regs[j].text_start, regs[j].text_end,
				       strerror(-ret));
			exit(1);
		}
	}
	sf_start = self.sframe_start;
	sf_len = self.sframe_end - self.sframe_start;
	for (i = 0; i < sf_len; i += 64) {
		sink = __atomic_load_n((char *)(sf_start + i),
				       __ATOMIC_RELAXED);
		asm volatile("" : : "r" (sink));
	}

	fail = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	before = bt_read_long(BT_FAILSLAB "times");
	if (fail < 0 || before <= 0) {
		ksft_print_msg("make-it-fail: %s; failslab times %ld\n",
			       fail < 0 ? strerror(errno) : "open", before);
		exit(1);
	}
	/* From here to the write of 0, every slab allocation fails. */
	if (write(fail, "1", 1) != 1)
		exit(1);
	bt_call(bt_light, BT_SHALLOW);
	if (write(fail, "0", 1) != 1)
		exit(1);
	rep.injected = before - bt_read_long(BT_FAILSLAB "times");
	if (sft_perf_collect(&ev, samples, ARRAY_SIZE(samples), &st) == 1 &&
	    samples[0].merged)
		rep.frames = samples[0].nr;
	if (write(fd, &rep, sizeof(rep)) != sizeof(rep))
		exit(1);
	fflush(stdout);
	exit(0);
}

static bool check_cache(int tp)
{
	/* Written in this order, the probability last: no one else fails */
	static const char *const settings[][2] = {
		{ "task-filter", "Y" }, { "ignore-gfp-wait", "N" },
		{ "cache-filter", "N" }, { "space", "0" }, { "interval", "1" },
		{ "verbose", "0" }, { "times", BT_XSTR(BT_FAIL_TIMES) },
		{ "probability", "100" },
	};
	char path[ARRAY_SIZE(settings)][64], saved[ARRAY_SIZE(settings)][32];
	struct bt_cache_report rep = { -1, 0 };
	int fds[2], status = 0, fd;
	bool ok = true;
	unsigned int i;
	ssize_t got;
	pid_t pid;

	if (access(BT_FAILSLAB "probability", W_OK)) {
		ksft_print_msg("no %s: CONFIG_FAILSLAB, debugfs?\n",
			       BT_FAILSLAB);
		return false;
	}
	for (i = 0; ok && i < ARRAY_SIZE(settings); i++) {
		snprintf(path[i], sizeof(path[i]), BT_FAILSLAB "%s",
			 settings[i][0]);
		fd = open(path[i], O_RDONLY | O_CLOEXEC);
		got = fd >= 0 ? read(fd, saved[i], sizeof(saved[i]) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (got <= 0) {
			ksft_print_msg("cannot read %s\n", path[i]);
			return false;
		}
		saved[i][got] = 0;
	}
	for (i = 0; ok && i < ARRAY_SIZE(settings); i++)
		ok = bt_write(path[i], settings[i][1]);
	if (ok && pipe(fds))
		ok = false;
	if (ok) {
		fflush(stdout);
		pid = fork();
		if (!pid) {
			close(fds[0]);
			cache_child(fds[1], tp);
		}
		close(fds[1]);
		if (pid < 0 || read(fds[0], &rep, sizeof(rep)) != sizeof(rep))
			ok = false;
		close(fds[0]);
		if (pid > 0)
			waitpid(pid, &status, 0);
	}
	/* As it was, in the reverse order: the probability first */
	for (i = ARRAY_SIZE(settings); i-- > 0;)
		bt_write(path[i], saved[i]);
	if (!ok || !WIFEXITED(status) || WEXITSTATUS(status)) {
		ksft_print_msg("the child did not run its walks (status %#x)\n",
			       status);
		return false;
	}
	ksft_print_msg("cache: %ld allocations failed in a walk of %u frames\n",
		       rep.injected, rep.frames);
	return rep.frames >= BT_SHALLOW && rep.injected == 0;
}

int main(int argc, char **argv)
{
	int tp;

	SFT_PROBE_MAIN(argc, argv);

	ksft_print_header();
	ksft_set_plan(7);
	ksft_print_msg("%s: %d levels of a function with %d FREs, SFrame V%d\n",
		       argv[0], BT_DEEP, BT_HEAVY_FRES, SFT_SFRAME_VERSION);

	if (sft_symtab_load_self(&syms) || sft_self_load(&self, &syms))
		ksft_exit_fail_msg("cannot read this program's ELF image\n");
	ksft_test_result(check_binary(),
			 "binary: bt_heavy has one FDE of %d FREs, bt_light one of a few\n",
			 BT_HEAVY_FRES);

	/* Without the event, every case below fails. */
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&ev, tp, true))
		ksft_print_msg("no perf event with deferred callchains\n");
	ksft_test_result(check_light(),
			 "light: %d levels of bt_light, then their callers, every frame at its address\n",
			 BT_SHALLOW);
	ksft_test_result(check_heavy(),
			 "heavy: every frame of the walks through %d levels of bt_heavy is right; the section is still ok\n",
			 BT_DEEP);
	ksft_test_result(check_time(),
			 "time: one walk through %d levels of a %d-FRE function takes less than %.1f s\n",
			 BT_DEEP, BT_HEAVY_FRES, BT_MAX_SECONDS);
	ksft_test_result(check_kill(tp),
			 "SIGKILL: a task in such walks dies within %.1f s\n",
			 BT_MAX_SECONDS);
	ksft_test_result(check_killed(),
			 "killed: a task killed before its walk does not walk\n");
	ksft_test_result(check_cache(tp),
			 "cache: a walk through SFrame allocates nothing\n");

	sft_perf_close(&ev);
	sft_self_free(&self);
	sft_symtab_free(&syms);
	ksft_finished();
}
