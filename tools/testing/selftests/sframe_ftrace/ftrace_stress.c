// SPDX-License-Identifier: GPL-2.0
/*
 * The stacktrace:user trigger under stress, on the debug kernel.
 *
 * Worker threads (named WORKER_COMM), each living for 100 to 300 ms and
 * then replaced, call a chain of three functions without frame pointers
 * whose last makes a getppid system call, again and again.  Instance A
 * records the user stack of their getppid system calls, of their exit
 * system calls (served as they exit, never returning to user space) and of
 * the timer interrupts that hit them (requests from interrupt context); its
 * getppid trigger is removed and added again every 50 ms.  Instance B has
 * the same triggers and is removed and made again every 250 ms, with
 * requests in flight.  A reader decodes A's raw pages as they fill.
 *
 * The workers, the toggles and B each have a thread of their own, paced by
 * the clock: making an instance takes seconds under TCG and must not hold
 * up the workers' replacements.  Under TCG with the workers busy, a toggle
 * or a remake takes seconds (event_mutex, mostly): 3 toggles and 1 remake
 * in 20 s, 11 and 3 in 60 s with 32 threads; the test asks for a few.
 *
 * A lives all the while, so a cookie record of A without its stack is a
 * stack lost while its instance lives: a bug.  The stacks of B that were
 * not written when B went are the documented case (they go with B's
 * buffer); B is not read.  A cookie record can come after its stack (see
 * on_cookie()): records are matched once the reader is done.
 *
 * It passes when every cookie record of A has exactly one stack with its
 * cookie, of the same task, and no stack is without a cookie record (but
 * for cookie records that say that no stack comes: an interrupt that hit a
 * worker as it exited); when
 * every stack of a getppid call is the chain, function by function from its
 * file and offset; when A's buffer dropped and overwrote nothing, so that
 * no stack can have gone missing unseen; and (run-guest checks it) when the
 * kernel log shows no splat and kmemleak no leak.
 *
 *	ftrace_stress [SECONDS [THREADS]]	(default 60 s, 6 threads)
 *
 * make check runs the default; make stress runs it for its DURATION with
 * more threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "ftrace_util.h"

#define WORKER_COMM	"ftstress-w"
#define MAX_THREADS	32
#define GETPPID		"events/syscalls/sys_enter_getppid"
#define EXIT		"events/syscalls/sys_enter_exit"
#define TIMER		"events/timer/hrtimer_expire_entry"
#define TRIGGER		"stacktrace:user if comm == \"" WORKER_COMM "\""

static struct sft_symtab syms;
static char self_path[PATH_MAX];
static struct sft_elf self_elf;
static atomic_bool stop;

/* The chain of the workers, innermost first, as its symbols name it */
static const char * const chain[] = {
	"sf_leaf", "sf_mid", "sf_top", "worker",
};

/* What the reader saw */
struct counts {
	unsigned long cookies, none, stacks, chain_ok, chain_bad, other,
		      other_bad, orphans, duplicates, late, late_settled;
};

/* A cookie seen, by task: its cookie records and its stacks */
struct seen {
	struct seen *next;
	int pid;
	unsigned long long cookie;
	unsigned int records, stacks;
};

#define HASH_SIZE	65536

static struct seen *table[HASH_SIZE];
static unsigned long pending;	/* entries in the table */
static struct counts counts;

static __attribute__((noipa)) long sf_leaf(long x)
{
	return sft_getppid() + x;
}

static __attribute__((noipa)) long sf_mid(long x)
{
	long r = sf_leaf(x + 1);

	asm volatile("" : "+r" (r));
	return r + 1;
}

static __attribute__((noipa)) long sf_top(long x)
{
	long r = sf_mid(x + 1);

	asm volatile("" : "+r" (r));
	return r + 1;
}

struct slot {
	pthread_t thread;
	atomic_bool done;
	bool running;
	unsigned int life_ms;	/* 100 ms and this */
	unsigned long calls;
};

