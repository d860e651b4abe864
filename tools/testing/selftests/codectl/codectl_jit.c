// SPDX-License-Identifier: GPL-2.0
/*
 * CODECTL_REGISTER_JIT: the user stack through code emitted at run time.
 *
 * The test emits two x86-64 or AArch64 functions without frame pointers
 * into an anonymous mapping (written while RW, run once RX), and runs
 *
 *	run_chain -> jt_entry -> jit_a -> jt_middle -> jit_b -> jt_leaf -> getppid
 *
 * C, JIT, C, JIT, C: each function records its return address as it runs,
 * the JIT functions too.  A perf event on the getppid tracepoint asks for
 * the deferred user callchain, which is compared frame by frame, address
 * by address, with that chain.  The C functions are built with
 * -fomit-frame-pointer -Wa,--gsframe (the kernel registered the program at
 * exec); the JIT functions are described by a CODECTL_REGISTER_JIT table
 * (tools/include/tools/codectl_jit.h), an entry for each of the rows an
 * assembler would emit for it: before, inside and after its stack
 * adjustment (and on arm64, while its return address is saved).
 *
 * Without the registration, the JIT frames can only be unwound by frame
 * pointer, which they do not keep: the stack is not the chain (the test's
 * sensitivity).  With it, the stack is the chain; after a W^X cycle of the
 * code; with the JIT's entries in a chained table; in a child after fork().
 * A retired entry is not used, and rewritten in place it is again.
 * Hostile tables -- a count past the room, strides of 0 and 2^31, entries
 * out of order, overlapping, past the code area, a chain that loops or is
 * longer than CODECTL_JIT_MAX_TABLES, a chained table unmapped -- yield a
 * complete stack that is not the chain, up to and including the JIT frame
 * that the C code's SFrame rules find: the walk falls back and goes on.
 * Unregistering, or unmapping the first table, removes the registration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "codectl_util.h"
#include "codectl_jit_code.h"

/* The frames the stack must start with: jt_leaf up to run_chain */
#define FRAMES		6

/* What the chain's functions record as they run */
struct jt_walk {
	unsigned long ra[FRAMES];	/* ra[i]: return address of frame i */
	long (*fn[3])(struct jt_walk *w);	/* jit_a, jt_middle's callee, ... */
	unsigned long top_ip;		/* right after the system call */
	long ret;
};

/* Slots of struct jt_walk the JIT code uses: its displacements */
#define RA_OFF(i)	(offsetof(struct jt_walk, ra) + (i) * sizeof(long))
#define FN_OFF(i)	(offsetof(struct jt_walk, fn) + (i) * sizeof(void *))

/* Where the two functions lie in the code area */
#define JIT_A_OFF	0x40
#define JIT_B_OFF	0x200

/* Entries of a table holding both functions: jit_a's, then jit_b's */
#define JB		NROWS

/* The code area: room for the big table's 10^5 one-byte ranges too */
#define CODE_PAGES	32
#define BIG_ENTRIES	100000
#define BIG_OFF		0x400

static long page;
static unsigned char *code;		/* the code area, CODE_PAGES pages */
static long (*jit_a)(struct jt_walk *w);
static long (*jit_b)(struct jt_walk *w);

/* The C functions of the chain: frames 4, 2 and 0 */
__attribute__((noipa)) static long jt_leaf(struct jt_walk *w)
{
	unsigned long ip;
	long ret;

	w->ra[0] = (unsigned long)__builtin_return_address(0);
	JT_GETPPID(ret, ip);
	w->top_ip = ip;
	w->ret = ret;
	return ret + 1;
}

__attribute__((noipa)) static long jt_middle(struct jt_walk *w)
{
	long r;

	w->ra[2] = (unsigned long)__builtin_return_address(0);
	r = jit_b(w);
	asm volatile("" : "+r" (r) : : "memory");	/* not a tail call */
	return r + 1;
}

__attribute__((noipa)) static long jt_entry(struct jt_walk *w)
{
	long r;

	w->ra[4] = (unsigned long)__builtin_return_address(0);
	r = jit_a(w);
	asm volatile("" : "+r" (r) : : "memory");
	return r + 1;
}

