// SPDX-License-Identifier: GPL-2.0
/*
 * A registry changed between two system calls: the stack of the second one
 * follows the new section, never the one it replaced.
 *
 * The test writes its own code, two functions in an executable mapping
 * (x86-64):
 *
 *	outer:	push %rbp; push $0; lea marker(%rip), %rax; push %rax;
 *		call inner; add $16, %rsp; pop %rbp; ret
 *	inner:	xor %ebp, %ebp; mov $__NR_getppid, %eax; syscall; ret
 *	marker:	int3 (never run)
 *
 * and two valid SFrame sections for them, written with the writer of the
 * decoder's tests and registered with codectl(2) for the same text:
 *
 *	S1	the truth: outer's CFA follows its three pushes; the stack of
 *		the system call is inner, outer, vd_call (the C caller), ...
 *	S2	outer's CFA is SP + 8 everywhere: the walk takes the word
 *		that outer pushed last, marker, for outer's return address;
 *		no section covers marker, the frame pointer is 0 there, and
 *		the stack is exactly inner, outer, marker.
 *
 * Without a registration the stack is inner alone (%rbp is 0).  The
 * second frame, outer, is below the topmost one, so its rule goes through
 * the per-CPU cache of rules (kernel/unwind/user.c) as well as through
 * the registry; the first is always looked up.
 *
 * A perf event samples each getppid of the thread at sys_enter_getppid
 * with a deferred user callchain, unwound on the way back to user space.
 *
 * 1. sequential: one thread calls, switches the registration (unregister,
 *    register the other section), calls again, switches back, and so on,
 *    SEQ_CALLS times.  Every stack must be the one of the section
 *    registered when the system call was made, and no two system calls may
 *    share a cookie.
 * 2. concurrent: another thread switches the registration, with pauses,
 *    while this one calls.  A stack is unwound on the way back to user
 *    space, before the call returns, with the registry as it is then.  So
 *    every stack must be that of a section in place at some time between
 *    the call's start and its return (CLOCK_MONOTONIC, one clock for both
 *    threads), or none, or a mix of two (its frames looked up before and
 *    after a switch) when a switch overlapped the call; and a call that no
 *    switch overlapped must get the section in place.  Sampled at the
 *    system call's entry, a call that began after a switch may still get
 *    the section that switch replaced: the next switch, which puts it back,
 *    came before the call returned.  Those are counted, and each must have
 *    been overlapped by the next switch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "sframe_lib.h"
#include "sframe_codectl.h"
#include "sfw.h"

/*
 * System calls of the sequential case, one switch between any two: one
 * stack in a hundred wrong makes 20 on average, none with odds of e^-20.
 */
#define SEQ_CALLS	2000
/*
 * How long the other thread switches in the concurrent case: at least
 * RACE_SECONDS and RACE_CALLS calls, at most RACE_MAX_SECONDS.
 */
#define RACE_SECONDS	6.0
#define RACE_CALLS	2500
#define RACE_MAX_SECONDS	20.0
/* The longest pause between two switches, in ms */
#define RACE_PAUSE_MS	60
/* Calls that no switch overlapped, at least */
#define RACE_MIN_CLEAN	500
#define RACE_MAX_CALLS	200000
#define RACE_MAX_FLIPS	400000
/* System calls between two reads of the ring buffer */
#define BATCH		64

#if defined(__x86_64__)
/* The code: offsets in the mapping */
#define SW_OUTER	0
#define SW_OUTER_RET	16		/* after call inner */
#define SW_OUTER_LEN	22
#define SW_INNER	32
#define SW_INNER_SYSRET	9		/* after the system call */
#define SW_INNER_LEN	10
#define SW_MARKER	48

static const unsigned char sw_outer[SW_OUTER_LEN] = {
	0x55,					/* 0: push %rbp */
	0x6a, 0x00,				/* 1: push $0 */
	0x48, 0x8d, 0x05, 0, 0, 0, 0,		/* 3: lea marker(%rip), %rax */
	0x50,					/* 10: push %rax */
	0xe8, 0, 0, 0, 0,			/* 11: call inner */
	0x48, 0x83, 0xc4, 0x10,			/* 16: add $16, %rsp */
	0x5d,					/* 20: pop %rbp */
	0xc3,					/* 21: ret */
};

