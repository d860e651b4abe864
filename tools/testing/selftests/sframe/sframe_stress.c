// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame registry, codectl(2) and the user unwinder under load: the
 * program of "make stress", not a test of the kselftest run.
 *
 *	sframe_stress [-p PROCS] [-t THREADS] [-F HZ] [-f PERCENT] [-s SEED] SECONDS
 *
 * For SECONDS, PROCS worker processes (3) run at once, each with threads
 * that do this, all the time:
 *
 *  - THREADS runners (2), each sampled by a task-clock perf event at HZ
 *    (500) with deferred user callchains: recursions of functions built
 *    without frame pointers, some with a frame pointer frame (VLA), some
 *    making system calls, in the program's text and in "objects": this
 *    program's file mapped again, its text made executable, whose text the
 *    registrar registers with the object's .sframe;
 *  - a mapper: maps and releases objects; munmaps, maps over, moves and
 *    shrinks (mremap), mprotects (W^X cycles, no access) their text and
 *    .sframe, whole or a page at a time;
 *  - a registrar: codectl registrations of the objects (whole, in pieces,
 *    with another object's section, with path names and build IDs, with
 *    random sizes and pointers, a burst up to the limit of 1024) and
 *    unregistrations; invalid arguments, each with the error it must give;
 *  - a rewriter: rewrites the .sframe bytes of objects at random;
 *  - a forker: fork, fork and exec of this program, and exit, in a loop,
 *    two children at a time;
 *  - the main thread: runs the known chain (sframe_chain.h) under a
 *    tracepoint, whose stacks must all arrive; in worker 0, which leaves
 *    its own text and .sframe alone, they must be the real chain.
 *
 * Worker 1 also unmaps a page of its own text, which drops the program's
 * registration from exec, maps an anonymous page there and registers the
 * text again with codectl; worker 2 rewrites its own .sframe at random.
 *
 * Each worker keeps the registrations it must have: those of exec, plus
 * those codectl made, less those it removed and those that munmap, mremap
 * and mmap dropped with their memory.  /proc/self/sframe must say exactly
 * that after the registrar's changes, in every child forked with the same
 * memory (less what the child does not map: MADV_DONTFORK), and at the
 * end, before and after the worker unregisters and unmaps all it made.
 * Each exec'd child must have the registrations of its own ELF program and
 * interpreter, and its stack must be the chain.
 *
 * With -f, failslab and fail_page_alloc (debugfs) fail PERCENT% of the
 * allocations of some of the registrar's codectl calls (make-it-fail, with
 * task-filter: only there); fail-nth fails one allocation, chosen at
 * random, of other registrations, of forks and of execs (a fork makes
 * hundreds: a share of them would fail them all).  The number of faults
 * injected is read back from debugfs.
 *
 * Under QEMU's TCG, a sample and its unwind take long enough that at
 * rates much above 500 Hz the timer expires again during them: the extra
 * samples only share the unwind of the first.
 *
 * The output ends with a line of figures, "sframe_stress: ..."; the exit
 * code is 0 when every check passed.  The kernel's log (no splat, no
 * leak) is for the harness to judge.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/auxvec.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "sframe_codectl.h"
#include "sframe_lib.h"

#define MAX_PROCS	16
#define MAX_RUNNERS	16
#define NR_OBJS		6
/* SFRAME_MAX_SECTIONS: registrations a process may hold */
#define REG_LIMIT	1024
#define MAX_REGS	(REG_LIMIT + 64)
/* Pages of a part of an object that the mapper follows one by one */
#define MAX_PART_PAGES	256
#define RING_PAGES	16
/*
 * A child that runs longer is killed and said to be slow: in a loaded TCG
 * guest an exec alone can take a minute.  One that outlives SIGKILL by
 * KILL_TIMEOUT is stuck in the kernel: that fails the run.
 */
#define CHILD_TIMEOUT	120
#define KILL_TIMEOUT	60
/* Room for the failures debugfs counts down */
#define FI_TIMES	1000000000
#define NR_ERRNO	134
#define TASK_SIZE_64	0x800000000000UL
/* Above the user address space, even with 5-level page tables */
#define ABOVE_USER	0x200000000000000UL
#if defined(__x86_64__)
/* i386 codectl, through int $0x80 */
#define NR_CODECTL_I386	473
/* Kinds of invalid codectl() calls: the last one, a compat call */
#define NR_INVALID	26
#else
/* No compat system call from a 64-bit process: one kind less */
#define NR_INVALID	25
#endif

/* Exit codes of the children */
#define EXIT_MISMATCH	3
#define EXIT_BROKEN	4
#define EXIT_EXEC	125

enum {
	ROLE_MAIN, ROLE_RUNNER, ROLE_MAPPER, ROLE_REGISTRAR, ROLE_REWRITER,
	ROLE_FORKER, NR_ROLES
};

static const char * const role_names[] = {
	"main", "runners", "mapper", "registrar", "rewriter", "forker",
	"children",
};

/* Everything counted, in memory shared by all the processes */
struct stats {
	unsigned long long samples, unwinds, unwind_ips, deepest, lost, throttled;
	unsigned long long sync_samples, deferred_samples, requests, bad_records;
	unsigned long long child_ms;
	/* CPU time, in ms: the threads by role, and the children */
	unsigned long long cpu_ms[NR_ROLES + 1];
	unsigned long long real_runs, copy_runs;
	unsigned long long chain_runs, verdicts[SFT_BROKEN + 1];
	unsigned long long codectl_calls, regs, unregs, reg_injected, bursts, invalid;
	unsigned long long cerr[NR_ERRNO];
	unsigned long long nth_armed, nth_fired, nth_max;
	unsigned long long maps, releases, munmaps, mmap_overs, mremaps, mremap_fails;
	unsigned long long mprotects, madvises, rewrites, self_changes;
	unsigned long long forks, fork_fails, checked, execs, exec_fails, plain;
	unsigned long long slow_kids;
	unsigned long long proc_checks, mismatches, errors;
};

static struct stats *st;

