// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict on a corrupt SFrame section: which registration it hits, and
 * what it tells the kernel log.
 *
 * When a lookup finds a section corrupt, the kernel stops using that
 * registration: /proc/<pid>/sframe shows it "bad".  A lookup works on a
 * copy of the registration it found, without locks, while the process may
 * unregister the section and register it again at the same addresses.  A
 * verdict computed from the old copy must not hit the new registration.
 * And the verdict must not be printed: any process can make as many as it
 * likes.
 *
 * The test writes its own code and sections: vd_code, a page-aligned copy
 * of a small function that makes a getppid system call, 64 KiB into an
 * executable mapping (a jump over int3 or udf padding gets there), and SFrame
 * sections for it, written with the writer of the decoder's tests
 * (tools/testing/sframe/sfw.c) and registered with codectl(2).  The
 * function's one FDE has its FREs in the padding, one at each byte, then
 * the one of the system call, then one more after it.  A perf event asks
 * for the deferred user callchain of each getppid; the kernel unwinds it
 * before the system call returns, looking up the system call's address,
 * which lies past all FREs but the last: the lookup reads the FDE, scans
 * every FRE, and reads the last one to see that it starts past that
 * address.  Two FDE sizes:
 *
 *	valid	the function's size: every FRE starts in the function;
 *	corrupt	two bytes less: the system call is still in the function,
 *		but its last FRE starts past the end; the scan finds that at
 *		its very end, the section is corrupt.
 *
 * Only the FDE's size changes from one to the other, and the lookup reads
 * it first, long before its verdict in a section of 65,535 FREs.
 *
 * 1. sections: the valid sections give the stack (the function, then its
 *    caller); unregistered, or corrupt, the stack stops at the function
 *    (the frame pointer is 0 there, the frame pointer unwinder gets
 *    nothing), and the
 *    corrupt registration shows "bad".
 * 2. generation: one thread makes the system calls, one at a time; the
 *    other, in each cycle, registers the long section corrupt (registration
 *    A), waits until the system call is under way and its lookup has read
 *    the FDE, makes the section valid, unregisters A and registers it
 *    again (registration B, valid in every byte from its start), then
 *    checks B once the system call returned.  The lookup, through A, reads
 *    the corrupt size, scans for milliseconds, and finds the section
 *    corrupt after B replaced A.  A kernel that named the registration by
 *    its addresses -- the same for A and B -- marked B bad; one that names
 *    it by generation drops the stale verdict.  B must never be "bad", and
 *    the cycles where the lookup's verdict came after B are counted: at
 *    least one must have, or the race was not run.
 * 3. log: the short section, corrupt, registered, found corrupt and
 *    unregistered again, over and over for 6 s -- longer than the window of
 *    printk_ratelimit() -- must leave no line in /dev/kmsg, read from where
 *    it was when the test started.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "sframe_lib.h"
#include "sframe_codectl.h"
#include "sfw.h"

/* Where the function starts in the mapping: past 2^16 FRE start offsets */
#define VD_BODY		0x10000
/* The function, from VD_BODY: its bytes and offsets */
#if defined(__x86_64__)
#define VD_PUSHED	1		/* after push %rbp */
#define VD_SYSRET	10		/* after the system call */
#define VD_POPPED	12		/* after pop %rbp */
#define VD_LEN		13
#define VD_ABI		SFW_ABI_AMD64_LE
#elif defined(__aarch64__)
#define VD_PUSHED	4		/* after stp x29, x30 */
#define VD_SYSRET	16		/* after the system call */
#define VD_POPPED	24		/* after ldp x29, x30 */
#define VD_LEN		28
#define VD_ABI		SFW_ABI_AARCH64_LE
#else
#error "the test's code is written for x86-64 and arm64"
#endif
#define VD_SIZE_VALID	(VD_BODY + VD_LEN)
#define VD_SIZE_CORRUPT	(VD_BODY + VD_SYSRET + 1)

/* FREs of the long section: the most an FDE has, for a long scan */
#define VD_LONG_FRES	65535
/* ... and of the short one: the first, the system call's, the last */
#define VD_SHORT_FRES	3

#define RACE_SECONDS	3.0
#define LOG_SECONDS	6.0
/* Corrupt registrations the log case makes at least */
#define LOG_MIN		100
/* How long a thread waits for the other one, at most */
#define WAIT_SECONDS	30.0

#if defined(__x86_64__)
static const unsigned char vd_body[VD_LEN] = {
	0x55,				/* push %rbp */
	0x31, 0xed,			/* xor %ebp, %ebp */
	0xb8, 0, 0, 0, 0,		/* mov $__NR_getppid, %eax */
	0x0f, 0x05,			/* syscall */
	0x90,				/* nop */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};