static const unsigned char sw_inner[SW_INNER_LEN] = {
	0x31, 0xed,				/* 0: xor %ebp, %ebp */
	0xb8, 0, 0, 0, 0,			/* 2: mov $nr, %eax */
	0x0f, 0x05,				/* 7: syscall */
	0xc3,					/* 9: ret */
};

/* Which stack a system call got */
enum sw_stack {
	SW_BROKEN,	/* no sample, or no deferred stack */
	SW_NONE,	/* inner only: nothing registered */
	SW_S1,		/* inner, outer, vd_call: the true section */
	SW_S2,		/* inner, outer, marker: the other one */
	SW_OTHER,
	SW_TORN,	/* inner, outer: outer's rule not found */
	SW_NR,
};

static const char * const sw_names[SW_NR] = {
	"broken", "none", "S1", "S2", "other", "torn",
};

struct sw_sec {
	unsigned char *base;
	size_t len;
};

static struct sft_symtab syms;
static struct sft_perf ev = { .fd = -1 };
static unsigned char *sw_code;
static size_t sw_code_len;
static long (*sw_fn)(void);
static struct sw_sec sec[SW_NR];	/* [SW_S1] and [SW_S2] */
/* getppid(), read before the event: the event samples every getppid */
static long ppid;

static void sw_put32(unsigned char *p, __s32 v)
{
	memcpy(p, &v, sizeof(v));
}

/* The code, then the two sections, in one mapping: V2 FDEs are PC-relative */
static int map_code(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *p;
	size_t len;

	sw_code_len = page;
	len = sw_code_len + 2 * page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ksft_perror("mmap");
		return -1;
	}
	memset(p, 0xcc, sw_code_len);		/* int3 */
	memcpy(p + SW_OUTER, sw_outer, sizeof(sw_outer));
	memcpy(p + SW_INNER, sw_inner, sizeof(sw_inner));
	/* lea marker(%rip): relative to the next instruction, at 10 */
	sw_put32(p + SW_OUTER + 6, SW_MARKER - (SW_OUTER + 10));
	/* call inner: relative to the return address */
	sw_put32(p + SW_OUTER + 12, SW_INNER - (SW_OUTER + SW_OUTER_RET));
	sw_put32(p + SW_INNER + 3, __NR_getppid);
	if (mprotect(p, sw_code_len, PROT_READ | PROT_EXEC)) {
		ksft_perror("mprotect(PROT_READ | PROT_EXEC)");
		return -1;
	}
	sw_code = p;
	sw_fn = (void *)(p + SW_OUTER);
	sec[SW_S1].base = p + sw_code_len;
	sec[SW_S2].base = p + sw_code_len + page;
	return 0;
}

/*
 * S1 (@truth) or S2.  FREs give the CFA offset from SP, and the FP's
 * offset from the CFA when it is saved; AMD64's RA is at CFA - 8.
 */
static int write_sec(struct sw_sec *s, bool truth)
{
	struct sfw_fre outer_true[] = {
		sfw_fre(0, false, 1, 8),
		sfw_fre(1, false, 2, 16, -16),	/* push %rbp */
		sfw_fre(3, false, 2, 24, -16),	/* push $0 */
		sfw_fre(11, false, 2, 32, -16),	/* push %rax */
		sfw_fre(20, false, 2, 16, -16),	/* add $16, %rsp */
		sfw_fre(21, false, 1, 8),	/* pop %rbp */
	};
	struct sfw_fre outer_false[] = {
		sfw_fre(0, false, 1, 8),
	};
	struct sfw_fre inner[] = {
		sfw_fre(0, false, 1, 8),
	};
	struct sfw_fde fdes[2];
	struct sfw_sec ss;

	if (truth)
		sfw_fde_init(&fdes[0], (unsigned long)sw_code + SW_OUTER,
			     SW_OUTER_LEN, outer_true,
			     ARRAY_SIZE(outer_true));
	else
		sfw_fde_init(&fdes[0], (unsigned long)sw_code + SW_OUTER,
			     SW_OUTER_LEN, outer_false,
			     ARRAY_SIZE(outer_false));
	sfw_fde_init(&fdes[1], (unsigned long)sw_code + SW_INNER,
		     SW_INNER_LEN, inner, ARRAY_SIZE(inner));
	sfw_sec_init(&ss, SFT_SFRAME_VERSION, SFW_ABI_AMD64_LE,
		     (unsigned long)s->base, fdes, ARRAY_SIZE(fdes));
	s->len = sfw_write(&ss, s->base, sysconf(_SC_PAGESIZE));
	if (!s->len) {
		ksft_print_msg("the section does not fit in a page\n");
		return -1;
	}
	return 0;
}