static void count(unsigned long long *field, unsigned long long n)
{
	__atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

static void count_max(unsigned long long *field, unsigned long long v)
{
	unsigned long long old = __atomic_load_n(field, __ATOMIC_RELAXED);

	while (v > old &&
	       !__atomic_compare_exchange_n(field, &old, v, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Messages: one write() each, safe in a child of a threaded process */
static __printf(1, 2) void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "# [%d] ", getpid());
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (write(STDOUT_FILENO, buf, strlen(buf)) < 0)
		return;
}

#define FAIL(...)	do { count(&st->errors, 1); say(__VA_ARGS__); } while (0)
#define MISMATCH(...)	do { count(&st->mismatches, 1); say(__VA_ARGS__); } while (0)

static __u64 rnd(__u64 *s)
{
	/* xorshift64 */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned long rnd_below(__u64 *s, unsigned long n)
{
	return n ? rnd(s) % n : 0;
}

static void nap_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static const char *errname(int err)
{
	const char *s = err ? strerrorname_np(err) : "0";

	return s ? s : "E?";
}

/* Registrations: what the process must have, and what it has */

struct reg {
	unsigned long ts, te, ss, se;	/* text and .sframe ranges */
	bool user;			/* made by codectl, not exec */
};

struct regset {
	unsigned int n;
	struct reg r[MAX_REGS];
};

static bool overlap(unsigned long a, unsigned long b, unsigned long c,
		    unsigned long d)
{
	return a < d && c < b;
}

static int regset_find(const struct regset *rs, unsigned long ts)
{
	unsigned int i;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].ts == ts)
			return i;
	return -1;
}

static bool regset_overlaps(const struct regset *rs, unsigned long ts,
			    unsigned long te)
{
	unsigned int i;

	for (i = 0; i < rs->n; i++)
		if (overlap(ts, te, rs->r[i].ts, rs->r[i].te))
			return true;
	return false;
}

/* Insert in text order */
static void regset_add(struct regset *rs, const struct reg *r)
{
	unsigned int i = rs->n;

	if (rs->n >= MAX_REGS)
		return;
	while (i && rs->r[i - 1].ts > r->ts) {
		rs->r[i] = rs->r[i - 1];
		i--;
	}
	rs->r[i] = *r;
	rs->n++;
}

static void regset_del(struct regset *rs, unsigned int i)
{
	memmove(&rs->r[i], &rs->r[i + 1], (rs->n - i - 1) * sizeof(rs->r[0]));
	rs->n--;
}

/* munmap, mremap or mmap over [start, end): what the kernel drops */
static void regset_unmap(struct regset *rs, unsigned long start,
			 unsigned long end)
{
	unsigned int i = 0;

	while (i < rs->n) {
		const struct reg *r = &rs->r[i];

		if (overlap(start, end, r->ts, r->te) ||
		    overlap(start, end, r->ss, r->se))
			regset_del(rs, i);
		else
			i++;
	}
}

/* A whole file, NUL-terminated, without stdio; NULL with errno set */
static char *read_all(const char *path, size_t *len)
{
	size_t size = 65536, got = 0;
	char *buf = malloc(size), *p;
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (size - got < 8192) {
			p = realloc(buf, size * 2);
			if (!p) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			buf = p;
			size *= 2;
		}
		n = read(fd, buf + got, size - got - 1);
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}

static int reg_cmp(const void *a, const void *b)
{
	const struct reg *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* /proc/self/sframe: 0, or a negative errno after saying why */
static int regs_proc(struct regset *rs)
{
	char *buf, *line, *next;
	int ret = 0;

	buf = read_all("/proc/self/sframe", NULL);
	if (!buf) {
		ret = -errno;
		say("/proc/self/sframe: %s\n", strerror(-ret));
		return ret;
	}
	rs->n = 0;
	for (line = buf; *line; line = next) {
		char source[16], state[16];
		unsigned int version;
		struct reg r;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (sscanf(line, "%lx-%lx %lx-%lx v%u %15s %15s", &r.ts, &r.te,
			   &r.ss, &r.se, &version, source, state) != 7 ||
		    (strcmp(source, "exec") && strcmp(source, "codectl")) ||
		    (strcmp(state, "ok") && strcmp(state, "bad"))) {
			say("/proc/self/sframe: bad line: %.*s", (int)(next - line),
			    line);
			ret = -EPROTO;
			break;
		}
		r.user = !strcmp(source, "codectl");
		if (rs->n < MAX_REGS)
			rs->r[rs->n++] = r;
	}
	free(buf);
	qsort(rs->r, rs->n, sizeof(rs->r[0]), reg_cmp);
	return ret;
}

static bool reg_equal(const struct reg *a, const struct reg *b)
{
	return a->ts == b->ts && a->te == b->te && a->ss == b->ss &&
	       a->se == b->se && a->user == b->user;
}

static void say_reg(const char *what, const struct reg *r)
{
	say("  %s %lx-%lx %lx-%lx %s\n", what, r->ts, r->te, r->ss, r->se,
	    r->user ? "codectl" : "exec");
}

/*
 * Compare what the process must have (@want, in text order) with what
 * /proc/self/sframe says; on a difference, say what differs.  @subset: the
 * process may have fewer.  Return: true when they agree.
 */
static bool regs_agree(const struct regset *want, bool subset,
		       const char *when)
{
	static struct regset got;
	unsigned int i = 0, j = 0, shown = 0;
	bool ok = true;

	count(&st->proc_checks, 1);
	if (regs_proc(&got))
		return false;
	while (i < want->n || j < got.n) {
		const struct reg *w = i < want->n ? &want->r[i] : NULL;
		const struct reg *g = j < got.n ? &got.r[j] : NULL;

		if (w && g && reg_equal(w, g)) {
			i++;
			j++;
			continue;
		}
		if (w && (!g || w->ts <= g->ts)) {
			i++;
			if (subset && !w->user)
				continue;
			if (ok)
				say("%s: /proc/self/sframe differs:\n", when);
			ok = false;
			if (shown++ < 8)
				say_reg("missing", w);
		} else {
			j++;
			if (ok)
				say("%s: /proc/self/sframe differs:\n", when);
			ok = false;
			if (shown++ < 8)
				say_reg("extra  ", g);
		}
	}
	if (!ok)
		say("%s: %u registrations expected, %u in /proc/self/sframe\n",
		    when, want->n, got.n);
	return ok;
}

/* This program and its ELF file */

static struct sft_symtab syms;
static struct sft_self self;

/*
 * An object is this program's file, mapped whole (up to the end of its
 * last PT_LOAD) with its text segment made executable.  Its parts: A
 * before the text, T the text pages, B after them, which holds .sframe.
 * File offsets and addresses differ by the same amount in the text and
 * the .sframe segments, so an object's .sframe describes its text.
 */
static struct geom {
	int fd;
	unsigned long page;
	unsigned long text_off, text_size;	/* file offsets, bytes */
	unsigned long sf_off, sf_size;
	unsigned long t_pg, t_len, b_pg, b_len, file_end;
	unsigned long delta;			/* vaddr - file offset */
	unsigned long real_text, real_text_end;	/* this process's */
	unsigned long real_sf, real_sf_end;
} g;

static unsigned long round_up(unsigned long x, unsigned long a)
{
	return (x + a - 1) & ~(a - 1);
}

static int geom_init(void)
{
	const struct elf64_phdr *text = NULL, *sf, *ph;
	unsigned int i;

	g.page = sysconf(_SC_PAGESIZE);
	sf = sft_elf_find_phdr(&self.elf, PT_GNU_SFRAME);
	for (i = 0; i < self.elf.phnum; i++) {
		ph = &self.elf.phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		g.file_end = round_up(ph->p_offset + ph->p_filesz, g.page) >
			     g.file_end ?
			     round_up(ph->p_offset + ph->p_filesz, g.page) :
			     g.file_end;
		if (!(ph->p_flags & PF_X))
			continue;
		if (text) {
			say("more than one executable segment\n");
			return -1;
		}
		text = ph;
	}
	if (!text || !sf || !self.has_sframe) {
		say("no executable segment or no PT_GNU_SFRAME\n");
		return -1;
	}
	g.delta = text->p_vaddr - text->p_offset;
	g.text_off = text->p_offset;
	g.text_size = text->p_filesz;
	g.sf_off = sf->p_offset;
	g.sf_size = sf->p_filesz;
	g.t_pg = g.text_off & ~(g.page - 1);
	g.t_len = round_up(g.text_off + g.text_size, g.page) - g.t_pg;
	g.b_pg = g.t_pg + g.t_len;
	g.b_len = g.file_end > g.b_pg ? g.file_end - g.b_pg : 0;
	g.real_text = text->p_vaddr + syms.bias;
	g.real_text_end = g.real_text + text->p_memsz;
	g.real_sf = self.sframe_start;
	g.real_sf_end = self.sframe_end;
	if (sf->p_vaddr - sf->p_offset != g.delta || g.sf_off < g.b_pg ||
	    g.sf_off + g.sf_size > g.file_end || !g.t_pg ||
	    g.t_len / g.page > MAX_PART_PAGES ||
	    g.b_len / g.page > MAX_PART_PAGES) {
		say("this program's layout does not suit objects\n");
		return -1;
	}
	g.fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (g.fd < 0) {
		say("open /proc/self/exe: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * What the runners run: functions without frame pointers, calling only
 * each other, using no global data, no constant in memory (no vectorized
 * loop) and no stack protector, so that a copy of the text runs them
 * wherever it is mapped, whatever became of the rest of the copy.
 */
#define SO_FN	__attribute__((noipa, no_stack_protector))

static SO_FN unsigned long so_rec(long depth, unsigned long n);

static SO_FN unsigned long so_spin(unsigned long n)
{
	unsigned long i, s = n;

	for (i = 0; i < n; i++) {
		s = s * 6364136223846793005UL + i;
		SFT_KEEP(s);
	}
	return s;
}

static SO_FN unsigned long so_sys(unsigned long n)
{
	unsigned long i, r = 0;

	for (i = 0; i < n; i++)
		r += sft_getppid();
	return r;
}

/* Locals, and the callee-saved registers of six values */
static SO_FN unsigned long so_frame(long depth, unsigned long n)
{
	unsigned long a[24], b = n * 3, c = n ^ 5, d = n + 7, e = n * 11;
	unsigned long r;
	int i;

	for (i = 0; i < 24; i++) {
		a[i] = n + i;
		SFT_KEEP(a[i]);
	}
	SFT_ESCAPE(a);
	SFT_KEEP(b);
	SFT_KEEP(c);
	SFT_KEEP(d);
	SFT_KEEP(e);
	r = so_rec(depth - 1, n);
	SFT_KEEP(r);
	return r + a[depth & 15] + b + c + d + e;
}

/* A variable-length array: a frame pointer frame */
static SO_FN unsigned long so_vla(long depth, unsigned long n)
{
	char buf[16 + (n & 0xf0)];
	unsigned long r;

	buf[0] = 1;
	SFT_ESCAPE(buf);
	r = so_rec(depth - 1, n);
	SFT_KEEP(r);
	return r + buf[0];
}

static SO_FN unsigned long so_rec(long depth, unsigned long n)
{
	unsigned long r;

	if (depth <= 0) {
		if (n & 1)
			r = so_sys(1 + (n >> 8) % 8);
		else
			r = so_spin(n);
	} else if (depth % 4 == 1) {
		r = so_frame(depth, n);
	} else if (depth % 4 == 2) {
		r = so_vla(depth, n);
	} else {
		r = so_rec(depth - 1, n);
	}
	SFT_KEEP(r);
	return r + depth;
}

/* Objects */

struct part {
	unsigned long addr, len;	/* 0 when gone */
	__u64 own[MAX_PART_PAGES / 64];	/* pages still mapped by us */
	bool damaged;			/* a page gone or replaced */
	bool split;			/* maybe in several VMAs */
};

enum { OBJ_EMPTY, OBJ_MAPPED };

struct obj {
	pthread_rwlock_t lock;	/* runners and rewriter read, mapper writes */
	int state;
	struct part a, t, b;
	bool t_exec;		/* every text page executable */
	int b_prot;
	int dirty;		/* .sframe bytes rewritten */
};

static bool part_owns(const struct part *p, unsigned long i)
{
	return p->own[i / 64] & (1ULL << (i % 64));
}

static void part_set(struct part *p, unsigned long addr, unsigned long len)
{
	unsigned long i;

	p->addr = addr;
	p->len = len;
	p->damaged = false;
	p->split = false;
	memset(p->own, 0, sizeof(p->own));
	for (i = 0; i < len / g.page; i++)
		p->own[i / 64] |= 1ULL << (i % 64);
}

static bool part_whole(const struct part *p)
{
	unsigned long i;

	if (!p->addr || !p->len)
		return false;
	for (i = 0; i < p->len / g.page; i++)
		if (!part_owns(p, i))
			return false;
	return true;
}

static unsigned long obj_text(const struct obj *o)
{
	return o->t.addr + g.text_off - g.t_pg;
}

static unsigned long obj_sframe(const struct obj *o)
{
	return o->b.addr + g.sf_off - g.b_pg;
}

/* Is the .sframe section of @o all there, as mapped from the file? */
static bool obj_sframe_intact(const struct obj *o)
{
	unsigned long first = (g.sf_off - g.b_pg) / g.page;
	unsigned long last = (g.sf_off + g.sf_size - 1 - g.b_pg) / g.page, i;

	if (o->state != OBJ_MAPPED || !o->b.addr || o->b.damaged ||
	    (last + 1) * g.page > o->b.len)
		return false;
	for (i = first; i <= last; i++)
		if (!part_owns(&o->b, i))
			return false;
	return true;
}

static bool obj_runnable(const struct obj *o)
{
	return o->state == OBJ_MAPPED && part_whole(&o->t) && !o->t.damaged &&
	       o->t.len == g.t_len && o->t_exec;
}

/* Where function @fn of the program is in the text of @o */
static unsigned long obj_fn(const struct obj *o, unsigned long fn)
{
	return o->t.addr + fn - syms.bias - g.delta - g.t_pg;
}

/* A worker */

enum { SPARE_FILE, SPARE_GONE, SPARE_ANON };

static struct worker {
	int id;
	bool strict_chain;	/* worker 0: its chain stacks are the truth */
	bool self_text;		/* worker 1: unmaps a page of its text */
	bool self_sframe;	/* worker 2: rewrites its .sframe */
	int stop;
	unsigned int runners, hz, fault;
	__u64 seed;
	/* Taken for every change of registrations or of objects' places */
	pthread_mutex_t lock;
	struct regset model;
	struct obj objs[NR_OBJS];
	struct obj fixture;	/* for invalid calls; nobody changes it */
	unsigned long guard;	/* a readable page, then a PROT_NONE one */
	int spare;
	double next_burst;
} wk = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* What the calling thread is */
static __thread int role;

/* Count the CPU time of the calling thread, at its end */
static void count_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return;
	count(&st->cpu_ms[role], ru.ru_utime.tv_sec * 1000 +
	      ru.ru_utime.tv_usec / 1000 + ru.ru_stime.tv_sec * 1000 +
	      ru.ru_stime.tv_usec / 1000);
}

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;

#if defined(__x86_64__)
	unsigned long long ip = uc->uc_mcontext.gregs[REG_RIP];
#else
	unsigned long long ip = uc->uc_mcontext.pc;
#endif

	say("worker %d, %s thread: signal %d at %p, ip %llx\n", wk.id,
	    role_names[role], sig, si->si_addr, ip);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_crash_say(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
}

static bool stopping(void)
{
	return __atomic_load_n(&wk.stop, __ATOMIC_RELAXED);
}

/* Check the model against /proc/self/sframe; wk.lock held */
static bool check_model(const char *when)
{
	if (regs_agree(&wk.model, false, when))
		return true;
	count(&st->mismatches, 1);
	/* Follow the kernel from here, so that the next check is fresh. */
	regs_proc(&wk.model);
	return false;
}

static void model_unmap(unsigned long start, unsigned long len)
{
	regset_unmap(&wk.model, start, start + len);
}

/* Fault injection, for the thread that calls these */

enum { INJ_NONE, INJ_RANDOM, INJ_NTH };

struct inj {
	int mif_fd, nth_fd;
	unsigned int nth_span;	/* allocations to choose from */
};

static int fault_percent;

static void inj_open(struct inj *in, unsigned int span)
{
	in->mif_fd = -1;
	in->nth_fd = -1;
	in->nth_span = span;
	if (!fault_percent)
		return;
	in->mif_fd = open("/proc/thread-self/make-it-fail", O_RDWR | O_CLOEXEC);
	in->nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (in->mif_fd < 0 || in->nth_fd < 0)
		FAIL("/proc/thread-self/make-it-fail or fail-nth: %s\n",
		     strerror(errno));
}

static int inj_mode(struct inj *in, __u64 *s)
{
	if (in->mif_fd < 0 || in->nth_fd < 0)
		return INJ_NONE;
	return rnd_below(s, 3);
}

static void write_knob_fd(int fd, const char *val)
{
	if (pwrite(fd, val, strlen(val), 0) < 0)
		FAIL("fault injection knob: %s\n", strerror(errno));
}

/* Return: for INJ_NTH, which allocation is to fail */
static unsigned long inj_begin(struct inj *in, int mode, __u64 *s)
{
	unsigned long k = 1 + rnd_below(s, in->nth_span);
	char buf[24];

	if (mode == INJ_RANDOM) {
		write_knob_fd(in->mif_fd, "1");
	} else if (mode == INJ_NTH) {
		snprintf(buf, sizeof(buf), "%lu", k);
		write_knob_fd(in->nth_fd, buf);
		count(&st->nth_armed, 1);
	}
	return k;
}

/* Return: true when fail-nth failed an allocation */
static bool inj_end(struct inj *in, int mode, unsigned long armed)
{
	char buf[24] = "";
	unsigned long left;
	ssize_t n;

	if (mode == INJ_RANDOM) {
		write_knob_fd(in->mif_fd, "0");
		return false;
	}
	if (mode != INJ_NTH)
		return false;
	n = pread(in->nth_fd, buf, sizeof(buf) - 1, 0);
	left = n > 0 ? strtoul(buf, NULL, 10) : 0;
	if (!left) {
		count(&st->nth_fired, 1);
		return true;
	}
	write_knob_fd(in->nth_fd, "0");
	if (armed > left)
		count_max(&st->nth_max, armed - left);
	return false;
}

/*
 * Write @val to a fault injection file of this thread, whatever it takes:
 * while fail-nth or make-it-fail is set, opening the file may fail too.
 */
static int self_knob(const char *name, const char *val)
{
	char path[64];
	int i, fd;

	snprintf(path, sizeof(path), "/proc/thread-self/%s", name);
	for (i = 0; i < 10000; i++) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, val, strlen(val)) == (ssize_t)strlen(val)) {
			close(fd);
			return 0;
		}
		close(fd);
	}
	say("cannot write %s to %s\n", val, path);
	return -1;
}

/* codectl(2) */

static int codectl(unsigned int option, const void *info, size_t size,
		   unsigned int flags)
{
	int err = 0;

	if (syscall(__NR_codectl, option, info, size, flags))
		err = errno;
	count(&st->codectl_calls, 1);
	if (err < NR_ERRNO)
		count(&st->cerr[err], 1);
	return err;
}

#if defined(__x86_64__)
static int compat_codectl(unsigned int option, unsigned int info,
			  unsigned int size, unsigned int flags)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "0" ((unsigned long)NR_CODECTL_I386), "b" (option),
		       "c" ((unsigned long)info), "d" (size), "S" (flags)
		     : "memory", "r8", "r9", "r10", "r11");
	ret = (int)ret;
	count(&st->codectl_calls, 1);
	if (-ret < NR_ERRNO)
		count(&st->cerr[-ret], 1);
	return -ret;
}
#endif