/*
 * The code area: RW to write, then RX.  jit_a records ra[3] and calls
 * jt_middle (fn[0]); jit_b records ra[1] and calls jt_leaf (fn[1]).
 */
static int make_code(void)
{
	code = mmap(NULL, CODE_PAGES * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		ksft_perror("mmap of the code area");
		return -1;
	}
	memset(code, 0xcc, CODE_PAGES * page);	/* int3 around the functions */
	jt_emit(code + JIT_A_OFF, RA_OFF(3), FN_OFF(0));
	jt_emit(code + JIT_B_OFF, RA_OFF(1), FN_OFF(1));
	__builtin___clear_cache((char *)code, (char *)code + JIT_B_OFF +
				JIT_SIZE);
	if (mprotect(code, CODE_PAGES * page, PROT_READ | PROT_EXEC)) {
		ksft_perror("mprotect RX of the code area");
		return -1;
	}
	jit_a = (void *)(code + JIT_A_OFF);
	jit_b = (void *)(code + JIT_B_OFF);
	return 0;
}

/* ---- Tables ---------------------------------------------------------- */

#define ENTRY_SIZE	16

/* A table of @reserved entries in a mapping of its own, whole pages */
static struct codectl_jit_table *table_new(unsigned long reserved,
					   size_t *bytes)
{
	size_t len = codectl_jit_table_bytes(ENTRY_SIZE, reserved);
	struct codectl_jit_table *t;

	len = (len + page - 1) / page * page;
	t = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		ksft_perror("mmap of a table");
		return NULL;
	}
	codectl_jit_table_init(t, ENTRY_SIZE, reserved);
	if (bytes)
		*bytes = len;
	return t;
}

/* Tables of the test hold at most 16 entries: one page */
static void table_free(struct codectl_jit_table *t)
{
	munmap(t, page);
}

/* The entries of the function at @off.  Returns the first's index, or -1 */
static long append_fn(struct codectl_jit_table *t, unsigned int off)
{
	long first = jt_append_fn(t, off);

	if (first < 0)
		ksft_print_msg("cannot append the entries of the function at %#x\n",
			       off);
	return first;
}

static int jit_register(struct codectl_jit_table *t, size_t bytes)
{
	struct codectl_jit arg = {
		.text_start = (unsigned long)code,
		.text_end = (unsigned long)code + CODE_PAGES * page,
		.table = (unsigned long)t,
		.table_size = bytes,
	};

	return ct_codectl(CODECTL_REGISTER_JIT, &arg, sizeof(arg), 0);
}

/* ---- One run of the chain, sampled ---------------------------------- */

enum verdict {
	CHAIN,		/* the stack is the chain, frame by frame */
	NOT_CHAIN,	/* a complete stack, right up to the JIT frame, then not */
	BROKEN,		/* no stack, or wrong where the C rules decide */
};

static const char * const verdict_name[] = { "the chain", "not the chain",
					     "broken" };

static int tp_id;

static enum verdict run_chain(bool quiet)
{
	static struct sft_sample samples[SFT_RUN_MAX_SAMPLES];
	struct jt_walk w = { .fn = { jt_middle, jt_leaf } };
	static const char * const names[FRAMES] = {
		"jt_leaf", "jit_b", "jt_middle", "jit_a", "jt_entry",
		"run_chain",
	};
	struct sft_ring_stats stats;
	struct sft_perf ev;
	const __u64 *ips;
	unsigned int nr, i;
	bool chain = true;
	long r;
	int n;

	if (sft_perf_open_tracepoint(&ev, tp_id, true))
		return BROKEN;
	if (sft_perf_enable(&ev)) {
		sft_perf_close(&ev);
		return BROKEN;
	}
	r = jt_entry(&w);
	sft_perf_disable(&ev);
	n = sft_perf_collect(&ev, samples, SFT_RUN_MAX_SAMPLES, &stats);
	sft_perf_close(&ev);