static int reg(enum sw_stack which)
{
	int ret = sft_codectl_register((unsigned long)sw_code,
				       (unsigned long)sw_code + sw_code_len,
				       (unsigned long)sec[which].base,
				       (unsigned long)sec[which].base +
				       sec[which].len);

	if (ret)
		ksft_print_msg("codectl(REGISTER_SFRAME, %s): %s\n",
			       sw_names[which], strerror(-ret));
	return ret;
}

static int unreg(void)
{
	int ret = sft_codectl_unregister((unsigned long)sw_code);

	if (ret)
		ksft_print_msg("codectl(UNREGISTER): %s\n", strerror(-ret));
	return ret;
}

/* Unregister what is there, register @which: the switch */
static int switch_to(enum sw_stack which)
{
	return unreg() ?: reg(which);
}

/* The code's C caller: the frame below outer in the true stack */
static SFT_FN long vd_call(void)
{
	long r = sw_fn();

	SFT_KEEP(r);
	return r;
}

static enum sw_stack classify(const struct sft_sample *s)
{
	unsigned long base = (unsigned long)sw_code;
	const struct sft_sym *caller;

	if (!s->merged || !s->nr)
		return SW_BROKEN;
	if (s->ips[0] != base + SW_INNER + SW_INNER_SYSRET)
		return SW_OTHER;
	if (s->nr == 1)
		return SW_NONE;
	if (s->ips[1] != base + SW_OUTER + SW_OUTER_RET)
		return SW_OTHER;
	if (s->nr == 2)
		return SW_TORN;
	if (s->nr == 3 && s->ips[2] == base + SW_MARKER)
		return SW_S2;
	caller = sft_symtab_lookup(&syms, s->ips[2] - 1);
	return caller && !strcmp(caller->name, "vd_call") ? SW_S1 : SW_OTHER;
}

static void describe(const struct sft_sample *s)
{
	char buf[256];
	unsigned int i;

	for (i = 0; i < s->nr && i < 6; i++) {
		unsigned long ip = s->ips[i];

		if (ip >= (unsigned long)sw_code &&
		    ip < (unsigned long)sw_code + sw_code_len)
			snprintf(buf, sizeof(buf), "code+0x%lx",
				 ip - (unsigned long)sw_code);
		else
			sft_describe(&syms, buf, sizeof(buf), i, ip);
		ksft_print_msg("    #%u %s\n", i, buf);
	}
}

/* The samples of the ring, in the order of the calls */
static struct sft_sample batch[BATCH + 8];

/*
 * Read the ring: @n calls must have given @n samples, each with its own
 * deferred record.  Their stacks into @got, their cookies into @cookies.
 */
static int drain(unsigned int n, enum sw_stack *got, __u64 *cookies)
{
	struct sft_ring_stats st;
	unsigned int i;
	int m;

	m = sft_perf_collect(&ev, batch, ARRAY_SIZE(batch), &st);
	if (m < 0)
		return m;
	if ((unsigned int)m != n || st.lost) {
		ksft_print_msg("%u calls, %d samples, %u deferred records, %u lost\n",
			       n, m, st.deferred, st.lost);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		got[i] = batch[i].tid == (__u32)gettid() ? classify(&batch[i]) :
							    SW_BROKEN;
		cookies[i] = batch[i].cookie;
	}
	return st.deferred;
}