/* Room for an argument of any size up to two pages, page aligned */
static __thread union {
	__u64 align;
	unsigned char b[8192];
} argbuf;

static __thread char path_buf[PATH_MAX + 64];
static __thread unsigned char build_id[32];

/* Return: whether the names are right */
static bool random_names(struct codectl_sframe *a, __u64 *s)
{
	bool ok = true;

	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789/._- \t\n\\";
	unsigned long len, i, k = rnd_below(s, 100);

	a->pathname = 0;
	a->build_id = 0;
	a->build_id_len = 0;
	if (k < 40)
		return true;
	if (k < 80) {
		k = rnd_below(s, 100);
		len = k < 60 ? 1 + rnd_below(s, 64) :
		      k < 90 ? 65 + rnd_below(s, 400) :
		      k < 95 ? PATH_MAX - 1 : PATH_MAX;
		for (i = 0; i < len; i++)
			path_buf[i] = chars[rnd_below(s, sizeof(chars) - 1)];
		path_buf[len] = '\0';
		a->pathname = (unsigned long)path_buf;
		if (!rnd_below(s, 50))
			a->pathname = wk.guard + g.page;
		ok = len < PATH_MAX && a->pathname == (unsigned long)path_buf;
	}
	if (rnd_below(s, 2)) {
		for (i = 0; i < sizeof(build_id); i++)
			build_id[i] = rnd(s);
		a->build_id = (unsigned long)build_id;
		a->build_id_len = 1 + rnd_below(s, CODECTL_BUILD_ID_MAX);
		if (!rnd_below(s, 20))
			a->build_id_len = CODECTL_BUILD_ID_MAX + 1;
		ok = ok && a->build_id_len <= CODECTL_BUILD_ID_MAX;
	}
	return ok;
}

/*
 * What a registration's result says about the model; wk.lock held.  Only
 * these are certain whatever else happens: a registration succeeds only
 * where no text range is registered and below the limit; EEXIST means an
 * overlap, ENOSPC the limit.
 */
static void after_register(int err, const struct codectl_sframe *a, int mode)
{
	bool over = regset_overlaps(&wk.model, a->text_start, a->text_end);
	bool full = wk.model.n >= REG_LIMIT;
	struct reg r = {
		a->text_start, a->text_end, a->sframe_start, a->sframe_end,
		true,
	};

	if (!err) {
		count(&st->regs, 1);
		if (over || full)
			MISMATCH("registration of %lx-%lx over another or past %u\n",
				 r.ts, r.te, wk.model.n);
		else
			regset_add(&wk.model, &r);
	} else if (err == EEXIST && !over) {
		MISMATCH("EEXIST for %lx-%lx, which overlaps no registration\n",
			 r.ts, r.te);
	} else if (err == ENOSPC && !full) {
		MISMATCH("ENOSPC with %u registrations\n", wk.model.n);
	} else if (mode != INJ_NONE && (err == ENOMEM || err == EFAULT)) {
		count(&st->reg_injected, 1);
	}
}

/*
 * Register @a with an info_size at random (the kernel then sees its first
 * bytes, the rest as zero) and fault injection at random; wk.lock held.
 * @valid: the registration must succeed unless it overlaps one, or the
 * process holds the most, or a fault is injected, or a name in the whole
 * structure is wrong (@names_ok false).
 */
static int reg_submit(struct inj *in, __u64 *s, struct codectl_sframe *a,
		      bool valid, bool names_ok)
{
	unsigned long k = rnd_below(s, 100), size, armed;
	bool fired, over, full;
	int mode, err;

	size = k < 25 ? CODECTL_SFRAME_SIZE_VER0 :
	       k < 65 ? CODECTL_SFRAME_SIZE_VER1 :
	       k < 75 ? CODECTL_SFRAME_SIZE_VER0 + rnd_below(s, 24) :
	       CODECTL_SFRAME_SIZE_VER1 + rnd_below(s, g.page - 55);
	memset(argbuf.b, 0, size);
	memcpy(argbuf.b, a, size < sizeof(*a) ? size : sizeof(*a));
	mode = inj_mode(in, s);
	armed = inj_begin(in, mode, s);
	err = codectl(CODECTL_REGISTER_SFRAME, argbuf.b, size, 0);
	fired = inj_end(in, mode, armed);
	over = regset_overlaps(&wk.model, a->text_start, a->text_end);
	full = wk.model.n >= REG_LIMIT;
	if (valid && err && !over && !full && !fired && mode != INJ_RANDOM &&
	    (size == CODECTL_SFRAME_SIZE_VER0 ||
	     (size >= CODECTL_SFRAME_SIZE_VER1 && names_ok)))
		MISMATCH("registration of an intact object %lx-%lx (%lx-%lx, size %lu): %s\n",
			 (unsigned long)a->text_start,
			 (unsigned long)a->text_end,
			 (unsigned long)a->sframe_start,
			 (unsigned long)a->sframe_end, size, errname(err));
	after_register(err, a, fired || mode == INJ_RANDOM ? mode : INJ_NONE);
	return err;
}

static struct obj *pick_mapped(__u64 *s)
{
	unsigned int i, k = rnd_below(s, NR_OBJS);

	for (i = 0; i < NR_OBJS; i++) {
		struct obj *o = &wk.objs[(k + i) % NR_OBJS];

		if (o->state == OBJ_MAPPED)
			return o;
	}
	return NULL;
}

static void obj_args(const struct obj *o, struct codectl_sframe *a)
{
	memset(a, 0, sizeof(*a));
	a->text_start = obj_text(o);
	a->text_end = a->text_start + g.text_size;
	a->sframe_start = obj_sframe(o);
	a->sframe_end = a->sframe_start + g.sf_size;
}

/* An object's text with its section, as a loader would */
static void reg_object(struct inj *in, __u64 *s)
{
	struct codectl_sframe a;
	struct obj *o = pick_mapped(s);
	bool names_ok, valid;

	if (!o)
		return;
	obj_args(o, &a);
	names_ok = random_names(&a, s);
	valid = obj_runnable(o) && obj_sframe_intact(o) &&
		(o->b_prot & PROT_READ) && !o->dirty;
	reg_submit(in, s, &a, valid, names_ok);
}

/* A piece of an object's text, with a section of its own or another's */
static void reg_piece(struct inj *in, __u64 *s)
{
	struct obj *o = pick_mapped(s), *other = pick_mapped(s);
	struct codectl_sframe a;
	unsigned long k = rnd_below(s, 10);

	if (!o)
		return;
	obj_args(o, &a);
	a.text_start += rnd_below(s, g.text_size);
	a.text_end = a.text_start + 1 +
		     rnd_below(s, obj_text(o) + g.text_size - a.text_start +
				  (k ? 0 : 2 * g.page));
	if (k < 2) {
		a.sframe_start = g.real_sf;
		a.sframe_end = g.real_sf_end;
	} else if (k < 4 && other) {
		a.sframe_start = obj_sframe(other);
		a.sframe_end = a.sframe_start + g.sf_size;
	} else if (k < 5) {
		a.sframe_start += 4 * rnd_below(s, g.sf_size / 4);
		a.sframe_end = a.sframe_start + 1 + rnd_below(s, g.sf_size);
	}
	reg_submit(in, s, &a, false, false);
}

/* An address that may mean something, or nothing */
static unsigned long pick_addr(__u64 *s)
{
	struct obj *o = pick_mapped(s);

	switch (rnd_below(s, 9)) {
	case 0:
		if (o && o->t.addr)
			return o->t.addr + rnd_below(s, o->t.len + g.page);
		return 0;
	case 1:
		if (o && o->b.addr)
			return o->b.addr + rnd_below(s, o->b.len + g.page);
		return 0;
	case 2:
		return o ? obj_sframe(o) : g.real_sf;
	case 3:
		return g.real_text + rnd_below(s, g.real_text_end - g.real_text);
	case 4:
		return g.real_sf + 4 * rnd_below(s, (g.real_sf_end - g.real_sf) / 4);
	case 5:
		return wk.guard + rnd_below(s, 2 * g.page);
	case 6:
		return rnd(s) & (TASK_SIZE_64 - 1);
	case 7:
		return (rnd_below(s, 2) ? TASK_SIZE_64 : ABOVE_USER / 2) -
		       rnd_below(s, 4 * g.page);
	default:
		return rnd(s);
	}
}

static unsigned long pick_len(__u64 *s)
{
	return 1 + rnd_below(s, 1UL << rnd_below(s, 24));
}

/* Random pointers and sizes, which may still make a registration */
static void reg_random(struct inj *in, __u64 *s)
{
	struct codectl_sframe a;

	memset(&a, 0, sizeof(a));
	a.text_start = pick_addr(s);
	a.text_end = a.text_start + pick_len(s);
	a.sframe_start = pick_addr(s);
	a.sframe_end = a.sframe_start + pick_len(s);
	if (rnd_below(s, 4))
		a.sframe_start &= ~3UL;
	if (!rnd_below(s, 4))
		random_names(&a, s);
	reg_submit(in, s, &a, false, false);
}