	if (r != w.ret + 3 || w.ret != getppid()) {
		ksft_print_msg("the chain returned %ld, its getppid %ld\n", r,
			       w.ret);
		return BROKEN;
	}
	if (n != 1 || stats.lost || stats.deferred != 1 ||
	    !samples[0].deferred || !samples[0].merged || !samples[0].nr) {
		ksft_print_msg("%d samples, %u deferred, %u lost: want 1 and 1\n",
			       n, stats.deferred, stats.lost);
		return BROKEN;
	}
	ips = samples[0].ips;
	nr = samples[0].nr;
	for (i = 0; i < FRAMES; i++) {
		/* Frame 0 is where the system call returns, i the RA of i-1 */
		unsigned long want = i ? w.ra[i - 1] : w.top_ip;
		bool right = i < nr && ips[i] == want;

		if (!quiet)
			ksft_print_msg("%u %-10s %#-16lx %#-16llx %s\n", i,
				       names[i], want,
				       i < nr ? (unsigned long long)ips[i] : 0ULL,
				       right ? "" : "<--");
		if (!right)
			chain = false;
	}
	if (chain)
		return CHAIN;
	/*
	 * The C code's SFrame rules find jt_leaf's caller, in jit_b: a stack
	 * wrong before it is not the JIT table's doing.
	 */
	if (nr < 2 || ips[0] != w.top_ip || ips[1] != w.ra[0])
		return BROKEN;
	return NOT_CHAIN;
}

static int failures;

static void check(enum verdict want, const char *what)
{
	enum verdict got = run_chain(false);

	if (got != want)
		failures++;
	ksft_test_result(got == want, "%s: %s (want %s)\n", what,
			 verdict_name[got], verdict_name[want]);
}

/* The /proc/self/sframe line of the code area: 1 if there, 0 if not */
static int jit_line(struct ct_line *l)
{
	int n = 0;

	if (ct_sframe_lines((unsigned long)code, l, &n, "codectl") < 0)
		return -1;
	return n;
}

/* ---- Cases ----------------------------------------------------------- */

/* A table with both functions' entries, registered; NULL on failure */
static struct codectl_jit_table *setup(unsigned long reserved)
{
	struct codectl_jit_table *t;
	size_t bytes;
	int err;

	t = table_new(reserved, &bytes);
	if (!t)
		return NULL;
	if (append_fn(t, JIT_A_OFF) < 0 || append_fn(t, JIT_B_OFF) < 0)
		return NULL;
	err = jit_register(t, bytes);
	if (err) {
		ksft_print_msg("CODECTL_REGISTER_JIT: %s\n", strerror(err));
		return NULL;
	}
	return t;
}

static void teardown(struct codectl_jit_table *t)
{
	ct_unregister((unsigned long)code);
	if (t)
		table_free(t);
}

/* The basic cases: sensitivity, the chain, /proc, W^X, retire, rewrite */
static void basic(void)
{
	struct codectl_jit_table *t;
	struct ct_line l;
	int i;

	check(NOT_CHAIN, "no registration: frame pointers through the JIT code");

	t = setup(16);
	if (!t) {
		ksft_test_result_fail("registration of the table\n");
		return;
	}
	ksft_test_result(jit_line(&l) == 1 && !strcmp(l.state, "ok") &&
			 !l.version && l.sframe_start == (unsigned long)t &&
			 l.text_end == (unsigned long)code + CODE_PAGES * page,
			 "/proc/self/sframe shows the JIT registration\n");
	check(CHAIN, "registered: the stack is the chain");

	/* W^X: the JIT writes its code again, and runs it */
	if (mprotect(code, CODE_PAGES * page, PROT_READ | PROT_WRITE) ||
	    mprotect(code, CODE_PAGES * page, PROT_READ | PROT_EXEC))
		ksft_perror("mprotect");
	check(CHAIN, "after RX, RW, RX of the code: the chain");

	/* jit_b's entries are 3 to 5 */
	for (i = 0; i < (int)NROWS; i++)
		codectl_jit_retire(t, JB + i);
	check(NOT_CHAIN, "jit_b's entries retired: not used");
	{
		unsigned int k;
		int err = 0;

		for (k = 0; k < NROWS; k++)
			err |= codectl_jit_rewrite(t, JB + k,
						   JIT_B_OFF + rows[k].start,
						   row_size(k), row_info(k),
						   CODECTL_JIT_TYPE_DEFAULT,
						   rows[k].words,
						   rows[k].nwords);
		if (err)
			ksft_print_msg("codectl_jit_rewrite() refused\n");
	}
	check(CHAIN, "jit_b's entries rewritten in place: the chain again");

	/* fork: the child has the registration */
	{
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (!pid)
			_exit(run_chain(true));
		waitpid(pid, &status, 0);
		ksft_test_result(WIFEXITED(status) &&
				 WEXITSTATUS(status) == CHAIN,
				 "in a child after fork(): the chain\n");
	}

	ksft_test_result(!ct_unregister((unsigned long)code) &&
			 jit_line(&l) == 0,
			 "CODECTL_UNREGISTER removes it\n");
	check(NOT_CHAIN, "unregistered: not the chain");

	/* The registration dies with its first table's mapping */
	t = setup(16);
	if (t) {
		munmap(t, page);
		ksft_test_result(jit_line(&l) == 0,
				 "munmap() of the table removes it\n");
	} else {
		ksft_test_result_fail("munmap() of the table removes it\n");
	}
	ct_unregister((unsigned long)code);
}