/* One call of the code under the event, its stack; nothing else running */
static enum sw_stack one_call(void)
{
	enum sw_stack got;
	__u64 cookie;

	if (vd_call() != ppid || drain(1, &got, &cookie) < 0)
		return SW_BROKEN;
	if (got != SW_NONE && got != SW_S1 && got != SW_S2) {
		ksft_print_msg("unexpected stack:\n");
		describe(&batch[0]);
	}
	return got;
}

/* The three stacks are what they are meant to be, one by one. */
static bool check_baseline(void)
{
	enum sw_stack none, s1, s2;

	none = one_call();
	if (reg(SW_S1))
		return false;
	s1 = one_call();
	if (switch_to(SW_S2))
		return false;
	s2 = one_call();
	if (unreg())
		return false;
	ksft_print_msg("baseline: nothing registered: %s, S1: %s, S2: %s\n",
		       sw_names[none], sw_names[s1], sw_names[s2]);
	return none == SW_NONE && s1 == SW_S1 && s2 == SW_S2;
}

static void print_counts(const char *what, const unsigned int *c)
{
	ksft_print_msg("%s: none %u, S1 %u, S2 %u, torn %u, other %u, broken %u\n",
		       what, c[SW_NONE], c[SW_S1], c[SW_S2], c[SW_TORN],
		       c[SW_OTHER], c[SW_BROKEN]);
}

static void nap_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};

	nanosleep(&ts, NULL);
}

/*
 * One thread: call, switch, call, switch back...  Each stack must be the
 * one of the section registered at the call.
 */
static bool check_sequential(void)
{
	unsigned int counts[SW_NR] = { 0 }, stale = 0, wrong = 0, shared = 0;
	unsigned int shown = 0, done = 0, i, n, deferred = 0;
	enum sw_stack want[BATCH], got[BATCH];
	enum sw_stack cur = SW_S1;
	__u64 cookies[BATCH], last_cookie = 0;
	double t_start = sft_now();
	int ret;

	/* Whatever a failed case before left */
	sft_codectl_unregister((unsigned long)sw_code);
	if (reg(cur))
		return false;
	while (done < SEQ_CALLS) {
		for (n = 0; n < BATCH && done + n < SEQ_CALLS; n++) {
			want[n] = cur;
			if (vd_call() != ppid)
				wrong++;
			/* Between this system call and the next */
			cur = cur == SW_S1 ? SW_S2 : SW_S1;
			if (switch_to(cur))
				return false;
		}
		ret = drain(n, got, cookies);
		if (ret < 0)
			return false;
		deferred += ret;
		for (i = 0; i < n; i++) {
			counts[got[i]]++;
			if (cookies[i] == last_cookie)
				shared++;
			last_cookie = cookies[i];
			if (got[i] == want[i])
				continue;
			if ((got[i] == SW_S1 || got[i] == SW_S2))
				stale++;
			else
				wrong++;
			if (shown++ < 3) {
				ksft_print_msg("call %u: %s registered, %s stack, cookie %#llx:\n",
					       done + i, sw_names[want[i]],
					       sw_names[got[i]],
					       (unsigned long long)cookies[i]);
				describe(&batch[i]);
			}
		}
		done += n;
	}
	unreg();
	print_counts("sequential", counts);
	ksft_print_msg("in %.1f s\n", sft_now() - t_start);
	ksft_print_msg("%u calls, a switch before each but the first, %u deferred records\n",
		       done, deferred);
	ksft_print_msg("stacks of the replaced section: %u (%.2f%%)\n",
		       stale, 100.0 * stale / done);
	ksft_print_msg("other errors: %u; calls with the last call's cookie: %u\n",
		       wrong, shared);
	return !stale && !wrong && !shared && deferred == done;
}

/* The concurrent case: the switches of the other thread, and the calls */
static struct {
	int stop;
	unsigned int nflips, ncalls, errors;
	double *f0, *f1;		/* a switch began, ended */
	double *c0, *c1;		/* a call began, returned */
	enum sw_stack *cgot;
	__u64 *cookie;
} race;