/* A piece of this program's own text: EEXIST while exec's is there */
static void reg_real(struct inj *in, __u64 *s)
{
	struct codectl_sframe a;

	memset(&a, 0, sizeof(a));
	a.text_start = g.real_text + rnd_below(s, g.real_text_end - g.real_text);
	a.text_end = a.text_start + 1 +
		     rnd_below(s, g.real_text_end - a.text_start);
	a.sframe_start = g.real_sf;
	a.sframe_end = g.real_sf_end;
	reg_submit(in, s, &a, false, false);
}

static int unregister_at(unsigned long ts, __u64 *s)
{
	struct codectl_unregister *u = (void *)argbuf.b;
	unsigned long size = CODECTL_UNREGISTER_SIZE_VER0;

	if (!rnd_below(s, 4))
		size += rnd_below(s, g.page - size + 1);
	memset(argbuf.b, 0, size);
	u->text_start = ts;
	return codectl(CODECTL_UNREGISTER, u, size, 0);
}

/* Unregister @ts, which the model says is there or not; wk.lock held */
static void unreg_checked(unsigned long ts, __u64 *s)
{
	int i = regset_find(&wk.model, ts), err;

	err = unregister_at(ts, s);
	if (err != (i >= 0 ? 0 : ENOENT)) {
		MISMATCH("unregister %lx: %s, expected %s\n", ts, errname(err),
			 errname(i >= 0 ? 0 : ENOENT));
		return;
	}
	if (!err) {
		count(&st->unregs, 1);
		regset_del(&wk.model, i);
	}
}

static void unreg_known(__u64 *s)
{
	unsigned int i, n = wk.model.n, k = rnd_below(s, n ? n : 1);

	for (i = 0; i < n; i++) {
		const struct reg *r = &wk.model.r[(k + i) % n];

		if (r->user) {
			unreg_checked(r->ts, s);
			return;
		}
	}
}

static void unreg_random(__u64 *s)
{
	unsigned long ts = pick_addr(s);
	int i = regset_find(&wk.model, ts);

	/* Worker 0 keeps the program's registration from exec. */
	if (i >= 0 && !wk.model.r[i].user && wk.strict_chain)
		return;
	unreg_checked(ts, s);
}

/*
 * Pieces of 16 bytes of an object's text until the limit: ENOSPC exactly
 * there; then /proc/self/sframe, and unregister them all.  wk.lock held.
 */
static void burst_to_limit(__u64 *s)
{
	unsigned long ts, i, made = 0;
	struct codectl_sframe a;
	struct obj *o = NULL;
	int err = 0;

	for (i = 0; i < NR_OBJS; i++) {
		struct obj *c = &wk.objs[(i + rnd_below(s, NR_OBJS)) % NR_OBJS];

		if (obj_runnable(c) && obj_sframe_intact(c) &&
		    (c->b_prot & PROT_READ) && !c->dirty)
			o = c;
	}
	if (!o || wk.model.n > REG_LIMIT / 2)
		return;
	obj_args(o, &a);
	ts = a.text_start;
	/* Room in the object's text: what covers it goes first */
	for (i = 0; i < wk.model.n;) {
		const struct reg *r = &wk.model.r[i];
		unsigned long rts = r->ts;

		if (r->user && overlap(r->ts, r->te, a.text_start, a.text_end))
			unreg_checked(rts, s);
		if (i < wk.model.n && wk.model.r[i].ts == rts)
			i++;
	}
	for (i = 0; i + 16 <= g.text_size && !err; i += 16) {
		a.text_start = ts + i;
		a.text_end = a.text_start + 16;
		if (regset_overlaps(&wk.model, a.text_start, a.text_end))
			continue;
		err = codectl(CODECTL_REGISTER_SFRAME, &a,
			      CODECTL_SFRAME_SIZE_VER0, 0);
		after_register(err, &a, INJ_NONE);
		if (!err)
			made++;
	}
	count(&st->bursts, 1);
	if (err != ENOSPC || wk.model.n != REG_LIMIT)
		MISMATCH("%lu registrations, then %s with %u held: not ENOSPC at %d\n",
			 made, errname(err), wk.model.n, REG_LIMIT);
	check_model("burst at the limit");
	for (i = 0; i < g.text_size; i += 16)
		if (regset_find(&wk.model, ts + i) >= 0)
			unreg_checked(ts + i, s);
}

/* Invalid calls: each must fail with its own error, whatever else runs */
static void invalid_call(__u64 *s)
{
	const struct obj *f = &wk.fixture;
	struct codectl_sframe *a = (void *)argbuf.b;
	unsigned long size = CODECTL_SFRAME_SIZE_VER0;
	unsigned int option = CODECTL_REGISTER_SFRAME, flags = 0;
	unsigned long k = rnd_below(s, NR_INVALID);
	const void *info = a;
	int want, err;

	memset(argbuf.b, 0, sizeof(argbuf.b));
	obj_args(f, a);
	switch (k) {
	case 0:
		flags = 1 + rnd_below(s, 0xffffffff);
		want = EINVAL;
		break;
	case 1:
		option = 3 + rnd_below(s, 0xfffffff0);
		want = EINVAL;
		break;
	case 2:
		/*
		 * A JIT registration (struct codectl_jit has the first four
		 * fields' layout) of a table of 0 bytes
		 */
		option = CODECTL_REGISTER_JIT;
		a->sframe_end = 0;
		want = EINVAL;
		break;
	case 3:
		info = NULL;
		want = EFAULT;
		break;
	case 4:
		info = (void *)(wk.guard + g.page + rnd_below(s, g.page));
		want = EFAULT;
		break;
	case 5:
		/* Straddling the end of the readable page */
		info = (void *)(wk.guard + g.page - 8 * (1 + rnd_below(s, 3)));
		memset((void *)(wk.guard + g.page - 32), 0x11, 32);
		want = EFAULT;
		break;
	case 6:
		size = rnd_below(s, CODECTL_SFRAME_SIZE_VER0);
		want = EINVAL;
		break;
	case 7:
		size = g.page + 1 + rnd_below(s, 1 << 20);
		want = E2BIG;
		break;
	case 8:
		size = CODECTL_SFRAME_SIZE_VER1 + 1 +
		       rnd_below(s, g.page - CODECTL_SFRAME_SIZE_VER1);
		argbuf.b[CODECTL_SFRAME_SIZE_VER1 +
			 rnd_below(s, size - CODECTL_SFRAME_SIZE_VER1)] = 1;
		want = E2BIG;
		break;
	case 9:
		a->text_end = a->text_start;
		want = EINVAL;
		break;
	case 10:
		a->text_end = a->text_start - 1 - rnd_below(s, 1 << 20);
		want = EINVAL;
		break;
	case 11:
		a->sframe_end = a->sframe_start - rnd_below(s, 64);
		want = EINVAL;
		break;
	case 12:
		a->text_end = ABOVE_USER + rnd_below(s, 1 << 30);
		want = EINVAL;
		break;
	case 13:
		a->sframe_start += 1 + rnd_below(s, 3);
		want = EINVAL;
		break;
	case 14:
		size = CODECTL_SFRAME_SIZE_VER1;
		a->build_id = (unsigned long)build_id;
		a->build_id_len = CODECTL_BUILD_ID_MAX + 1 + rnd_below(s, 1000);
		want = EINVAL;
		break;
	case 15:
		size = CODECTL_SFRAME_SIZE_VER1;
		if (rnd_below(s, 2))
			a->build_id = (unsigned long)build_id;
		else
			a->build_id_len = 1 + rnd_below(s, 20);
		want = EINVAL;
		break;
	case 16:
		a->text_start = g.page + rnd_below(s, 4 * g.page);
		a->text_end = a->text_start + 1 + rnd_below(s, g.page);
		want = ENOMEM;
		break;
	case 17:
		a->text_start = wk.guard + g.page;
		a->text_end = a->text_start + 1 + rnd_below(s, g.page);
		want = EACCES;
		break;
	case 18:
		a->sframe_start = wk.guard + g.page;
		a->sframe_end = a->sframe_start + 4 + rnd_below(s, g.page - 4);
		want = EACCES;
		break;
	case 19:
		a->sframe_end = a->sframe_start + 1 + rnd_below(s, 27);
		want = ENOEXEC;
		break;
	case 20:
		/* Code is no SFrame header. */
		a->sframe_start = a->text_start & ~3UL;
		a->sframe_end = a->sframe_start + 64 + rnd_below(s, 4096);
		want = ENOEXEC;
		break;
	case 21:
		option = CODECTL_UNREGISTER;
		size = rnd_below(s, CODECTL_UNREGISTER_SIZE_VER0);
		want = EINVAL;
		break;
	case 22:
		option = CODECTL_UNREGISTER;
		size = g.page + 1 + rnd_below(s, 1 << 20);
		want = E2BIG;
		break;
	case 23:
		option = CODECTL_UNREGISTER;
		size = CODECTL_UNREGISTER_SIZE_VER0;
		info = rnd_below(s, 2) ? NULL : (void *)(wk.guard + g.page);
		want = EFAULT;
		break;
	case 24:
		option = CODECTL_UNREGISTER;
		size = CODECTL_UNREGISTER_SIZE_VER0;
		a->text_start = rnd_below(s, g.page);
		want = ENOENT;
		break;
	default:
#if defined(__x86_64__)
		err = compat_codectl(rnd_below(s, 4), rnd(s), rnd(s), 0);
		count(&st->invalid, 1);
		if (err != EOPNOTSUPP)
			FAIL("compat codectl: %s, expected EOPNOTSUPP\n",
			     errname(err));
#endif
		return;
	}
	err = codectl(option, info, size, flags);
	count(&st->invalid, 1);
	if (err != want)
		FAIL("invalid codectl case %lu (option %u, size %lu, flags %#x): %s, expected %s\n",
		     k, option, size, flags, errname(err), errname(want));
}

/* @arg: what makes its random numbers its own */
static void *registrar_main(void *arg)
{
	__u64 s = wk.seed ^ (unsigned long)arg;

	unsigned int ops = 0;
	struct inj in;

	role = ROLE_REGISTRAR;
	inj_open(&in, 8);
	while (!stopping()) {
		unsigned long k = rnd_below(&s, 100);

		if (k < 15) {
			invalid_call(&s);
			nap_us(rnd_below(&s, 1000));
			continue;
		}
		pthread_mutex_lock(&wk.lock);
		if (k < 45) {
			reg_object(&in, &s);
		} else if (k < 55) {
			reg_piece(&in, &s);
		} else if (k < 60) {
			reg_random(&in, &s);
		} else if (k < 64) {
			reg_real(&in, &s);
		} else if (k < 90) {
			unreg_known(&s);
		} else if (k < 99) {
			unreg_random(&s);
		} else if (sft_now() > wk.next_burst) {
			burst_to_limit(&s);
			wk.next_burst = sft_now() + 200;
		}
		if (++ops % 4 == 0)
			check_model("after registrations");
		pthread_mutex_unlock(&wk.lock);
		nap_us(rnd_below(&s, 2000));
	}
	count_cpu();
	return NULL;
}

/* The mapper */

static int obj_map(struct obj *o, __u64 *s)
{
	char *base;

	base = mmap(NULL, g.file_end, PROT_READ, MAP_PRIVATE, g.fd, 0);
	if (base == MAP_FAILED) {
		FAIL("mmap of an object: %s\n", strerror(errno));
		return -1;
	}
	if (mprotect(base + g.t_pg, g.t_len, PROT_READ | PROT_EXEC)) {
		FAIL("mprotect of an object's text: %s\n", strerror(errno));
		munmap(base, g.file_end);
		return -1;
	}
	if (s && !rnd_below(s, 4) && madvise(base, g.file_end, MADV_DONTFORK))
		FAIL("madvise(MADV_DONTFORK): %s\n", strerror(errno));
	part_set(&o->a, (unsigned long)base, g.t_pg);
	part_set(&o->t, (unsigned long)base + g.t_pg, g.t_len);
	part_set(&o->b, (unsigned long)base + g.b_pg, g.b_len);
	o->t_exec = true;
	o->b_prot = PROT_READ;
	o->dirty = 0;
	o->state = OBJ_MAPPED;
	return 0;
}