/* Tables chained: jit_b's entries in table @depth of the chain (0: first) */
static struct codectl_jit_table *chained(unsigned int depth,
					 struct codectl_jit_table **tabs)
{
	struct codectl_jit_table *t;
	size_t bytes;
	unsigned int i;

	t = table_new(NROWS, &bytes);
	tabs[0] = t;
	if (!t || append_fn(t, JIT_A_OFF) < 0)
		return NULL;
	for (i = 1; i <= depth; i++) {
		tabs[i] = table_new(NROWS, NULL);
		if (!tabs[i])
			return NULL;
		codectl_jit_chain(tabs[i - 1], tabs[i]);
	}
	if (append_fn(tabs[depth], JIT_B_OFF) < 0 || jit_register(t, bytes)) {
		ksft_print_msg("cannot register a chain of %u tables\n",
			       depth + 1);
		return NULL;
	}
	return t;
}

static void unchain(struct codectl_jit_table **tabs, unsigned int n)
{
	unsigned int i;

	ct_unregister((unsigned long)code);
	for (i = 0; i < n; i++)
		if (tabs[i])
			munmap(tabs[i], page);
	memset(tabs, 0, n * sizeof(*tabs));
}

static void chains(void)
{
	struct codectl_jit_table *tabs[CODECTL_JIT_MAX_TABLES + 1] = {};
	char what[128];

	if (chained(1, tabs))
		check(CHAIN, "jit_b's entries in a chained second table: the chain");
	else
		ksft_test_result_fail("a chain of two tables\n");
	/* The second table goes away under the registration */
	munmap(tabs[1], page);
	tabs[1] = NULL;
	check(NOT_CHAIN, "hostile: the chained table unmapped");
	unchain(tabs, 2);

	snprintf(what, sizeof(what),
		 "jit_b's entries in table %u of the chain, the last searched: the chain",
		 CODECTL_JIT_MAX_TABLES);
	if (chained(CODECTL_JIT_MAX_TABLES - 1, tabs))
		check(CHAIN, what);
	else
		ksft_test_result_fail("%s\n", what);
	unchain(tabs, CODECTL_JIT_MAX_TABLES);

	snprintf(what, sizeof(what),
		 "hostile: jit_b's entries in table %u of the chain, past the bound",
		 CODECTL_JIT_MAX_TABLES + 1);
	if (chained(CODECTL_JIT_MAX_TABLES, tabs))
		check(NOT_CHAIN, what);
	else
		ksft_test_result_fail("%s\n", what);
	unchain(tabs, CODECTL_JIT_MAX_TABLES + 1);

	/* A loop: jit_b's entries nowhere, the first table its own next */
	{
		size_t bytes;

		tabs[0] = table_new(NROWS, &bytes);
		if (tabs[0] && append_fn(tabs[0], JIT_A_OFF) >= 0 &&
		    !jit_register(tabs[0], bytes)) {
			codectl_jit_chain(tabs[0], tabs[0]);
			check(NOT_CHAIN, "hostile: a chain that loops");
		} else {
			ksft_test_result_fail("a chain that loops\n");
		}
		unchain(tabs, 1);
	}
}