#define VD_SYSNR	4		/* the system call number: imm32 */
#define VD_PAD		0xcc		/* int3 */
#else
static const __u32 vd_body[VD_LEN / 4] = {
	0xa9bf7bfd,			/* stp x29, x30, [sp, #-16]! */
	0xaa1f03fd,			/* mov x29, xzr */
	0xd2800008,			/* mov x8, #__NR_getppid */
	0xd4000001,			/* svc #0 */
	0xd503201f,			/* nop */
	0xa8c17bfd,			/* ldp x29, x30, [sp], #16 */
	0xd65f03c0,			/* ret */
};

#define VD_SYSNR	8		/* the system call number: imm16 << 5 */
#define VD_PAD		0		/* udf #0 */
#endif

/* Room for a section of this many FREs: they take 7 bytes at most */
#define VD_SEC_ROOM(fres)	((size_t)(fres) * 8 + 4096)

/* A section for the code */
struct vd_sec {
	unsigned char *base;
	size_t len, room;
	unsigned char *fde_size;	/* the size field of its FDE */
};

static struct sft_symtab syms;
static struct sft_perf ev = { .fd = -1, .tp_id = -1 };
static unsigned char *vd_code;
static long (*vd_fn)(void);
static size_t vd_code_len;
static struct vd_sec long_sec, short_sec;
static int kmsg = -1;

static void nap(double secs)
{
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - (time_t)secs) * 1e9),
	};

	nanosleep(&ts, NULL);
}

/*
 * One mapping for the code and, after it, the two sections: a V2 FDE
 * gives the function's start in 32 bits, relative to the FDE.
 */
static int map_code(void)
{
	long page = sysconf(_SC_PAGESIZE);
	__u32 nr = __NR_getppid;
	unsigned char *p;
	size_t len;

	vd_code_len = (VD_SIZE_VALID + page - 1) & ~(page - 1);
	long_sec.room = (VD_SEC_ROOM(VD_LONG_FRES) + page - 1) & ~(page - 1);
	short_sec.room = (VD_SEC_ROOM(VD_SHORT_FRES) + page - 1) & ~(page - 1);
	len = vd_code_len + long_sec.room + short_sec.room;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ksft_perror("mmap");
		return -1;
	}
	long_sec.base = p + vd_code_len;
	short_sec.base = long_sec.base + long_sec.room;

	/* A jump to the function's body, padding up to it */
	memset(p, VD_PAD, VD_BODY);
	memcpy(p + VD_BODY, vd_body, VD_LEN);
#if defined(__x86_64__)
	p[0] = 0xe9;			/* jmp rel32 */
	sfw_put(p + 1, VD_BODY - 5, 4);
	memcpy(p + VD_BODY + VD_SYSNR, &nr, sizeof(nr));
#else
	sfw_put(p, 0x14000000 | VD_BODY / 4, 4);	/* b VD_BODY */
	sfw_put(p + VD_BODY + VD_SYSNR, vd_body[VD_SYSNR / 4] | nr << 5, 4);
#endif
	__builtin___clear_cache((char *)p, (char *)p + vd_code_len);
	if (mprotect(p, vd_code_len, PROT_READ | PROT_EXEC)) {
		ksft_perror("mprotect(PROT_READ | PROT_EXEC)");
		return -1;
	}
	vd_code = p;
	vd_fn = (void *)(p + VD_BODY);
	return 0;
}

/*
 * A section with one FDE for the code, valid, and @n FREs: n - 2 of them
 * in the padding, one at each byte from the start (x86-64: CFA = %rsp + 8;
 * arm64: CFA = SP, the return address in the link register), then after
 * the push (CFA = SP + 16, the frame pointer saved at CFA - 16; arm64: the
 * return address at CFA - 8), then after the pop (as at the start).
 */