static __attribute__((noipa)) void *worker(void *arg)
{
	struct slot *slot = arg;
	struct timespec pace = { 0, 500 * 1000 };
	double end = sft_now() + (100 + slot->life_ms) / 1000.0;
	long r = 0;

	prctl(PR_SET_NAME, WORKER_COMM);
	while (sft_now() < end && !atomic_load(&stop)) {
		r += sf_top(r);
		slot->calls++;
		nanosleep(&pace, NULL);
	}
	asm volatile("" : "+r" (r));
	atomic_store(&slot->done, true);
	return NULL;
}

static struct seen *lookup(int pid, unsigned long long cookie, bool add)
{
	unsigned int h = (cookie ^ (cookie >> 32) ^ pid) % HASH_SIZE;
	struct seen *s;

	for (s = table[h]; s; s = s->next)
		if (s->pid == pid && s->cookie == cookie)
			return s;
	if (!add)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		ksft_exit_fail_msg("out of memory\n");
	s->pid = pid;
	s->cookie = cookie;
	s->next = table[h];
	table[h] = s;
	pending++;
	return s;
}

static int on_cookie(void *ctx, int pid, unsigned long long cookie)
{
	struct counts *c = ctx;
	struct seen *s;

	c->cookies++;
	if (!cookie) {
		c->none++;
		return 0;
	}
	s = lookup(pid, cookie, true);
	/*
	 * A cookie record read after its stack: an event of the same entry
	 * into the kernel that fired after the callback had run, such as a
	 * timer interrupt between the task work and the return to user
	 * space (the unwinder then answers "already done" with the same
	 * cookie), or a record on another CPU's buffer read later.
	 */
	if (s->stacks) {
		c->late++;
		if (s->records)
			c->late_settled++;
	}
	s->records++;
	return 0;
}

/* The function of frame @i of @s, if it is in this program */
static const char *frame_func(const struct ftu_stack *s, unsigned int i)
{
	const struct ftu_frame *f = &s->frames[i];
	const struct sft_sym *sym;
	unsigned int j;

	if (strcmp(f->name, self_path))
		return NULL;
	for (j = 0; j < self_elf.phnum; j++) {
		const struct elf64_phdr *ph = &self_elf.phdr[j];
		unsigned long addr;

		if (ph->p_type != PT_LOAD || f->offset < ph->p_offset ||
		    f->offset - ph->p_offset >= ph->p_filesz)
			continue;
		addr = syms.bias + ph->p_vaddr + (f->offset - ph->p_offset);
		sym = sft_symtab_lookup(&syms, i ? addr - 1 : addr);
		return sym ? sym->name : NULL;
	}
	return NULL;
}

static int on_stack(void *ctx, struct ftu_stack *s)
{
	struct seen *e = lookup(s->pid, s->cookie, true);
	const char *func = s->nr ? frame_func(s, 0) : NULL;
	struct counts *c = ctx;
	unsigned int i;

	c->stacks++;
	if (++e->stacks > 1)
		c->duplicates++;

	if (func && !strcmp(func, chain[0])) {
		bool ok = s->nr >= ARRAY_SIZE(chain);

		for (i = 1; ok && i < ARRAY_SIZE(chain); i++) {
			func = frame_func(s, i);
			ok = func && !strcmp(func, chain[i]);
		}
		if (ok) {
			c->chain_ok++;
		} else if (c->chain_bad++ < 3) {
			ksft_print_msg("a getppid stack that is not the chain:\n");
			ftu_print_stack(s);
		}
		return 0;
	}
	/*
	 * Exit and interrupts: somewhere in a named object, a file or the
	 * vDSO (the workers read the clock)
	 */
	if (s->nr && (s->frames[0].name[0] != '[' ||
		      !strcmp(s->frames[0].name, "[vdso]"))) {
		c->other++;
	} else if (c->other_bad++ < 3) {
		ksft_print_msg("a stack whose first frame has no name:\n");
		ftu_print_stack(s);
	}
	return 0;
}

/*
 * At the end: report the cookies without both their records and their
 * stack, and drop them all.  None is dropped before, when it first has
 * both: more cookie records of the same entry into the kernel may still
 * come after the stack (see on_cookie()), and would then look like cookie
 * records without a stack.
 */