static void part_unmap(struct part *p)
{
	unsigned long i, n = p->len / g.page;

	for (i = 0; i < n; i++) {
		unsigned long j = i;

		if (!part_owns(p, i))
			continue;
		while (j < n && part_owns(p, j))
			j++;
		if (munmap((void *)(p->addr + i * g.page), (j - i) * g.page))
			FAIL("munmap: %s\n", strerror(errno));
		model_unmap(p->addr + i * g.page, (j - i) * g.page);
		i = j;
	}
	memset(p, 0, sizeof(*p));
}

static void obj_release(struct obj *o)
{
	part_unmap(&o->a);
	part_unmap(&o->t);
	part_unmap(&o->b);
	o->state = OBJ_EMPTY;
	count(&st->releases, 1);
}

/* A page of T or B: munmap it, or map anonymous memory over it */
static void obj_page(struct obj *o, __u64 *s, bool over)
{
	struct part *p = rnd_below(s, 2) ? &o->t : &o->b;
	unsigned long i, addr;
	void *m;

	if (!p->addr || !p->len)
		return;
	i = rnd_below(s, p->len / g.page);
	if (!part_owns(p, i))
		return;
	addr = p->addr + i * g.page;
	if (over) {
		m = mmap((void *)addr, g.page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (m == MAP_FAILED) {
			FAIL("mmap over a page: %s\n", strerror(errno));
			return;
		}
		count(&st->mmap_overs, 1);
	} else {
		if (munmap((void *)addr, g.page)) {
			FAIL("munmap of a page: %s\n", strerror(errno));
			return;
		}
		p->own[i / 64] &= ~(1ULL << (i % 64));
		count(&st->munmaps, 1);
	}
	p->damaged = true;
	p->split = true;
	model_unmap(addr, g.page);
}

/* Move T or B elsewhere, or shrink it by a page */
static void obj_mremap(struct obj *o, __u64 *s, bool shrink)
{
	struct part *p = rnd_below(s, 2) ? &o->t : &o->b;
	unsigned long old = p->addr, len = p->len, i;
	void *dst, *m;

	/* mremap() moves or shrinks what one VMA maps */
	if (!part_whole(p) || p->split)
		return;
	count(&st->mremaps, 1);
	if (shrink) {
		if (len <= g.page)
			return;
		m = mremap((void *)old, len, len - g.page, 0);
		if (m == MAP_FAILED) {
			count(&st->mremap_fails, 1);
			FAIL("mremap shrinking a part: %s\n", strerror(errno));
			return;
		}
		i = len / g.page - 1;
		p->own[i / 64] &= ~(1ULL << (i % 64));
		p->len -= g.page;
		p->damaged = true;
		model_unmap(old + len - g.page, g.page);
		return;
	}
	dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dst == MAP_FAILED) {
		FAIL("mmap of a place to move to: %s\n", strerror(errno));
		return;
	}
	m = mremap((void *)old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (m == MAP_FAILED) {
		/*
		 * The place may be unmapped already, and taken by another
		 * thread: leave it.
		 */
		count(&st->mremap_fails, 1);
		FAIL("mremap moving a part: %s\n", strerror(errno));
		return;
	}
	model_unmap((unsigned long)dst, len);
	model_unmap(old, len);
	p->addr = (unsigned long)m;
}

static void obj_mprotect(struct obj *o, __u64 *s)
{
	unsigned long k = rnd_below(s, 8), i;
	static const int b_prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_READ | PROT_WRITE,
	};
	int ret = 0, prot;

	count(&st->mprotects, 1);
	if (k < 2 && part_whole(&o->t)) {
		/* A W^X cycle, as a JIT does, back to executable */
		ret = mprotect((void *)o->t.addr, o->t.len,
			       PROT_READ | PROT_WRITE);
		if (!ret)
			ret = mprotect((void *)o->t.addr, o->t.len,
				       PROT_READ | PROT_EXEC);
		o->t_exec = !ret;
	} else if (k < 4 && part_whole(&o->t)) {
		prot = rnd_below(s, 3) ? PROT_READ | PROT_EXEC :
		       rnd_below(s, 2) ? PROT_READ | PROT_WRITE | PROT_EXEC :
		       PROT_READ;
		ret = mprotect((void *)o->t.addr, o->t.len, prot);
		o->t_exec = !ret && (prot & PROT_EXEC);
	} else if (k < 5 && o->t.addr) {
		i = rnd_below(s, o->t.len / g.page);
		if (!part_owns(&o->t, i))
			return;
		prot = rnd_below(s, 2) ? PROT_READ : PROT_READ | PROT_WRITE | PROT_EXEC;
		ret = mprotect((void *)(o->t.addr + i * g.page), g.page, prot);
		o->t.split = true;
		if (!(prot & PROT_EXEC))
			o->t_exec = false;
	} else if (part_whole(&o->b)) {
		prot = b_prots[rnd_below(s, ARRAY_SIZE(b_prots))];
		ret = mprotect((void *)o->b.addr, o->b.len, prot);
		if (!ret)
			o->b_prot = prot;
	}
	if (ret)
		FAIL("mprotect: %s\n", strerror(errno));
}

static void obj_change(struct obj *o, __u64 *s)
{
	unsigned long k = rnd_below(s, 100);

	if (k < 8) {
		obj_release(o);
	} else if (k < 16) {
		obj_page(o, s, false);
	} else if (k < 24) {
		obj_page(o, s, true);
	} else if (k < 46) {
		obj_mremap(o, s, false);
	} else if (k < 50) {
		obj_mremap(o, s, true);
	} else if (k < 90) {
		obj_mprotect(o, s);
	} else if (o->b.addr && o->b.len) {
		/* Back to the file's bytes: an undo of the rewrites */
		if (!madvise((void *)o->b.addr, o->b.len, MADV_DONTNEED))
			o->dirty = 0;
		count(&st->madvises, 1);
	}
}

/*
 * Worker 1: unmap the spare page of the program's text, which drops the
 * registration exec made; map an anonymous page there; register the text
 * again with codectl.  wk.lock held.
 */