static int write_sec(struct vd_sec *vs, unsigned int n)
{
	struct sfw_fre *fres;
	struct sfw_fde fde;
	struct sfw_sec s;
	unsigned int i;

	fres = calloc(n, sizeof(*fres));
	if (!fres)
		return -1;
#if defined(__x86_64__)
	for (i = 0; i < n - 2; i++)
		fres[i] = sfw_fre(i, false, 1, 8);
	fres[n - 2] = sfw_fre(VD_BODY + VD_PUSHED, false, 2, 16, -16);
	fres[n - 1] = sfw_fre(VD_BODY + VD_POPPED, false, 1, 8);
#else
	for (i = 0; i < n - 2; i++)
		fres[i] = sfw_fre(i, false, 1, 0);
	fres[n - 2] = sfw_fre(VD_BODY + VD_PUSHED, false, 3, 16, -8, -16);
	fres[n - 1] = sfw_fre(VD_BODY + VD_POPPED, false, 1, 0);
#endif

	sfw_fde_init(&fde, (unsigned long)vd_code, VD_SIZE_VALID, fres, n);
	sfw_sec_init(&s, SFT_SFRAME_VERSION, VD_ABI,
		     (unsigned long)vs->base, &fde, 1);
	vs->len = sfw_write(&s, vs->base, vs->room);
	free(fres);
	if (!vs->len) {
		ksft_print_msg("the section does not fit in %zu bytes\n",
			       vs->room);
		return -1;
	}
	/* The size follows the start: a 4-byte one in V2, 8 in V3. */
	vs->fde_size = vs->base + fde.off + (SFT_SFRAME_VERSION == 2 ? 4 : 8);
	return 0;
}

static void set_size(struct vd_sec *vs, __u32 size)
{
	/* The lookup on the other CPU reads it with a plain load. */
	__atomic_store_n((__u32 *)vs->fde_size, size, __ATOMIC_SEQ_CST);
}

static int reg(struct vd_sec *vs)
{
	int ret = sft_codectl_register((unsigned long)vd_code,
				       (unsigned long)vd_code + vd_code_len,
				       (unsigned long)vs->base,
				       (unsigned long)vs->base + vs->len);

	if (ret)
		ksft_print_msg("codectl(REGISTER_SFRAME): %s\n", strerror(-ret));
	return ret;
}

static int unreg(void)
{
	int ret = sft_codectl_unregister((unsigned long)vd_code);

	if (ret)
		ksft_print_msg("codectl(UNREGISTER): %s\n", strerror(-ret));
	return ret;
}

/* The registration of the code: 1 "bad", 0 "ok", -1 none or unreadable */
static int reg_state(void)
{
	struct sft_reg regs[16];
	const struct sft_reg *r;
	int n;

	n = sft_regs_read(regs, ARRAY_SIZE(regs));
	if (n < 0)
		return -1;
	if (n > (int)ARRAY_SIZE(regs))
		n = ARRAY_SIZE(regs);
	r = sft_regs_find(regs, n, (unsigned long)vd_code);
	return r ? r->bad : -1;
}

/* The code's caller: the frame below it */
static SFT_FN long vd_call(void)
{
	long r = vd_fn();

	SFT_KEEP(r);
	return r;
}

enum vd_stack {
	VD_BROKEN,	/* no sample or no deferred stack */
	VD_SFRAME,	/* the code, then vd_call: its rule was found */
	VD_STOPPED,	/* the code only: no rule for it */
	VD_OTHER,	/* anything else */
};

static const char * const vd_stack_names[] = {
	"broken", "unwound", "stopped", "other",
};

/*
 * Call the code under the event; its stack, and when the system call was
 * made and returned (the deferred walk is done by then).  *@missed: the
 * event missed the system call and was opened again (sft_perf_missed()).
 */
static enum vd_stack vd_unwind_once(double *t_enter, double *t_exit,
				    bool *missed)
{
	static struct sft_sample samples[4];
	const struct sft_sample *s = &samples[0];
	unsigned long sysret = (unsigned long)vd_code + VD_BODY + VD_SYSRET;
	const struct sft_sym *caller;
	struct sft_ring_stats st;
	long ret;
	int n;

	if (sft_perf_enable(&ev))
		return VD_BROKEN;
	*t_enter = sft_now();
	ret = vd_call();
	*t_exit = sft_now();
	if (sft_perf_disable(&ev))
		return VD_BROKEN;
	n = sft_perf_collect(&ev, samples, ARRAY_SIZE(samples), &st);
	if (ret != getppid() || n != 1 || st.deferred != 1 || st.lost ||
	    !s->merged || s->tid != (__u32)gettid() || !s->nr) {
		ksft_print_msg("getppid %ld, %d samples, %u deferred records, %u lost\n",
			       ret, n, st.deferred, st.lost);
		if (n)
			sft_perf_print_count(&ev);
		else
			*missed = sft_perf_missed(&ev);
		return VD_BROKEN;
	}
	if (s->ips[0] != sysret)
		return VD_OTHER;
	if (s->nr == 1)
		return VD_STOPPED;
	caller = sft_symtab_lookup(&syms, s->ips[1] - 1);
	return caller && !strcmp(caller->name, "vd_call") ? VD_SFRAME :
							      VD_OTHER;
}