/* The section switch @f (from 0) puts in place: S2, S1, S2, ... */
static enum sw_stack flip_to(unsigned int f)
{
	return f % 2 ? SW_S1 : SW_S2;
}

/* ... and the one in place after the first @k switches */
static enum sw_stack after_flips(unsigned int k)
{
	return k ? flip_to(k - 1) : SW_S1;
}

static void *flipper(void *arg)
{
	unsigned int seed = 1;

	(void)arg;
	while (!__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE) &&
	       race.nflips < RACE_MAX_FLIPS) {
		unsigned int f = race.nflips;

		/* A pause of 0 to RACE_PAUSE_MS: most calls see no switch */
		nap_ms(rand_r(&seed) % (RACE_PAUSE_MS + 1));
		race.f0[f] = sft_now();
		if (switch_to(flip_to(f))) {
			race.errors++;
			break;
		}
		race.f1[f] = sft_now();
		race.nflips = f + 1;
	}
	__atomic_store_n(&race.stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool check_concurrent(void)
{
	unsigned int clean[SW_NR] = { 0 }, overlap[SW_NR] = { 0 };
	unsigned int bad = 0, shown = 0, shared = 0, c, k = 0, n;
	unsigned int after = 0, replaced = 0, replaced_put_back = 0;
	enum sw_stack got[BATCH];
	__u64 cookies[BATCH];
	double t_start, t;
	pthread_t thread;
	int err;

	race.f0 = calloc(RACE_MAX_FLIPS, sizeof(double));
	race.f1 = calloc(RACE_MAX_FLIPS, sizeof(double));
	race.c0 = calloc(RACE_MAX_CALLS, sizeof(double));
	race.c1 = calloc(RACE_MAX_CALLS, sizeof(double));
	race.cgot = calloc(RACE_MAX_CALLS, sizeof(*race.cgot));
	race.cookie = calloc(RACE_MAX_CALLS, sizeof(*race.cookie));
	if (!race.f0 || !race.f1 || !race.c0 || !race.c1 || !race.cgot ||
	    !race.cookie)
		return false;
	sft_codectl_unregister((unsigned long)sw_code);
	if (reg(SW_S1))
		return false;

	t_start = sft_now();
	err = pthread_create(&thread, NULL, flipper, NULL);
	if (err) {
		ksft_print_msg("pthread_create: %s\n", strerror(err));
		return false;
	}
	while (!__atomic_load_n(&race.stop, __ATOMIC_ACQUIRE) &&
	       race.ncalls + BATCH <= RACE_MAX_CALLS) {
		t = sft_now() - t_start;
		if (t > RACE_MAX_SECONDS ||
		    (t > RACE_SECONDS && race.ncalls >= RACE_CALLS))
			break;
		for (n = 0; n < BATCH; n++) {
			c = race.ncalls + n;
			race.c0[c] = sft_now();
			vd_call();
			race.c1[c] = sft_now();
		}
		if (drain(n, got, cookies) < 0) {
			race.errors++;
			break;
		}
		memcpy(&race.cgot[race.ncalls], got, n * sizeof(got[0]));
		memcpy(&race.cookie[race.ncalls], cookies,
		       n * sizeof(cookies[0]));
		race.ncalls += n;
	}
	__atomic_store_n(&race.stop, 1, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	t = sft_now() - t_start;
	unreg();

	/*
	 * Both threads' times are in time order, from one clock.  A call may
	 * get any section that was in place at some time between its start
	 * and its return, or none if a switch was under way, or a mix of
	 * them (torn: the walk's frames from different registries) when a
	 * switch overlapped it.  Anything else is an error.
	 */
	for (c = 0; c < race.ncalls; c++) {
		enum sw_stack g = race.cgot[c];
		bool allowed[SW_NR] = { false };
		bool in_switch, overlapped;
		unsigned int j;

		/* The first k switches ended before the call began. */
		while (k < race.nflips && race.f1[k] < race.c0[c])
			k++;
		allowed[after_flips(k)] = true;
		in_switch = k < race.nflips && race.f0[k] <= race.c0[c];
		overlapped = in_switch;
		for (j = k; j < race.nflips && race.f0[j] <= race.c1[c]; j++) {
			allowed[SW_NONE] = true;
			allowed[flip_to(j)] = true;
			overlapped = true;
		}
		allowed[SW_TORN] = overlapped;
		if (c && race.cookie[c] == race.cookie[c - 1])
			shared++;
		if (overlapped)
			overlap[g]++;
		else
			clean[g]++;
		/*
		 * The figure of the report: a call made after switch k - 1
		 * ended, with the stack of the section that switch replaced.
		 */
		if (!in_switch && k) {
			after++;
			if (g == after_flips(k - 1)) {
				replaced++;
				/* switch k, which put it back, overlapped */
				if (k < race.nflips &&
				    race.f0[k] <= race.c1[c])
					replaced_put_back++;
			}
		}
		if (allowed[g])
			continue;
		bad++;
		if (shown++ < 3) {
			ksft_print_msg("call %u, %.6f-%.6f s: %s stack\n", c,
				       race.c0[c], race.c1[c], sw_names[g]);
			ksft_print_msg("  switch %u ended %.6f s, the next began %.6f s\n",
				       k, k ? race.f1[k - 1] : 0.0,
				       k < race.nflips ? race.f0[k] : 0.0);
		}
	}
	ksft_print_msg("%u switches and %u calls in %.1f s\n", race.nflips,
		       race.ncalls, t);
	print_counts("calls no switch overlapped", clean);
	print_counts("calls a switch overlapped", overlap);
	ksft_print_msg("calls begun after a switch: %u\n", after);
	ksft_print_msg("... with the section it replaced: %u (%.2f%%)\n",
		       replaced, after ? 100.0 * replaced / after : 0.0);
	ksft_print_msg("... of which the next switch overlapped: %u\n",
		       replaced_put_back);
	ksft_print_msg("stacks of no section in place in their call: %u\n",
		       bad);
	ksft_print_msg("calls with the last call's cookie: %u\n", shared);
	if (race.errors)
		ksft_print_msg("%u errors\n", race.errors);
	if (clean[SW_S1] + clean[SW_S2] < RACE_MIN_CLEAN)
		ksft_print_msg("fewer than %d calls that no switch overlapped\n",
			       RACE_MIN_CLEAN);
	return !bad && !shared && !race.errors && !clean[SW_BROKEN] &&
	       !overlap[SW_BROKEN] && replaced == replaced_put_back &&
	       clean[SW_S1] + clean[SW_S2] >= RACE_MIN_CLEAN;
}

#endif /* __x86_64__ */

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	int tp;
#endif

	SFT_PROBE_MAIN(argc, argv);

	ksft_print_header();
#if !defined(__x86_64__)
	ksft_exit_skip("the test's code is written for x86-64\n");
#else
	ksft_set_plan(3);
	ksft_print_msg("%s: SFrame V%d sections registered with codectl\n",
		       argv[0], SFT_SFRAME_VERSION);

	if (sft_symtab_load_self(&syms))
		ksft_exit_fail_msg("cannot read this program's symbols\n");
	ppid = getppid();
	tp = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	if (tp < 0 || sft_perf_open_tracepoint(&ev, tp, true) ||
	    sft_perf_enable(&ev))
		ksft_exit_fail_msg("no perf event with deferred callchains\n");
	if (map_code() || write_sec(&sec[SW_S1], true) ||
	    write_sec(&sec[SW_S2], false))
		ksft_exit_fail_msg("cannot make the code and its sections\n");

	ksft_test_result(check_baseline(),
			 "baseline: S1, S2 and no registration give three different stacks\n");
	ksft_test_result(check_sequential(),
			 "sequential: a system call after a switch gets the new section's stack, %d times\n",
			 SEQ_CALLS);
	ksft_test_result(check_concurrent(),
			 "concurrent: a call that no switch overlaps gets the section in place\n");

	sft_perf_close(&ev);
	sft_symtab_free(&syms);
	ksft_finished();
#endif
}