static void self_text_change(__u64 *s)
{
	unsigned long spare = (unsigned long)sft_spare_page;
	struct codectl_sframe a;
	void *m;
	int err;

	count(&st->self_changes, 1);
	switch (wk.spare) {
	case SPARE_FILE:
	case SPARE_ANON:
		if (rnd_below(s, 2)) {
			if (mprotect((void *)spare, g.page, PROT_READ | PROT_WRITE) ||
			    mprotect((void *)spare, g.page, PROT_READ | PROT_EXEC))
				FAIL("mprotect of the spare page: %s\n",
				     strerror(errno));
			break;
		}
		if (munmap((void *)spare, g.page)) {
			FAIL("munmap of the spare page: %s\n", strerror(errno));
			break;
		}
		model_unmap(spare, g.page);
		wk.spare = SPARE_GONE;
		break;
	case SPARE_GONE:
		m = mmap((void *)spare, g.page, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			break;
		wk.spare = SPARE_ANON;
		memset(&a, 0, sizeof(a));
		a.text_start = g.real_text;
		a.text_end = g.real_text_end;
		a.sframe_start = g.real_sf;
		a.sframe_end = g.real_sf_end;
		err = codectl(CODECTL_REGISTER_SFRAME, &a,
			      CODECTL_SFRAME_SIZE_VER0, 0);
		after_register(err, &a, INJ_NONE);
		break;
	}
}

/* @arg: what makes its random numbers its own */
static void *mapper_main(void *arg)
{
	__u64 s = wk.seed ^ (unsigned long)arg;

	role = ROLE_MAPPER;
	while (!stopping()) {
		struct obj *o = &wk.objs[rnd_below(&s, NR_OBJS)];

		if (!pthread_rwlock_trywrlock(&o->lock)) {
			pthread_mutex_lock(&wk.lock);
			if (o->state == OBJ_EMPTY && !obj_map(o, &s))
				count(&st->maps, 1);
			else if (o->state == OBJ_MAPPED)
				obj_change(o, &s);
			pthread_mutex_unlock(&wk.lock);
			pthread_rwlock_unlock(&o->lock);
		}
		if (wk.self_text && !rnd_below(&s, 16)) {
			pthread_mutex_lock(&wk.lock);
			self_text_change(&s);
			pthread_mutex_unlock(&wk.lock);
		}
		nap_us(rnd_below(&s, 2000));
	}
	count_cpu();
	return NULL;
}

/* The rewriter */

static void rewrite(unsigned char *sec, const unsigned char *orig,
		    unsigned long len, __u64 *s, unsigned int rounds)
{
	while (rounds--) {
		__u64 r = rnd(s);
		unsigned long pos = (r >> 8) % len, n, i;

		switch (r & 3) {
		case 0:
			/* A few bytes flipped in valid data */
			memcpy(sec, orig, len);
			n = 1 + (r >> 40) % 8;
			for (i = 0; i < n; i++)
				sec[rnd_below(s, len)] ^= 1 + rnd_below(s, 255);
			break;
		case 1:
			n = 1 + (r >> 40) % 64;
			if (n > len - pos)
				n = len - pos;
			for (i = 0; i < n; i++)
				sec[pos + i] = rnd(s);
			break;
		case 2:
			sec[pos] = rnd(s);
			break;
		default:
			memcpy(sec, orig, len);
			break;
		}
	}
	count(&st->rewrites, 1);
}

/*
 * Worker 2: rewrite the program's own section; now and then restore it
 * and register the text again, since a section found corrupt is not used
 * again.  The section's pages were made writable at the start.
 */
static void self_rewrite(__u64 *s, double *next_restore)
{
	unsigned char *sec = (unsigned char *)g.real_sf;
	struct codectl_sframe a;
	int i, err;

	rewrite(sec, self.sframe.base, g.sf_size, s, 16);
	if (sft_now() < *next_restore)
		return;
	*next_restore = sft_now() + 1;
	memcpy(sec, self.sframe.base, g.sf_size);
	pthread_mutex_lock(&wk.lock);
	i = regset_find(&wk.model, g.real_text);
	if (i >= 0)
		unreg_checked(g.real_text, s);
	memset(&a, 0, sizeof(a));
	a.text_start = g.real_text;
	a.text_end = g.real_text_end;
	a.sframe_start = g.real_sf;
	a.sframe_end = g.real_sf_end;
	err = codectl(CODECTL_REGISTER_SFRAME, &a, CODECTL_SFRAME_SIZE_VER0, 0);
	after_register(err, &a, INJ_NONE);
	count(&st->self_changes, 1);
	pthread_mutex_unlock(&wk.lock);
}

/* @arg: what makes its random numbers its own */
static void *rewriter_main(void *arg)
{
	__u64 s = wk.seed ^ (unsigned long)arg;

	double next_restore = sft_now() + 1;

	role = ROLE_REWRITER;
	while (!stopping()) {
		struct obj *o = &wk.objs[rnd_below(&s, NR_OBJS)];

		if (wk.self_sframe && !rnd_below(&s, 3)) {
			self_rewrite(&s, &next_restore);
		} else if (!pthread_rwlock_tryrdlock(&o->lock)) {
			if (obj_sframe_intact(o) &&
			    o->b_prot == (PROT_READ | PROT_WRITE)) {
				/* The registrar trusts clean ones, under the lock */
				pthread_mutex_lock(&wk.lock);
				o->dirty = 1;
				pthread_mutex_unlock(&wk.lock);
				rewrite((unsigned char *)obj_sframe(o),
					self.sframe.base, g.sf_size, &s, 64);
			}
			pthread_rwlock_unlock(&o->lock);
		}
		nap_us(rnd_below(&s, 2000));
	}
	count_cpu();
	return NULL;
}

/* The runners and their samples */

struct ring {
	int fd;
	void *base;
	size_t map_len;
	__u64 data_off, data_size;
	__u64 *buf;
	__u64 last_cookie;
};

static int perf_open(struct perf_event_attr *attr)
{
	return syscall(__NR_perf_event_open, attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int ring_open(struct ring *rg, unsigned int hz)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr attr;

	memset(rg, 0, sizeof(*rg));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.freq = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	attr.exclude_callchain_kernel = 1;
	attr.exclude_hv = 1;
	attr.defer_callchain = 1;
	attr.defer_output = 1;
	/* perf lowers its highest rate when sampling takes long */
	do {
		attr.sample_freq = hz;
		rg->fd = perf_open(&attr);
		hz /= 2;
	} while (rg->fd < 0 && errno == EINVAL && hz >= 50);
	if (rg->fd < 0) {
		FAIL("perf_event_open(task-clock, deferred callchains): %s\n",
		     strerror(errno));
		return -1;
	}
	rg->map_len = (1 + RING_PAGES) * g.page;
	rg->base = mmap(NULL, rg->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			rg->fd, 0);
	rg->buf = malloc(65536);
	if (rg->base == MAP_FAILED || !rg->buf) {
		FAIL("perf ring buffer: %s\n", strerror(errno));
		close(rg->fd);
		rg->fd = -1;
		return -1;
	}
	pc = rg->base;
	rg->data_off = pc->data_offset ? pc->data_offset : g.page;
	rg->data_size = pc->data_size ? pc->data_size : RING_PAGES * g.page;
	return 0;
}

static void ring_copy(const struct ring *rg, __u64 pos, void *dst, size_t len)
{
	const char *data = (const char *)rg->base + rg->data_off;
	__u64 off = pos % rg->data_size;
	size_t first = len;

	if (first > rg->data_size - off)
		first = rg->data_size - off;
	memcpy(dst, data + off, first);
	memcpy((char *)dst + first, data, len - first);
}

static void bad_record(const char *what, unsigned int type, size_t words)
{
	count(&st->bad_records, 1);
	FAIL("perf record type %u, %zu words: %s\n", type, words, what);
}

static void sample_seen(const __u64 *w, size_t words, __u32 tid,
			__u64 *last_cookie)
{
	__u64 nr, i;

	count(&st->samples, 1);
	if (words < 2 || (__u32)(w[0] >> 32) != tid || w[1] > words - 2) {
		bad_record("sample not of this thread, or too short",
			   PERF_RECORD_SAMPLE, words);
		return;
	}
	nr = w[1];
	for (i = 0; i < nr; i++)
		if (w[2 + i] == PERF_CONTEXT_USER)
			count(&st->sync_samples, 1);
	if (nr < 2 || w[2 + nr - 2] != PERF_CONTEXT_USER_DEFERRED)
		return;
	count(&st->deferred_samples, 1);
	if (!w[2 + nr - 1])
		bad_record("deferred callchain with cookie 0", PERF_RECORD_SAMPLE,
			   words);
	/* Samples of one entry into the kernel share a request */
	if (w[2 + nr - 1] != *last_cookie)
		count(&st->requests, 1);
	*last_cookie = w[2 + nr - 1];
}

/* cookie, nr, ips[nr], sample_id: pid and tid */
static void deferred_seen(const __u64 *w, size_t words, __u32 tid)
{
	__u64 nr;

	if (words < 3 || w[1] > words || words != 2 + w[1] + 1 ||
	    (__u32)(w[words - 1] >> 32) != tid) {
		bad_record("deferred callchain of another size or thread",
			   PERF_RECORD_CALLCHAIN_DEFERRED, words);
		return;
	}
	nr = w[1];
	count(&st->unwinds, 1);
	count(&st->unwind_ips, nr);
	count_max(&st->deepest, nr);
}

static void ring_drain(struct ring *rg)
{
	struct perf_event_mmap_page *pc = rg->base;
	__u32 tid = gettid();
	__u64 head, tail;

	if (rg->fd < 0)
		return;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	while (tail < head) {
		struct perf_event_header hdr;
		const __u64 *w = rg->buf + 1;
		size_t words;

		ring_copy(rg, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size % 8 ||
		    hdr.size > head - tail) {
			bad_record("bad size", hdr.type, hdr.size / 8);
			tail = head;
			break;
		}
		ring_copy(rg, tail, rg->buf, hdr.size);
		words = (hdr.size - sizeof(hdr)) / 8;
		switch (hdr.type) {
		case PERF_RECORD_SAMPLE:
			sample_seen(w, words, tid, &rg->last_cookie);
			break;
		case PERF_RECORD_CALLCHAIN_DEFERRED:
			deferred_seen(w, words, tid);
			break;
		case PERF_RECORD_LOST:
			count(&st->lost, words >= 2 ? w[1] : 1);
			break;
		case PERF_RECORD_THROTTLE:
			count(&st->throttled, 1);
			break;
		default:
			break;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

static void ring_close(struct ring *rg)
{
	if (rg->fd < 0)
		return;
	ioctl(rg->fd, PERF_EVENT_IOC_DISABLE, 0);
	/* The system call's own deferred stack, on the way out of it */
	getppid();
	ring_drain(rg);
	munmap(rg->base, rg->map_len);
	close(rg->fd);
	free(rg->buf);
	rg->fd = -1;
}

struct runner {
	pthread_t thread;
	unsigned int idx;
};

static struct runner runners[MAX_RUNNERS];

static void run_copy(struct obj *o, long depth, unsigned long n)
{
	if (pthread_rwlock_tryrdlock(&o->lock))
		return;
	unsigned long (*fn)(long depth, unsigned long n);

	if (obj_runnable(o)) {
		fn = (void *)obj_fn(o, (unsigned long)so_rec);
		fn(depth, n);
		count(&st->copy_runs, 1);
	}
	pthread_rwlock_unlock(&o->lock);
}

static void *runner_main(void *arg)
{
	struct runner *r = arg;
	__u64 s = wk.seed ^ (0x52554e0000ULL + r->idx);
	struct ring rg;

	role = ROLE_RUNNER;
	if (ring_open(&rg, wk.hz))
		rg.fd = -1;
	while (!stopping()) {
		long depth = 1 + rnd_below(&s, 40);
		unsigned long n = 2000 + rnd_below(&s, 60000);
		unsigned long k = rnd_below(&s, NR_OBJS + 3);

		if (k < NR_OBJS) {
			run_copy(&wk.objs[k], depth, n);
		} else {
			so_rec(depth, n);
			count(&st->real_runs, 1);
		}
		ring_drain(&rg);
	}
	ring_close(&rg);
	count_cpu();
	return NULL;
}

/* The exec registrations of this program and its interpreter */

static unsigned long auxv_get(unsigned long type)
{
	unsigned long pair[2], val = 0;
	int fd = open("/proc/self/auxv", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (read(fd, pair, sizeof(pair)) == sizeof(pair) && pair[0]) {
		if (pair[0] == type) {
			val = pair[1];
			break;
		}
	}
	close(fd);
	return val;
}

static void add_exec_regs(struct regset *rs, const struct sft_elf *e,
			  unsigned long bias)
{
	const struct elf64_phdr *sf = sft_elf_find_phdr(e, PT_GNU_SFRAME);
	unsigned int i;

	for (i = 0; sf && i < e->phnum; i++) {
		const struct elf64_phdr *ph = &e->phdr[i];
		struct reg r = {
			bias + ph->p_vaddr, bias + ph->p_vaddr + ph->p_memsz,
			bias + sf->p_vaddr, bias + sf->p_vaddr + sf->p_memsz,
			false,
		};

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			regset_add(rs, &r);
	}
}

static int exec_expected(struct regset *rs)
{
	const struct elf64_phdr *interp;
	unsigned long base;
	struct sft_elf ie;

	rs->n = 0;
	add_exec_regs(rs, &self.elf, syms.bias);
	interp = sft_elf_find_phdr(&self.elf, PT_INTERP);
	if (!interp)
		return 0;
	base = auxv_get(AT_BASE);
	if (!base || !interp->p_filesz ||
	    !sft_in_bounds(self.elf.len, interp->p_offset, interp->p_filesz) ||
	    self.elf.image[interp->p_offset + interp->p_filesz - 1]) {
		say("no interpreter base or path\n");
		return -1;
	}
	if (sft_elf_load(&ie, self.elf.image + interp->p_offset)) {
		say("cannot read the interpreter %s\n",
		    self.elf.image + interp->p_offset);
		return -1;
	}
	add_exec_regs(rs, &ie, base);
	sft_elf_free(&ie);
	return 0;
}

static int load_self(void)
{
	if (sft_symtab_load_self(&syms) || sft_self_load(&self, &syms) ||
	    !self.has_sframe) {
		say("cannot read this program's ELF image and SFrame section\n");
		return -1;
	}
	return 0;
}

/*
 * A child exec'd by the forker: its registrations are those of its program
 * and interpreter (some may be missing when exec ran with fault injection:
 * @inj), and with them its stack is the chain.  Then it unregisters the
 * program's and registers it again with codectl.
 */
static int exec_child(bool inj)
{
	static struct regset want;
	static struct sft_run run;
	static int v, err;
	struct codectl_sframe a;
	int i;

	/* Exec ran with fail-nth set: if it has not failed yet, no more. */
	if (inj && self_knob("fail-nth", "0"))
		return EXIT_EXEC;
	if (load_self() || geom_init() || exec_expected(&want))
		return EXIT_EXEC;
	if (!regs_agree(&want, inj, inj ? "exec'd with fault injection" :
			"exec'd"))
		return EXIT_MISMATCH;
	if (inj)
		return 0;
	err = sft_run_open(&run);
	if (!err)
		err = SFT_RECORD_CHAIN(&run);
	v = err ? SFT_BROKEN : sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	sft_run_close(&run);
	if (v != SFT_TRUTH) {
		say("exec'd: the stack is %s, not the chain\n",
		    sft_verdict_name(v));
		return EXIT_BROKEN;
	}
	err = sft_codectl_unregister(g.real_text);
	if (err)
		say("exec'd: unregister of the program's text: %s\n",
		    strerror(-err));
	memset(&a, 0, sizeof(a));
	a.text_start = g.real_text;
	a.text_end = g.real_text_end;
	a.sframe_start = g.real_sf;
	a.sframe_end = g.real_sf_end;
	if (!err)
		err = -codectl(CODECTL_REGISTER_SFRAME, &a,
			       CODECTL_SFRAME_SIZE_VER0, 0);
	if (err) {
		say("exec'd: register of the program's text: %s\n",
		    strerror(-err));
		return EXIT_MISMATCH;
	}
	i = regset_find(&want, g.real_text);
	if (i < 0)
		return EXIT_MISMATCH;
	want.r[i].user = true;
	return regs_agree(&want, false, "exec'd, registered again") ? 0 :
	       EXIT_MISMATCH;
}

/* The forker and its children */

struct vmas {
	unsigned int n;
	unsigned long start[4096], end[4096];
};

static int read_vmas(struct vmas *v)
{
	char *buf = read_all("/proc/self/maps", NULL), *line;

	if (!buf)
		return -1;
	v->n = 0;
	for (line = buf; line && *line && v->n < ARRAY_SIZE(v->start);) {
		if (sscanf(line, "%lx-%lx", &v->start[v->n], &v->end[v->n]) == 2)
			v->n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	free(buf);
	return 0;
}

/* Is [start, end) all mapped? */
static bool mapped(const struct vmas *v, unsigned long start, unsigned long end)
{
	unsigned int i;

	for (i = 0; i < v->n && start < end; i++)
		if (v->start[i] <= start && start < v->end[i])
			start = v->end[i];
	return start >= end;
}

/*
 * A child forked with wk.lock held: it has the parent's registrations,
 * less those in memory it did not get (MADV_DONTFORK).  Then it changes
 * some of them, on its own.
 */
static __noreturn void fork_child(__u64 seed)
{
	static struct vmas v;
	__u64 s = seed;
	unsigned int i = 0;
	struct codectl_sframe a;
	int err;

	if (read_vmas(&v)) {
		say("fork child: /proc/self/maps: %s\n", strerror(errno));
		_exit(EXIT_MISMATCH);
	}
	while (i < wk.model.n) {
		const struct reg *r = &wk.model.r[i];

		if (mapped(&v, r->ts, r->te) && mapped(&v, r->ss, r->se))
			i++;
		else
			regset_del(&wk.model, i);
	}
	if (!regs_agree(&wk.model, false, "forked"))
		_exit(EXIT_MISMATCH);
	unreg_known(&s);
	obj_args(&wk.fixture, &a);
	err = codectl(CODECTL_REGISTER_SFRAME, &a, CODECTL_SFRAME_SIZE_VER0, 0);
	after_register(err, &a, INJ_NONE);
	if (err && err != ENOSPC)
		say("fork child: register: %s\n", errname(err));
	if (!regs_agree(&wk.model, false, "forked, then changed"))
		_exit(EXIT_MISMATCH);
	_exit(0);
}

/* Children of the forker, several at a time */

enum { KID_CHECKED, KID_EXEC, KID_EXEC_INJ, KID_PLAIN };

#define MAX_KIDS	2

struct kid {
	pid_t pid;
	int kind;
	double start;
};

static struct kid kids[MAX_KIDS];
static unsigned int nr_kids;

static void kid_judge(const struct kid *k, int status)
{
	bool ok = WIFEXITED(status) && !WEXITSTATUS(status);

	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_MISMATCH) {
		count(&st->mismatches, 1);
		return;
	}
	switch (k->kind) {
	case KID_EXEC:
	case KID_EXEC_INJ:
		if (ok)
			count(&st->execs, 1);
		else if (k->kind == KID_EXEC_INJ)
			/* Exec or the program's start failed an allocation */
			count(&st->exec_fails, 1);
		else
			FAIL("exec'd child %d: status %#x\n", k->pid, status);
		break;
	default:
		if (!ok)
			FAIL("forked child %d: status %#x\n", k->pid, status);
		break;
	}
}

/*
 * Say where a child that overran is: its state, CPU time and kernel stack
 * tell a hang in the kernel from a child starved of CPU.
 */
static void kid_where(pid_t pid)
{
	static const char * const files[] = { "stat", "wchan", "stack" };
	char path[64], *buf, *p, *save;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		buf = read_all(path, NULL);
		if (!buf)
			continue;
		for (p = strtok_r(buf, "\n", &save); p;
		     p = strtok_r(NULL, "\n", &save))
			say("child %d: %s: %s\n", pid, files[i], p);
		free(buf);
	}
}

/* Kill and reap a child; one that does not die is stuck in the kernel */
static void kid_kill(pid_t pid)
{
	double end = sft_now() + KILL_TIMEOUT;
	struct rusage ru;
	int status;

	kill(pid, SIGKILL);
	while (!wait4(pid, &status, WNOHANG, &ru)) {
		if (sft_now() > end) {
			FAIL("child %d still there %d s after SIGKILL\n",
			     pid, KILL_TIMEOUT);
			kid_where(pid);
			wait4(pid, &status, 0, &ru);
			return;
		}
		nap_us(10000);
	}
}

/* Reap the children that ended; with @all, wait for every one */
static void kids_reap(bool all)
{
	struct rusage ru;
	unsigned int i;
	int status;
	pid_t got;

	for (i = 0; i < nr_kids;) {
		struct kid *k = &kids[i];

		got = wait4(k->pid, &status, WNOHANG, &ru);
		if (!got && sft_now() <= k->start + CHILD_TIMEOUT) {
			if (all)
				nap_us(10000);
			else
				i++;
			continue;
		}
		if (!got) {
			say("child %d still runs after %d s: killing it\n",
			    k->pid, CHILD_TIMEOUT);
			kid_where(k->pid);
			count(&st->slow_kids, 1);
			kid_kill(k->pid);
		} else if (got != k->pid) {
			FAIL("wait4(%d): %s\n", k->pid, strerror(errno));
		} else {
			count(&st->child_ms, (sft_now() - k->start) * 1000);
			count(&st->cpu_ms[NR_ROLES],
			      ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000 +
			      ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000);
			kid_judge(k, status);
		}
		*k = kids[--nr_kids];
	}
}

/*
 * Fork a child of @kind, the fork failing an allocation at random (a fork
 * makes hundreds: one of them, not a share, so that forks also succeed).
 * A checked child is forked with wk.lock held, so that it knows what it
 * must have.  An exec'd child of KID_EXEC_INJ execs with fail-nth set.
 */
static void kid_start(struct inj *in, __u64 *s, int kind)
{
	unsigned long spin = rnd_below(s, 2) ? 1000 + rnd_below(s, 100000) : 0;
	int mode = in->nth_fd >= 0 && rnd_below(s, 2) ? INJ_NTH : INJ_NONE;
	unsigned long armed, nth = 1 + rnd_below(s, 1000);
	char buf[24];
	bool fired;
	pid_t pid;

	if (kind == KID_CHECKED)
		pthread_mutex_lock(&wk.lock);
	armed = inj_begin(in, mode, s);
	pid = fork();
	if (!pid) {
		switch (kind) {
		case KID_CHECKED:
			fork_child(rnd(s));
		case KID_EXEC_INJ:
			/* ld.so's complaints, when it fails */
			close(STDERR_FILENO);
			snprintf(buf, sizeof(buf), "%lu", nth);
			if (self_knob("fail-nth", buf))
				_exit(EXIT_EXEC);
			execl("/proc/self/exe", "sframe_stress", "--exec-child",
			      "inj", NULL);
			_exit(EXIT_EXEC);
		case KID_EXEC:
			execl("/proc/self/exe", "sframe_stress", "--exec-child",
			      "exact", NULL);
			_exit(EXIT_EXEC);
		default:
			if (spin)
				so_rec(1 + spin % 32, spin);
			_exit(0);
		}
	}
	fired = inj_end(in, mode, armed);
	if (kind == KID_CHECKED)
		pthread_mutex_unlock(&wk.lock);
	/* A span that reaches past what a fork allocates */
	if (fired && in->nth_span < 4096)
		in->nth_span += in->nth_span / 4;
	if (pid < 0) {
		count(&st->fork_fails, 1);
		if (mode == INJ_NONE)
			FAIL("fork: %s\n", strerror(errno));
		return;
	}
	count(&st->forks, 1);
	if (kind == KID_CHECKED)
		count(&st->checked, 1);
	else if (kind == KID_PLAIN)
		count(&st->plain, 1);
	kids[nr_kids++] = (struct kid){ pid, kind, sft_now() };
}

/* @arg: what makes its random numbers its own */
static void *forker_main(void *arg)
{
	__u64 s = wk.seed ^ (unsigned long)arg;
	struct inj in;

	role = ROLE_FORKER;
	inj_open(&in, 64);
	while (!stopping()) {
		unsigned long k = rnd_below(&s, 20);

		kids_reap(false);
		if (nr_kids < MAX_KIDS)
			kid_start(&in, &s, k < 8 ? KID_CHECKED : k < 12 ? KID_EXEC :
				  k < 15 ? KID_EXEC_INJ : KID_PLAIN);
		nap_us(2000 + rnd_below(&s, 5000));
	}
	kids_reap(true);
	count_cpu();
	return NULL;
}

/* The main thread of a worker: the chain, under a tracepoint */
static void checker(double end)
{
	static struct sft_run run;
	static double t0, pause;
	static int v, err;

	if (sft_run_open(&run)) {
		FAIL("no perf event for the chain\n");
		return;
	}
	while (sft_now() < end) {
		t0 = sft_now();
		err = SFT_RECORD_CHAIN(&run);
		v = err ? SFT_BROKEN :
		    sft_run_verdict(&run, &syms,
				    wk.strict_chain ? SFT_TRUTH : SFT_ANY,
				    !wk.strict_chain);
		count(&st->chain_runs, 1);
		count(&st->verdicts[v], 1);
		if (v == SFT_BROKEN || (wk.strict_chain && v != SFT_TRUTH))
			FAIL("the chain's stacks: %s%s\n", sft_verdict_name(v),
			     wk.strict_chain ? ", expected truth" : "");
		/* A check, not the load: a fifth of the time at most */
		pause = 0.1 + 4 * (sft_now() - t0);
		if (pause > end - sft_now())
			pause = end - sft_now();
		if (pause > 0)
			nap_us(pause * 1e6);
	}
	sft_run_close(&run);
}

static int worker_setup(void)
{
	static struct regset want;
	unsigned long start, len;
	unsigned int i;
	void *p;

	if (load_self() || geom_init())
		return -1;
	if (exec_expected(&want) || regs_proc(&wk.model))
		return -1;
	if (!regs_agree(&want, false, "at the start"))
		count(&st->mismatches, 1);
	p = mmap(NULL, 2 * g.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + g.page, g.page, PROT_NONE) ||
	    obj_map(&wk.fixture, NULL)) {
		say("worker setup: %s\n", strerror(errno));
		return -1;
	}
	wk.guard = (unsigned long)p;
	for (i = 0; i < NR_OBJS; i++)
		pthread_rwlock_init(&wk.objs[i].lock, NULL);
	wk.spare = SPARE_FILE;
	if (wk.self_sframe) {
		if (!sft_self_sframe_pages(&self, &syms, &start, &len) ||
		    mprotect((void *)start, len, PROT_READ | PROT_WRITE)) {
			say("worker setup: .sframe pages not writable\n");
			return -1;
		}
	}
	wk.next_burst = sft_now() + 10 + 10 * wk.id;
	return 0;
}

/* The end: the model, then everything undone, then the model again */
static void worker_finish(void)
{
	unsigned int i, user = 0;

	pthread_mutex_lock(&wk.lock);
	check_model("at the end");
	for (i = 0; i < wk.model.n; i++)
		user += wk.model.r[i].user;
	say("worker %d: %u registrations at the end, %u of them by codectl\n",
	    wk.id, wk.model.n, user);
	for (i = 0; i < wk.model.n;) {
		if (wk.model.r[i].user) {
			unsigned long ts = wk.model.r[i].ts;

			if (sft_codectl_unregister(ts))
				MISMATCH("unregister %lx at the end failed\n", ts);
			regset_del(&wk.model, i);
			continue;
		}
		i++;
	}
	for (i = 0; i < NR_OBJS; i++)
		if (wk.objs[i].state == OBJ_MAPPED)
			obj_release(&wk.objs[i]);
	obj_release(&wk.fixture);
	check_model("after unregistering and unmapping all");
	pthread_mutex_unlock(&wk.lock);
}

static int worker(int id, double end)
{
	pthread_t mapper, registrar, rewriter, forker;
	unsigned int i;

	wk.id = id;
	wk.strict_chain = id % 3 == 0;
	wk.self_text = id % 3 == 1;
	wk.self_sframe = id % 3 == 2;
	wk.seed = wk.seed * 0x9e3779b97f4a7c15ULL + id + 1;
	on_crash_say();
	if (worker_setup()) {
		count(&st->errors, 1);
		return 1;
	}
	for (i = 0; i < wk.runners; i++) {
		runners[i].idx = i;
		pthread_create(&runners[i].thread, NULL, runner_main, &runners[i]);
	}
	pthread_create(&mapper, NULL, mapper_main, (void *)0x4d41505045520000UL);
	pthread_create(&registrar, NULL, registrar_main,
		       (void *)0x5245474953544552UL);
	pthread_create(&rewriter, NULL, rewriter_main,
		       (void *)0x5245575249544552UL);
	pthread_create(&forker, NULL, forker_main, (void *)0x464f524b45520000UL);

	checker(end);
	count_cpu();

	__atomic_store_n(&wk.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < wk.runners; i++)
		pthread_join(runners[i].thread, NULL);
	pthread_join(mapper, NULL);
	pthread_join(registrar, NULL);
	pthread_join(rewriter, NULL);
	pthread_join(forker, NULL);
	worker_finish();
	return 0;
}

/* Fault injection, set up by the first process */

#define DEBUGFS	"/sys/kernel/debug"

static const char * const fi_names[] = { "failslab", "fail_page_alloc" };

static int knob(const char *fault, const char *name, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", fault, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0) {
		ksft_print_msg("%s: %s\n", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static long knob_read(const char *fault, const char *name)
{
	char path[256], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", fault, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	if (fd >= 0)
		close(fd);
	return strtol(buf, NULL, 10);
}

static int faults_on(int percent)
{
	char buf[32];
	unsigned int i;
	int ret = 0;

	if (access(DEBUGFS "/failslab", F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (access(DEBUGFS "/failslab", F_OK) ||
	    access(DEBUGFS "/fail_page_alloc", F_OK)) {
		ksft_print_msg("no failslab or fail_page_alloc in %s\n", DEBUGFS);
		ksft_print_msg("CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC and\n");
		ksft_print_msg("CONFIG_FAULT_INJECTION_DEBUG_FS are needed\n");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%d", percent);
	for (i = 0; i < ARRAY_SIZE(fi_names); i++) {
		ret |= knob(fi_names[i], "task-filter", "Y");
		ret |= knob(fi_names[i], "verbose", "0");
		ret |= knob(fi_names[i], "ignore-gfp-wait", "N");
		ret |= knob(fi_names[i], "interval", "1");
		ret |= knob(fi_names[i], "space", "0");
		ret |= knob(fi_names[i], "times", "1000000000");
		ret |= knob(fi_names[i], "probability", buf);
	}
	ret |= knob("fail_page_alloc", "ignore-gfp-highmem", "N");
	ret |= knob("fail_page_alloc", "min-order", "0");
	return ret;
}

/* Back to the defaults; the number of faults each injected */
static void faults_off(long *injected)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fi_names); i++) {
		knob(fi_names[i], "probability", "0");
		injected[i] = FI_TIMES - knob_read(fi_names[i], "times");
		knob(fi_names[i], "times", "1");
		knob(fi_names[i], "task-filter", "N");
		knob(fi_names[i], "verbose", "2");
		knob(fi_names[i], "ignore-gfp-wait", "Y");
	}
	knob("fail_page_alloc", "ignore-gfp-highmem", "Y");
	knob("fail_page_alloc", "min-order", "1");
}

/* The first process */

static void print_errnos(void)
{
	char line[1024];
	unsigned int i;
	unsigned long long total = 0;
	int n = 0;

	for (i = 1; i < NR_ERRNO; i++) {
		if (!st->cerr[i])
			continue;
		total += st->cerr[i];
		n += snprintf(line + n, sizeof(line) - n, "%s%s %llu",
			      n ? ", " : "", errname(i), st->cerr[i]);
		if (n >= (int)sizeof(line))
			break;
	}
	ksft_print_msg("codectl errors: %llu: %s\n", total, n ? line : "none");
}

static unsigned long long codectl_errors(void)
{
	unsigned long long total = 0;
	unsigned int i;

	for (i = 1; i < NR_ERRNO; i++)
		total += st->cerr[i];
	return total;
}

static void print_cpu(void)
{
	char line[512];
	unsigned int i;
	int n = 0;

	for (i = 0; i <= NR_ROLES && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s %.1f",
			      i ? ", " : "", role_names[i],
			      st->cpu_ms[i] / 1000.0);
	ksft_print_msg("CPU seconds: %s\n", line);
}

static long max_sample_rate(void)
{
	char buf[32] = "";
	int fd = open("/proc/sys/kernel/perf_event_max_sample_rate", O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	if (fd >= 0)
		close(fd);
	return strtol(buf, NULL, 10);
}

static void progress(double t)
{
	ksft_print_msg("%.0f s: %llu unwinds, %llu registrations, %llu forks, %llu execs\n",
		       t, st->unwinds, st->regs, st->forks, st->execs);
}

static void report(unsigned int seconds, unsigned int procs, const long *inj)
{
	const struct stats *t = st;

	ksft_print_msg("unwinds: %llu deferred user callchains, %llu frames, deepest %llu\n",
		       t->unwinds, t->unwind_ips, t->deepest);
	ksft_print_msg("samples: %llu, %llu deferred (%llu requests), %llu synchronous\n",
		       t->samples, t->deferred_samples, t->requests, t->sync_samples);
	ksft_print_msg("samples: %llu lost, %llu throttled; perf_event_max_sample_rate %ld\n",
		       t->lost, t->throttled, max_sample_rate());
	ksft_print_msg("runs: %llu in the program's text, %llu in copies\n",
		       t->real_runs, t->copy_runs);
	ksft_print_msg("the chain: %llu runs: %llu truth, %llu fp, %llu other, %llu broken\n",
		       t->chain_runs, t->verdicts[SFT_TRUTH], t->verdicts[SFT_FP],
		       t->verdicts[SFT_OTHER], t->verdicts[SFT_BROKEN]);
	ksft_print_msg("codectl: %llu calls, %llu registrations, %llu unregistrations\n",
		       t->codectl_calls, t->regs, t->unregs);
	ksft_print_msg("codectl: %llu bursts to the limit, %llu invalid calls\n",
		       t->bursts, t->invalid);
	print_errnos();
	ksft_print_msg("objects: %llu mapped, %llu released, %llu rewrite rounds\n",
		       t->maps, t->releases, t->rewrites);
	ksft_print_msg("pages: %llu munmaps, %llu mmaps over, %llu mprotects, %llu madvises\n",
		       t->munmaps, t->mmap_overs, t->mprotects, t->madvises);
	ksft_print_msg("mremaps: %llu (%llu refused); changes of the program's own: %llu\n",
		       t->mremaps, t->mremap_fails, t->self_changes);
	ksft_print_msg("forks: %llu (%llu failed): %llu checked, %llu plain, the rest exec'd\n",
		       t->forks, t->fork_fails, t->checked, t->plain);
	ksft_print_msg("children: %llu ms each on average; %llu slow ones killed\n",
		       t->forks ? t->child_ms / t->forks : 0, t->slow_kids);
	ksft_print_msg("execs: %llu whole, %llu cut short by fault injection\n",
		       t->execs, t->exec_fails);
	ksft_print_msg("faults injected: %ld: failslab %ld, fail_page_alloc %ld\n",
		       inj[0] + inj[1], inj[0], inj[1]);
	ksft_print_msg("registrations failed by them: %llu\n", t->reg_injected);
	ksft_print_msg("fail-nth: fired %llu times of %llu; at most %llu allocations a call\n",
		       t->nth_fired, t->nth_armed, t->nth_max);
	print_cpu();
	ksft_print_msg("/proc/self/sframe read %llu times: %llu mismatches; %llu other errors\n",
		       t->proc_checks, t->mismatches, t->errors);
	printf("sframe_stress: %u s, %u processes: %llu unwinds, %llu registrations, ",
	       seconds, procs, t->unwinds, t->regs);
	printf("%llu unregistrations, %llu codectl errors, %llu forks, %llu execs, ",
	       t->unregs, codectl_errors(), t->forks, t->execs);
	printf("%ld faults injected, %llu mismatches, %llu errors\n",
	       inj[0] + inj[1], t->mismatches, t->errors);
}

static __noreturn void bad_usage(void)
{
	fprintf(stderr, "usage: sframe_stress [-p PROCS] [-t THREADS] [-F HZ] [-f PERCENT]\n");
	fprintf(stderr, "                     [-s SEED] SECONDS\n");
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned int procs = 3, seconds, i, alive;
	pid_t pids[MAX_PROCS];
	long injected[2] = { 0, 0 };
	double start, end, next;
	static struct regset first;
	bool ok;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--exec-child")) {
		st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (st == MAP_FAILED)
			return EXIT_EXEC;
		return exec_child(!strcmp(argv[2], "inj"));
	}

	wk.runners = 2;
	wk.hz = 500;
	wk.seed = time(NULL);
	while ((opt = getopt(argc, argv, "p:t:F:f:s:")) != -1) {
		switch (opt) {
		case 'p':
			procs = atoi(optarg);
			break;
		case 't':
			wk.runners = atoi(optarg);
			break;
		case 'F':
			wk.hz = atoi(optarg);
			break;
		case 'f':
			fault_percent = atoi(optarg);
			break;
		case 's':
			wk.seed = strtoull(optarg, NULL, 0);
			break;
		default:
			bad_usage();
		}
	}
	if (optind != argc - 1 || !procs || procs > MAX_PROCS ||
	    !wk.runners || wk.runners > MAX_RUNNERS || !wk.hz ||
	    fault_percent < 0 || fault_percent > 100)
		bad_usage();
	seconds = atoi(argv[optind]);
	if (!seconds)
		bad_usage();

	ksft_print_header();
	ksft_set_plan(1);
	ksft_print_msg("%u s, %u processes: %u threads sampled at %u Hz and 4 others each\n",
		       seconds, procs, wk.runners, wk.hz);
	ksft_print_msg("fault injection %d%%, seed %llu\n", fault_percent,
		       (unsigned long long)wk.seed);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	if (regs_proc(&first))
		ksft_exit_fail_msg("cannot read /proc/self/sframe\n");
	if (fault_percent && faults_on(fault_percent))
		ksft_exit_fail_msg("cannot set up fault injection\n");

	start = sft_now();
	end = start + seconds;
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pids[i])
			_exit(worker(i, end));
	}

	/* Progress every minute; then wait, but not for ever */
	next = start + 60;
	for (alive = procs; alive;) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			for (i = 0; i < procs; i++) {
				if (pids[i] != pid)
					continue;
				pids[i] = 0;
				alive--;
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					ksft_print_msg("worker %u: status %#x\n",
						       i, status);
					count(&st->errors, 1);
				}
			}
			continue;
		}
		if (sft_now() > end + CHILD_TIMEOUT + 60) {
			for (i = 0; i < procs; i++) {
				if (!pids[i])
					continue;
				ksft_print_msg("worker %u (pid %d) does not end: killing it\n",
					       i, pids[i]);
				kill(pids[i], SIGKILL);
				count(&st->errors, 1);
			}
			while (wait(NULL) > 0)
				;
			break;
		}
		if (sft_now() > next) {
			progress(next - start);
			next += 60;
		}
		nap_us(100000);
	}

	if (fault_percent)
		faults_off(injected);
	if (!regs_agree(&first, false, "the first process, at the end"))
		count(&st->mismatches, 1);
	report(seconds, procs, injected);
	ok = !st->mismatches && !st->errors && st->unwinds;
	ksft_test_result(ok, "%u s of stress: %s\n", seconds,
			 ok ? "every check passed" : "see above");
	ksft_finished();
}