/* vd_unwind_once(), once more if the event missed the system call */
static enum vd_stack vd_unwind(double *t_enter, double *t_exit)
{
	bool missed = false;
	enum vd_stack v = vd_unwind_once(t_enter, t_exit, &missed);

	if (missed)
		v = vd_unwind_once(t_enter, t_exit, &missed);
	return v;
}

/* Register @vs with size @size, unwind, check the stack and the state */
static bool expect_stack(struct vd_sec *vs, __u32 size, enum vd_stack want,
			 int state, const char *what)
{
	enum vd_stack got;
	double t0, t1;
	bool ok;
	int now_state;

	set_size(vs, size);
	if (reg(vs))
		return false;
	got = vd_unwind(&t0, &t1);
	now_state = reg_state();
	ok = got == want && now_state == state;
	ksft_print_msg("%s: %s stack in %.6f s, registration %s%s\n", what,
		       vd_stack_names[got], t1 - t0,
		       now_state < 0 ? "none" : now_state ? "bad" : "ok",
		       ok ? "" : ": NOT as expected");
	if (unreg())
		ok = false;
	return ok;
}

static bool check_sections(void)
{
	double t0, t1;
	bool ok = true;
	enum vd_stack got;

	ok &= expect_stack(&long_sec, VD_SIZE_VALID, VD_SFRAME, 0,
			   "long section, valid");
	ok &= expect_stack(&short_sec, VD_SIZE_VALID, VD_SFRAME, 0,
			   "short section, valid");
	ok &= expect_stack(&long_sec, VD_SIZE_CORRUPT, VD_STOPPED, 1,
			   "long section, corrupt");
	ok &= expect_stack(&short_sec, VD_SIZE_CORRUPT, VD_STOPPED, 1,
			   "short section, corrupt");
	got = vd_unwind(&t0, &t1);
	ksft_print_msg("nothing registered: %s stack\n", vd_stack_names[got]);
	return ok && got == VD_STOPPED;
}

/* The race: the thread that flips the registrations, and the one unwound */
static struct {
	int cycle;		/* registration A of this cycle is in place */
	int entered;		/* the system call of this cycle is under way */
	int returned;		/* ... and returned */
	int stop;
	double delay;		/* from entered to the flip */
	double t_enter, t_exit;
	enum vd_stack stack;
	/* Results */
	unsigned int cycles, stale, hit_b, errors;
	double flip_max;
} race;

static bool wait_for(int *what, int value)
{
	double end = sft_now() + WAIT_SECONDS;

	while (__atomic_load_n(what, __ATOMIC_ACQUIRE) != value) {
		if (__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE) ||
		    sft_now() > end)
			return false;
		sched_yield();
	}
	return true;
}

