// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile SFrame data: the kernel must stay healthy, every unwind must end,
 * and the process must go on working, whatever the section says.
 *
 * 1. Copies of this program with a damaged .sframe (or PT_GNU_SFRAME) on
 *    disk, each run in probe mode.  Where the damage is certain to be
 *    refused -- at registration, or at the first lookup, which marks the
 *    section bad -- the stack must be the frame pointer one; where it is
 *    random, any complete stack will do.  Every probe must deliver both of
 *    its samples with their deferred stacks and exit normally.
 * 2. Children of this process that make their .sframe pages writable (which
 *    keeps the registration: the text is unchanged) and let a thread rewrite
 *    the section with random bytes in a loop, while the main thread runs the
 *    chain and is unwound over and over, for a bounded time.  Every sample
 *    must arrive, every child must exit normally.
 *
 * The harness that runs the tests fails the run on any kernel WARNING, BUG
 * or Oops in the console.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#define TIMEOUT		30
#define GIB		0x40000000LL

/* Seconds of the in-memory rewrite (SFRAME_STRESS_SECONDS overrides). */
#define STRESS_SECONDS	8
/*
 * A child runs the chain this many times, or this long, at most.  The
 * kernel stops using a section at the first corruption it finds: many
 * short-lived children give the decoder many fresh registrations to race
 * with.
 */
#define CHILD_RUNS	40
#define CHILD_SECONDS	1

static struct sft_symtab syms;
static struct sft_self self;