/*
 * Hostile tables: each breaks one rule after the registration, and must
 * give a complete stack that is not the chain; the table is then put
 * right, and the stack must be the chain again.
 */
enum hostile {
	H_USED, H_STRIDE0, H_STRIDE_HUGE, H_VERSION, H_ORDER, H_OVERLAP,
	H_PAST, H_WORDS, H_NR
};

static const char * const hostile_name[] = {
	"used larger than reserved",
	"entry_size 0",
	"entry_size 2^31",
	"an unknown version",
	"entries out of order",
	"overlapping entries",
	"an entry past the code area",
	"an entry whose words pass its stride",
};

static void hostile_tables(void)
{
	struct codectl_jit_table *t, saved;
	unsigned int body = JB + call_row(), prev = body - 1;
	struct codectl_jit_entry ep, eb;
	char what[128];
	int h;

	for (h = 0; h < H_NR; h++) {
		t = setup(16);
		if (!t) {
			ksft_test_result_fail("hostile: %s\n", hostile_name[h]);
			continue;
		}
		saved = *t;
		ep = *codectl_jit_entry(t, prev);
		eb = *codectl_jit_entry(t, body);
		switch (h) {
		case H_USED:
			t->used = t->reserved + 1;
			break;
		case H_STRIDE0:
			t->entry_size = 0;
			break;
		case H_STRIDE_HUGE:
			t->entry_size = 1U << 31;
			break;
		case H_VERSION:
			t->version = 2;
			break;
		case H_ORDER:
			/* jit_b's body entry (4) before its first (3) */
			codectl_jit_entry(t, prev)->off = eb.off;
			codectl_jit_entry(t, body)->off = ep.off;
			break;
		case H_OVERLAP:
			/* entry 3 runs into the body entry, which covers the RA */
			codectl_jit_entry(t, prev)->size = ep.size + 1;
			break;
		case H_PAST:
			/* the body entry ends past the code area */
			codectl_jit_entry(t, body)->size = CODE_PAGES * page;
			/* and the next does not overlap it: make it the last */
			t->used = body + 1;
			break;
		case H_WORDS:
			/* 15 words of 4 bytes in a stride of 16 */
			codectl_jit_entry(t, body)->info =
				CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 15,
						 CODECTL_JIT_WORD_4B);
			break;
		}
		snprintf(what, sizeof(what), "hostile: %s", hostile_name[h]);
		check(NOT_CHAIN, what);

		*t = saved;
		*codectl_jit_entry(t, prev) = ep;
		*codectl_jit_entry(t, body) = eb;
		snprintf(what, sizeof(what), "%s, put right: the chain",
			 hostile_name[h]);
		check(CHAIN, what);
		teardown(t);
	}
}

/* The writer thread of the race: retire and rewrite entries in a loop */
struct racer {
	struct codectl_jit_table *t;
	unsigned long first, n;		/* the entries it cycles through */
	atomic_bool stop;
	unsigned long rounds;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	unsigned long i;

	while (!atomic_load(&r->stop)) {
		for (i = r->first; i < r->first + r->n; i++) {
			struct codectl_jit_entry *e = codectl_jit_entry(r->t, i);
			unsigned char words[4];

			memcpy(words, e->data, sizeof(words));
			codectl_jit_retire(r->t, i);
			codectl_jit_rewrite(r->t, i, e->off, e->size, e->info,
					    e->type, words, sizeof(words));
		}
		r->rounds++;
	}
	return NULL;
}

/*
 * Sample the chain @n times while a thread retires and rewrites entries
 * @first to @first + @n_entries - 1 of @t in a loop.  Returns how many
 * samples were the chain, or -1 if one was broken.
 */