static void *flipper(void *arg)
{
	double end = sft_now() + RACE_SECONDS, t0, t1;
	bool registered = false;
	int c, state;

	(void)arg;
	for (c = 1; sft_now() < end; c++) {
		if (registered && unreg())
			break;
		registered = false;
		/* Registration A: corrupt */
		set_size(&long_sec, VD_SIZE_CORRUPT);
		if (reg(&long_sec))
			break;
		registered = true;
		__atomic_store_n(&race.cycle, c, __ATOMIC_RELEASE);
		if (!wait_for(&race.entered, c))
			break;
		/* The lookup has read the corrupt size and is scanning. */
		nap(race.delay);
		t0 = sft_now();
		set_size(&long_sec, VD_SIZE_VALID);
		if (unreg())
			break;
		registered = false;
		/* Registration B: valid */
		if (reg(&long_sec))
			break;
		registered = true;
		t1 = sft_now();
		if (!wait_for(&race.returned, c))
			break;
		race.cycles++;
		if (t1 - t0 > race.flip_max)
			race.flip_max = t1 - t0;
		/* The lookup through A ended after B was in place. */
		if (race.stack == VD_STOPPED && race.t_enter < t0 &&
		    t1 < race.t_exit)
			race.stale++;
		if (race.stack == VD_BROKEN)
			race.errors++;
		state = reg_state();
		if (state) {
			ksft_print_msg("cycle %d: registration B is %s\n", c,
				       state < 0 ? "gone" : "bad");
			ksft_print_msg("the system call took %.6f s, B came %.6f s into it\n",
				       race.t_exit - race.t_enter,
				       t1 - race.t_enter);
			race.hit_b++;
		}
	}
	if (registered)
		unreg();
	__atomic_store_n(&race.stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool check_generation(void)
{
	double t0, t1, shortest = 1e9;
	pthread_t thread;
	int c, i, err;

	/* How long a lookup through the valid long section takes */
	set_size(&long_sec, VD_SIZE_VALID);
	if (reg(&long_sec))
		return false;
	for (i = 0; i < 3; i++) {
		if (vd_unwind(&t0, &t1) != VD_SFRAME) {
			unreg();
			return false;
		}
		if (t1 - t0 < shortest)
			shortest = t1 - t0;
	}
	if (unreg())
		return false;
	/* The flip comes a quarter into it, during the scan. */
	race.delay = shortest / 4;
	ksft_print_msg("system call unwound through the long section: %.6f s\n",
		       shortest);
	ksft_print_msg("the flip comes %.6f s into it\n", race.delay);

	err = pthread_create(&thread, NULL, flipper, NULL);
	if (err) {
		ksft_print_msg("pthread_create: %s\n", strerror(err));
		return false;
	}
	for (c = 1; wait_for(&race.cycle, c); c++) {
		__atomic_store_n(&race.entered, c, __ATOMIC_RELEASE);
		race.stack = vd_unwind(&race.t_enter, &race.t_exit);
		__atomic_store_n(&race.returned, c, __ATOMIC_RELEASE);
	}
	pthread_join(thread, NULL);
	ksft_print_msg("%u cycles in %.0f s, each flip within %.6f s\n",
		       race.cycles, RACE_SECONDS, race.flip_max);
	ksft_print_msg("in %u, the verdict of the lookup through A came after B\n",
		       race.stale);
	if (race.hit_b || race.errors)
		ksft_print_msg("B bad or gone after %u cycles; %u broken samples\n",
			       race.hit_b, race.errors);
	if (!race.stale)
		ksft_print_msg("no verdict through A came after B: the race was not run\n");
	return race.cycles && !race.hit_b && !race.errors && race.stale;
}

/* Does a kernel log line speak of what this test did? */
static bool about_us(const char *line)
{
	static const char * const words[] = { "sframe", "corrupt", "codectl" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasestr(line, words[i]))
			return true;
	return false;
}

static bool check_log(void)
{
	unsigned int made = 0, bad = 0, lines = 0, ours = 0;
	double end = sft_now() + LOG_SECONDS, t0, t1;
	char rec[8192];
	ssize_t n;

	if (kmsg < 0)
		return false;
	while (sft_now() < end || made < LOG_MIN) {
		set_size(&short_sec, VD_SIZE_CORRUPT);
		if (reg(&short_sec))
			return false;
		made++;
		if (vd_unwind(&t0, &t1) == VD_STOPPED && reg_state() == 1)
			bad++;
		if (unreg())
			return false;
	}
	ksft_print_msg("%u corrupt registrations, %u found corrupt and shown bad\n",
		       made, bad);

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records lost to newer ones */
		if (n <= 0)
			break;
		rec[n] = '\0';
		lines++;
		if (about_us(rec)) {
			ours++;
			ksft_print_msg("kernel log: %s", rec);
		}
	}
	if (n < 0 && errno != EAGAIN) {
		ksft_perror("read(/dev/kmsg)");
		return false;
	}
	ksft_print_msg("%u kernel log lines since the test started, %u about it\n",
		       lines, ours);
	return made == bad && !ours;
}

int main(int argc, char **argv)
{
	int tp;

	SFT_PROBE_MAIN(argc, argv);

	/* The log from here on is the test's */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		ksft_perror("/dev/kmsg");

	ksft_print_header();
	ksft_set_plan(3);
	ksft_print_msg("%s: SFrame V%d sections of %d and %d FREs, registered with codectl\n",
		       argv[0], SFT_SFRAME_VERSION, VD_LONG_FRES, VD_SHORT_FRES);

	if (sft_symtab_load_self(&syms))
		ksft_exit_fail_msg("cannot read this program's symbols\n");
	/* Without the event, every case fails. */
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&ev, tp, true))
		ksft_print_msg("no perf event with deferred callchains\n");
	if (map_code() || write_sec(&long_sec, VD_LONG_FRES) ||
	    write_sec(&short_sec, VD_SHORT_FRES))
		ksft_exit_fail_msg("cannot make the code and its sections\n");

	ksft_test_result(check_sections(),
			 "sections: the valid ones give the stack, the corrupt ones are found corrupt\n");
	ksft_test_result(check_generation(),
			 "generation: a verdict on a replaced registration never hits its valid successor at the same addresses\n");
	ksft_test_result(check_log(),
			 "log: corrupt sections, found corrupt again and again, leave no line in the kernel log\n");

	sft_perf_close(&ev);
	sft_symtab_free(&syms);
	ksft_finished();
}