static __u64 rng_next(__u64 *state)
{
	/* xorshift64 */
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void fill_random(unsigned char *p, size_t len, __u64 seed)
{
	__u64 state = seed * 0x9e3779b97f4a7c15ULL + 1;

	while (len--)
		*p++ = rng_next(&state);
}

static void put_u32(unsigned char *p, __u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static void put_u16(unsigned char *p, __u16 v)
{
	memcpy(p, &v, sizeof(v));
}

/* A copy to damage: the file, its parsed section, a seed. */
struct target {
	struct sft_elf e;
	struct sft_sframe s;
	__u64 seed;
};

struct damage {
	const char *name;
	int expect;
	void (*fn)(struct target *t);
	__u64 seed;
};

static void bad_magic(struct target *t)
{
	t->s.base[0] ^= 0xff;
}

static void bad_version(struct target *t)
{
	t->s.base[2] = 9;
}

static void fres_past_end(struct target *t)
{
	put_u32(t->s.base + 24, 0xfffffff0);
}

static void fdes_past_end(struct target *t)
{
	put_u32(t->s.base + 8, 0x10000000);
}

/* Move every function start by @delta, keeping the FDEs sorted. */
static void shift_starts(struct sft_sframe *s, __s64 delta)
{
	__u32 i;

	for (i = 0; i < s->num_fdes; i++) {
		unsigned char *f;

		if (s->version == 2) {
			__s32 v;

			f = s->base + s->fdes + i * SFT_V2_FDE_SIZE;
			memcpy(&v, f, sizeof(v));
			v += delta;
			memcpy(f, &v, sizeof(v));
		} else {
			__s64 v;

			f = s->base + s->fdes + i * SFT_V3_FDE_SIZE;
			memcpy(&v, f, sizeof(v));
			v += delta;
			memcpy(f, &v, sizeof(v));
		}
	}
}

static void starts_above(struct target *t)
{
	shift_starts(&t->s, GIB);
}

static void starts_below(struct target *t)
{
	shift_starts(&t->s, -(__s64)GIB);
}

/*
 * The bytes of FDE @i that hold its info byte, rep_size and FRE count: the
 * FDE itself (V2) or its attribute record (V3).
 */
static unsigned char *fde_attr(struct sft_sframe *s, __u32 i)
{
	struct sft_fde fde;

	if (s->version == 2)
		return s->base + s->fdes + i * SFT_V2_FDE_SIZE;
	if (sft_sframe_fde(s, i, &fde))
		return NULL;
	return s->base + s->fres + fde.fre_off;
}

static void huge_fre_counts(struct target *t)
{
	__u32 i;

	for (i = 0; i < t->s.num_fdes; i++) {
		unsigned char *a = fde_attr(&t->s, i);

		if (!a)
			continue;
		if (t->s.version == 2)
			put_u32(a + 12, 0xffffffff);
		else
			put_u16(a, 0xffff);
	}
}

/* V2: info at 16, rep_size at 17; V3 attribute: info at 2, rep_size at 4. */
static void set_info(struct sft_sframe *s, unsigned int and,
		     unsigned int or, int rep_size)
{
	unsigned int info_at = s->version == 2 ? 16 : 2;
	unsigned int rep_at = s->version == 2 ? 17 : 4;
	__u32 i;

	for (i = 0; i < s->num_fdes; i++) {
		unsigned char *a = fde_attr(s, i);

		if (!a)
			continue;
		a[info_at] = (a[info_at] & and) | or;
		if (rep_size >= 0)
			a[rep_at] = rep_size;
	}
}

static void fre_type_3(struct target *t)
{
	set_info(&t->s, ~0x0fU, 3, -1);
}

static void pcmask_rep_0(struct target *t)
{
	set_info(&t->s, ~0U, 0x10, 0);
}

static void unsorted(struct target *t)
{
	struct sft_sframe *s = &t->s;
	size_t size = s->version == 2 ? SFT_V2_FDE_SIZE : SFT_V3_FDE_SIZE;
	unsigned char tmp[SFT_V2_FDE_SIZE];
	unsigned char *a = s->base + s->fdes;
	unsigned char *b = a + (s->num_fdes - 1) * size;

	if (s->num_fdes < 2)
		return;
	memcpy(tmp, a, size);
	memcpy(a, b, size);
	memcpy(b, tmp, size);
}

static void random_fdes(struct target *t)
{
	size_t size = t->s.version == 2 ? SFT_V2_FDE_SIZE : SFT_V3_FDE_SIZE;

	fill_random(t->s.base + t->s.fdes, t->s.num_fdes * size, t->seed);
}

static void random_fres(struct target *t)
{
	fill_random(t->s.base + t->s.fres, t->s.fre_len, t->seed);
}

static void random_body(struct target *t)
{
	fill_random(t->s.base + t->s.hdr_size, t->s.size - t->s.hdr_size,
		    t->seed);
}

static void phdr_short(struct target *t)
{
	struct elf64_phdr *ph = sft_elf_find_phdr(&t->e, PT_GNU_SFRAME);

	ph->p_filesz = 32;
	ph->p_memsz = 32;
}

static void phdr_huge(struct target *t)
{
	struct elf64_phdr *ph = sft_elf_find_phdr(&t->e, PT_GNU_SFRAME);

	ph->p_filesz = GIB;
	ph->p_memsz = GIB;
}

/* The "section" is the start of the text: code, not SFrame. */
static void phdr_at_text(struct target *t)
{
	struct elf64_phdr *ph = sft_elf_find_phdr(&t->e, PT_GNU_SFRAME);
	unsigned int i;

	for (i = 0; i < t->e.phnum; i++) {
		const struct elf64_phdr *load = &t->e.phdr[i];

		if (load->p_type != PT_LOAD || !(load->p_flags & PF_X))
			continue;
		ph->p_vaddr = load->p_vaddr;
		ph->p_paddr = load->p_paddr;
		ph->p_offset = load->p_offset;
		return;
	}
}

static const struct damage damages[] = {
	{ "header: bad magic", SFT_FP, bad_magic, 0 },
	{ "header: version 9", SFT_FP, bad_version, 0 },
	{ "header: FRE sub-section past the end", SFT_FP, fres_past_end, 0 },
	{ "header: 2^28 FDEs", SFT_FP, fdes_past_end, 0 },
	{ "FDEs: every function 1 GiB past the text", SFT_FP, starts_above, 0 },
	{ "FDEs: every function 1 GiB before the text", SFT_FP, starts_below, 0 },
	{ "FDEs: FRE type 3", SFT_FP, fre_type_3, 0 },
	{ "FDEs: PCMASK with rep_size 0", SFT_FP, pcmask_rep_0, 0 },
	{ "FDEs: huge FRE counts", SFT_ANY, huge_fre_counts, 0 },
	{ "FDEs: first and last swapped", SFT_ANY, unsorted, 0 },
	{ "FDEs: random bytes", SFT_ANY, random_fdes, 1 },
	{ "FREs: random bytes (seed 1)", SFT_ANY, random_fres, 1 },
	{ "FREs: random bytes (seed 2)", SFT_ANY, random_fres, 2 },
	{ "FREs: random bytes (seed 3)", SFT_ANY, random_fres, 3 },
	{ "all but the header: random bytes", SFT_ANY, random_body, 4 },
	{ "PT_GNU_SFRAME: 32 bytes long", SFT_FP, phdr_short, 0 },
	{ "PT_GNU_SFRAME: 1 GiB long", SFT_FP, phdr_huge, 0 },
	{ "PT_GNU_SFRAME: at the start of the text", SFT_FP, phdr_at_text, 0 },
};

static bool check_damage(const struct damage *d)
{
	static struct target t;
	char path[128];
	int v;

	if (sft_elf_load(&t.e, "/proc/self/exe"))
		return false;
	if (sft_sframe_parse(&t.e, &t.s)) {
		ksft_print_msg("this program has no SFrame section to damage\n");
		sft_elf_free(&t.e);
		return false;
	}
	t.seed = d->seed;
	d->fn(&t);
	sft_tmp_copy(path, sizeof(path), "hostile");
	v = sft_elf_save(&t.e, path);
	sft_elf_free(&t.e);
	if (v)
		return false;

	v = sft_run_probe(path, d->expect, NULL, TIMEOUT);
	unlink(path);
	if (v < 0 || v == SFT_BROKEN)
		return false;
	if (d->expect == SFT_ANY)
		ksft_print_msg("%s: %s stack\n", d->name, sft_verdict_name(v));
	return d->expect == SFT_ANY || v == d->expect;
}

/* In-memory rewriting */

struct stress_tally {
	unsigned int runs;
	unsigned int samples;
	unsigned int verdicts[SFT_BROKEN + 1];	/* per system call */
	unsigned int broken;			/* runs */
	unsigned int errors;			/* runs that failed */
	unsigned int max_ips;
	unsigned int rewrites;			/* by the writer, in thousands */
};

struct writer {
	unsigned char *sec;	/* the live section */
	unsigned char *orig;	/* its bytes at the start */
	size_t len;
	__u64 seed;
	unsigned long rounds;
	int stop;
};

/*
 * Rewrite the section, racing with the kernel's reads of it: restore it and
 * flip a few bytes (mostly valid data), write a random block, or restore it
 * whole.
 */
static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	__u64 state = w->seed * 0x9e3779b97f4a7c15ULL + 7;

	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		__u64 r = rng_next(&state);
		size_t pos = (r >> 8) % w->len, n, i;

		switch (r & 3) {
		case 0:
			memcpy(w->sec, w->orig, w->len);
			n = 1 + (r >> 40) % 8;
			for (i = 0; i < n; i++)
				w->sec[rng_next(&state) % w->len] ^=
					1 + rng_next(&state) % 255;
			break;
		case 1:
			n = 1 + (r >> 40) % 64;
			if (n > w->len - pos)
				n = w->len - pos;
			for (i = 0; i < n; i++)
				w->sec[pos + i] = rng_next(&state);
			break;
		case 2:
			w->sec[pos] = rng_next(&state);
			break;
		default:
			memcpy(w->sec, w->orig, w->len);
			break;
		}
		w->rounds++;
	}
	return NULL;
}