static void settle(void)
{
	unsigned int h;

	for (h = 0; h < HASH_SIZE; h++) {
		struct seen **p = &table[h];

		while (*p) {
			struct seen *s = *p;

			if (!s->records && counts.orphans++ < 5)
				ksft_print_msg("task %d: stack %llx has no cookie record\n",
					       s->pid, s->cookie);
			if (!s->stacks && counts.orphans++ < 5)
				ksft_print_msg("task %d: cookie %llx has no stack\n",
					       s->pid, s->cookie);
			*p = s->next;
			free(s);
			pending--;
		}
	}
}

struct reader {
	pthread_t thread;
	struct ftu_raw raw;
	int err;
};

static void *reader_main(void *arg)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	struct reader *r = arg;
	unsigned int idle = 0;

	/* After the workers stop: until the buffer stays empty for 2 s */
	while (!atomic_load(&stop) || idle < 400) {
		int n = ftu_raw_read(&r->raw);

		if (n < 0) {
			r->err = n;
			break;
		}
		idle = n ? 0 : idle + 1;
		if (!n)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

/* An instance with the triggers, the getppid one if @getppid */
static int setup(struct ftu_instance *in, const char *name, bool getppid)
{
	char tname[64];
	int ret;

	snprintf(tname, sizeof(tname), "%s_%d", name, getpid());
	ret = ftu_instance_create(in, tname);
	if (ret)
		return ret;
	ret = ftu_write(in->dir, EXIT "/trigger", TRIGGER);
	if (!ret)
		ret = ftu_write(in->dir, TIMER "/trigger", TRIGGER);
	if (!ret && getppid)
		ret = ftu_write(in->dir, GETPPID "/trigger", TRIGGER);
	return ret;
}

/* "overrun: N" and "dropped events: N" of every CPU of instance @dir */
static unsigned long lost_events(const char *dir)
{
	unsigned long lost = 0;
	char file[64], *text;
	int cpu;

	for (cpu = 0; cpu < FTU_MAX_CPUS; cpu++) {
		const char *p;

		char path[512];

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		if (access(path, F_OK))
			break;
		text = ftu_read(dir, file, NULL);
		if (!text)
			break;
		p = strstr(text, "overrun: ");
		if (p)
			lost += strtoul(p + 9, NULL, 10);
		p = strstr(text, "dropped events: ");
		if (p)
			lost += strtoul(p + 16, NULL, 10);
		free(text);
	}
	return lost;
}

/* The thread that toggles A's getppid trigger every 50 ms */
struct toggler {
	pthread_t thread;
	struct ftu_instance *a;
	unsigned long toggles;
	int err;
};

static void *toggler_main(void *arg)
{
	struct timespec pace = { 0, 50 * 1000 * 1000 };
	struct toggler *t = arg;
	bool on = true;

	while (!atomic_load(&stop)) {
		nanosleep(&pace, NULL);
		on = !on;
		t->err = ftu_write(t->a->dir, GETPPID "/trigger",
				   on ? TRIGGER : "!stacktrace:user");
		if (t->err)
			break;
		t->toggles++;
	}
	return NULL;
}

/* The thread that removes instance B and makes it again every 250 ms */
struct remaker {
	pthread_t thread;
	struct ftu_instance b;
	unsigned long remade;
	int err;
};

static void *remaker_main(void *arg)
{
	struct timespec pace = { 0, 250 * 1000 * 1000 };
	struct remaker *r = arg;

	while (!atomic_load(&stop)) {
		nanosleep(&pace, NULL);
		r->err = ftu_instance_remove(&r->b);
		if (!r->err)
			r->err = setup(&r->b, "sframe_ftrace_stress_b", true);
		if (r->err)
			break;
		r->remade++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 60;
	int nthreads = argc > 2 ? atoi(argv[2]) : 6;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned long threads = 0, calls = 0;
	struct reader reader = { };
	struct toggler toggler = { };
	struct remaker remaker = { };
	struct ftu_instance a;
	struct slot slots[MAX_THREADS] = { };
	unsigned long lost;
	double end;
	int i;

	ksft_print_header();
	ksft_set_plan(4);
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds < 1)
		ksft_exit_fail_msg("usage: %s [SECONDS [THREADS (1-%d)]]\n",
				   argv[0], MAX_THREADS);
	if (sft_symtab_load_self(&syms) ||
	    !realpath("/proc/self/exe", self_path) ||
	    sft_elf_load(&self_elf, self_path))
		ksft_exit_fail_msg("cannot read this program\n");

	if (setup(&a, "sframe_ftrace_stress_a", true) ||
	    ftu_write(a.dir, "buffer_size_kb", "4096") ||
	    setup(&remaker.b, "sframe_ftrace_stress_b", true))
		ksft_exit_fail_msg("cannot set up the instances\n");
	reader.raw.on_cookie = on_cookie;
	reader.raw.on_stack = on_stack;
	reader.raw.ctx = &counts;
	toggler.a = &a;
	if (ftu_raw_open(&reader.raw, a.dir) ||
	    pthread_create(&reader.thread, NULL, reader_main, &reader) ||
	    pthread_create(&toggler.thread, NULL, toggler_main, &toggler) ||
	    pthread_create(&remaker.thread, NULL, remaker_main, &remaker))
		ksft_exit_fail_msg("cannot start the threads\n");

	ksft_print_msg("%d s, %d worker threads at a time\n", seconds,
		       nthreads);
	end = sft_now() + seconds;
	while (sft_now() < end) {
		int s;

		for (s = 0; s < nthreads; s++) {
			struct slot *sl = &slots[s];

			if (sl->running && !atomic_load(&sl->done))
				continue;
			if (sl->running) {
				pthread_join(sl->thread, NULL);
				calls += sl->calls;
			}
			sl->calls = 0;
			sl->life_ms = rand() % 200;
			atomic_store(&sl->done, false);
			sl->running = !pthread_create(&sl->thread, NULL,
						      worker, sl);
			threads += sl->running;
		}
		nanosleep(&tick, NULL);
	}
	atomic_store(&stop, true);
	pthread_join(toggler.thread, NULL);
	pthread_join(remaker.thread, NULL);
	for (i = 0; i < nthreads; i++) {
		if (slots[i].running) {
			pthread_join(slots[i].thread, NULL);
			calls += slots[i].calls;
		}
	}
	pthread_join(reader.thread, NULL);
	lost = lost_events(a.dir);
	ftu_raw_close(&reader.raw);
	settle();
	ftu_instance_remove(&remaker.b);
	ftu_instance_remove(&a);

	ksft_print_msg("%lu threads, %lu getppid calls\n", threads, calls);
	ksft_print_msg("A's getppid trigger toggled %lu times, B made %lu times\n",
		       toggler.toggles, remaker.remade);
	ksft_print_msg("A: %lu cookie records, %lu of them without a stack to come\n",
		       counts.cookies, counts.none);
	ksft_print_msg("A: %lu stacks: getppid %lu right, %lu wrong\n",
		       counts.stacks, counts.chain_ok, counts.chain_bad);
	ksft_print_msg("A: %lu stacks of exits and interrupts, %lu without a name\n",
		       counts.other, counts.other_bad);
	ksft_print_msg("A: %lu records without their match, %lu duplicate stacks\n",
		       counts.orphans, counts.duplicates);
	ksft_print_msg("A: %lu cookie records after their stack, %lu after a record too\n",
		       counts.late, counts.late_settled);
	ksft_print_msg("A: %lu records dropped or overwritten, %u undecodable\n",
		       lost, reader.raw.bad);

	ksft_test_result(!toggler.err && !remaker.err && !reader.err &&
			 toggler.toggles >= 2 && remaker.remade >= 1,
			 "the triggers toggled and instance B made again under load\n");
	ksft_test_result(!lost && !reader.raw.bad && counts.cookies > 100,
			 "A's buffer lost nothing (%lu cookie records)\n",
			 counts.cookies);
	ksft_test_result(!counts.orphans && !counts.duplicates,
			 "every cookie record has exactly one stack, every stack its cookie record\n");
	ksft_test_result(counts.chain_ok > 100 && !counts.chain_bad &&
			 !counts.other_bad,
			 "every getppid stack is the chain, named by file and offset (%lu)\n",
			 counts.chain_ok);
	sft_elf_free(&self_elf);
	sft_symtab_free(&syms);
	ksft_finished();
}