static int race_samples(struct codectl_jit_table *t, unsigned long first,
			unsigned long n_entries, int n, unsigned long *rounds)
{
	struct racer r = { .t = t, .first = first, .n = n_entries };
	pthread_t th;
	int i, chain = 0;
	enum verdict v;

	if (pthread_create(&th, NULL, race, &r))
		return -1;
	for (i = 0; i < n; i++) {
		v = run_chain(true);
		if (v == BROKEN)
			chain = -1;
		if (v == CHAIN && chain >= 0)
			chain++;
	}
	atomic_store(&r.stop, true);
	pthread_join(th, NULL);
	*rounds = r.rounds;
	return chain;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * A table of 10^5 entries besides the functions': the lookup's binary
 * search finds them all the same.  Figures: the cost of an append, and of
 * the system calls a registration per function would cost instead.
 */
static void big(void)
{
	size_t bytes = codectl_jit_table_bytes(ENTRY_SIZE,
					       BIG_ENTRIES + 2 * NROWS);
	struct codectl_jit_table *t;
	double t0, append_ns, reg_ns;
	bool ok = true;
	int i, err;

	t = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		ksft_test_result_fail("a table of %d entries: mmap\n",
				      BIG_ENTRIES);
		return;
	}
	codectl_jit_table_init(t, ENTRY_SIZE, BIG_ENTRIES + 2 * NROWS);
	err = jit_register(t, bytes);
	if (err || append_fn(t, JIT_A_OFF) < 0 || append_fn(t, JIT_B_OFF) < 0) {
		ksft_test_result_fail("a table of %d entries: %s\n",
				      BIG_ENTRIES, strerror(err));
		munmap(t, bytes);
		return;
	}
	t0 = now_ns();
	for (i = 0; i < BIG_ENTRIES; i++)
		ok &= codectl_jit_append(t, BIG_OFF + i, 1, row_info(1),
					 CODECTL_JIT_TYPE_DEFAULT,
					 rows[1].words, rows[1].nwords) >= 0;
	append_ns = (now_ns() - t0) / BIG_ENTRIES;
	if (!ok)
		ksft_print_msg("an append failed\n");
	check(CHAIN, "a table of 10^5 entries more: the chain");

	/* Another thread retires and rewrites 1000 of the other entries */
	{
		unsigned long rounds = 0;
		int n = race_samples(t, 2 * NROWS + BIG_ENTRIES / 2, 1000,
				     20, &rounds);

		ksft_test_result(n == 20,
				 "20 samples while another thread retires and rewrites other entries: %d the chain (%lu rounds of 1000)\n",
				 n, rounds);
		/* ... and jit_b's own entries: either, never broken */
		n = race_samples(t, JB, NROWS, 20, &rounds);
		ksft_test_result(n >= 0,
				 "20 samples while another thread retires and rewrites jit_b's entries: %d the chain, the others fell back (%lu rounds)\n",
				 n, rounds);
	}
	ct_unregister((unsigned long)code);
	munmap(t, bytes);

	/* What a registration per function would cost: 1000 of them */
	t = table_new(16, &bytes);
	t0 = now_ns();
	for (i = 0; t && i < 1000; i++) {
		err = jit_register(t, bytes);
		if (!err)
			err = ct_unregister((unsigned long)code);
		if (err)
			break;
	}
	reg_ns = (now_ns() - t0) / 1000;
	if (t)
		table_free(t);
	ksft_print_msg("append: %.0f ns; JIT register + unregister: %.0f ns\n",
		       append_ns, reg_ns);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksft_set_plan(10 + 5 + 2 * H_NR + 3);

	tp_id = sft_tracepoint_id("syscalls", "sys_enter_getppid");
	/* Each sample's event is added to a tracepoint that stays on */
	if (tp_id < 0 || sft_hold_tracepoint(tp_id) < 0)
		ksft_exit_fail_msg("the getppid tracepoint does not work\n");
	if (make_code())
		ksft_exit_fail_msg("cannot emit the JIT code\n");

	basic();
	chains();
	hostile_tables();
	big();
	ksft_finished();
}