static struct writer writer;
static pthread_t writer_thread;

/* In the child: make the section writable and start the writer. */
static int stress_start(__u64 seed)
{
	unsigned long start, len;
	int err;

	if (!sft_self_sframe_pages(&self, &syms, &start, &len))
		return -1;
	if (mprotect((void *)start, len, PROT_READ | PROT_WRITE)) {
		ksft_perror("mprotect(.sframe, RW)");
		return -1;
	}
	writer.sec = (unsigned char *)self.sframe_start;
	writer.len = self.sframe_end - self.sframe_start;
	writer.orig = malloc(writer.len);
	if (!writer.orig)
		return -1;
	memcpy(writer.orig, writer.sec, writer.len);
	writer.seed = seed;
	err = pthread_create(&writer_thread, NULL, writer_fn, &writer);
	if (err) {
		ksft_print_msg("pthread_create: %s\n", strerror(err));
		return -1;
	}
	return 0;
}

static void stress_count(struct stress_tally *t, struct sft_run *run, int err)
{
	unsigned int i;
	int v;

	t->runs++;
	t->samples += run->nsamples;
	if (err) {
		ksft_print_msg("run %u: %s\n", t->runs, strerror(-err));
		t->errors++;
		return;
	}
	v = sft_run_verdict(run, &syms, SFT_ANY, true);
	if (v == SFT_BROKEN) {
		t->broken++;
		return;
	}
	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		t->verdicts[run->verdict[i]]++;
		if (run->samples[i].nr > t->max_ips)
			t->max_ips = run->samples[i].nr;
	}
}

static int stress_stop(struct stress_tally *t, int fd)
{
	__atomic_store_n(&writer.stop, 1, __ATOMIC_RELAXED);
	pthread_join(writer_thread, NULL);
	t->rewrites = writer.rounds / 1000;
	if (write(fd, t, sizeof(*t)) != sizeof(*t))
		return 1;
	return t->errors || t->broken ? 1 : 0;
}

/* Fork a stress child; returns 0 in the child, which main() runs. */
static pid_t stress_child(int fds[2])
{
	pid_t pid;

	if (pipe(fds)) {
		ksft_perror("pipe");
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid)
		close(fds[0]);
	else
		close(fds[1]);
	return pid;
}

static bool stress_collect(pid_t pid, int fd, struct stress_tally *sum,
			   unsigned int *children)
{
	struct stress_tally t;
	ssize_t n;
	int ret, i;

	ret = sft_wait(pid, TIMEOUT, "stress child");
	n = read(fd, &t, sizeof(t));
	close(fd);
	if (ret || n != sizeof(t)) {
		ksft_print_msg("stress child %d: exit %d, %zd bytes of results\n",
			       pid, ret, n);
		return false;
	}
	(*children)++;
	sum->runs += t.runs;
	sum->samples += t.samples;
	sum->broken += t.broken;
	sum->errors += t.errors;
	sum->rewrites += t.rewrites;
	for (i = 0; i <= SFT_BROKEN; i++)
		sum->verdicts[i] += t.verdicts[i];
	if (t.max_ips > sum->max_ips)
		sum->max_ips = t.max_ips;
	return true;
}

static double stress_seconds(void)
{
	const char *env = getenv("SFRAME_STRESS_SECONDS");
	double s = env ? atof(env) : STRESS_SECONDS;

	return s > 0 ? s : STRESS_SECONDS;
}

int main(int argc, char **argv)
{
	/* Static: SFT_RECORD_CHAIN() returns through setjmp(). */
	static struct stress_tally sum;
	static struct sft_run run;
	static unsigned int i, children;
	static double end, child_end;
	static bool ok = true;
	static int fds[2];
	int ret, v;
	pid_t pid;

	SFT_PROBE_MAIN(argc, argv);

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(damages) + 3);

	if (sft_symtab_load_self(&syms) || sft_self_load(&self, &syms))
		ksft_exit_fail_msg("cannot read this program's ELF image\n");

	ret = sft_run_open(&run);
	if (!ret)
		ret = SFT_RECORD_CHAIN(&run);
	v = ret ? SFT_BROKEN : sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(self.has_sframe && v == SFT_TRUTH,
			 "start: the stack is the chain\n");

	for (i = 0; i < ARRAY_SIZE(damages); i++)
		ksft_test_result(check_damage(&damages[i]),
				 "on disk: %s: %s stack, process and kernel fine\n",
				 damages[i].name,
				 damages[i].expect == SFT_ANY ? "a complete" :
				 "the frame pointer");

	/* Children rewrite their own copy of the section, in turn. */
	end = sft_now() + stress_seconds();
	for (i = 0; ok && sft_now() < end; i++) {
		pid = stress_child(fds);
		if (pid < 0) {
			ok = false;
			break;
		}
		if (!pid) {
			static struct stress_tally t;

			sft_run_close(&run);
			if (sft_run_open(&run) || stress_start(i + 1))
				exit(2);
			child_end = sft_now() + CHILD_SECONDS;
			do {
				ret = SFT_RECORD_CHAIN(&run);
				stress_count(&t, &run, ret);
			} while (!ret && t.runs < CHILD_RUNS &&
				 sft_now() < child_end);
			exit(stress_stop(&t, fds[1]));
		}
		ok = stress_collect(pid, fds[0], &sum, &children);
	}
	ksft_print_msg("rewrite: %u children, %u runs, %u samples, %u thousand rewrites\n",
		       children, sum.runs, sum.samples, sum.rewrites);
	ksft_print_msg("rewrite: stacks: %u the chain, %u frame pointer, %u other\n",
		       sum.verdicts[SFT_TRUTH], sum.verdicts[SFT_FP],
		       sum.verdicts[SFT_OTHER]);
	ksft_print_msg("rewrite: %u broken runs, %u errors, at most %u IPs\n",
		       sum.broken, sum.errors, sum.max_ips);
	ksft_test_result(ok && children && sum.runs &&
			 sum.samples == 2 * sum.runs && !sum.broken &&
			 !sum.errors,
			 "in memory: random rewrites during %u runs: every sample arrived, every child exited normally\n",
			 sum.runs);

	ret = SFT_RECORD_CHAIN(&run);
	v = ret ? SFT_BROKEN : sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(v == SFT_TRUTH,
			 "end: this process's stack is still the chain\n");
	sft_run_close(&run);

	sft_self_free(&self);
	sft_symtab_free(&syms);
	ksft_finished();
}
