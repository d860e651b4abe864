// SPDX-License-Identifier: GPL-2.0
/*
 * Runs of the known call chain under perf, their verdict against the ground
 * truth, the probe mode every test program has, and child processes.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "sframe_lib.h"

#define TP_GROUP	"syscalls"
#define TP_EVENT	"sys_enter_getppid"

/* sft_spare_page: a page of its own in the text, never executed. */
asm(".pushsection .text.sft_spare, \"ax\", @progbits\n"
	".balign 4096\n"
	".globl sft_spare_page\n"
	".type sft_spare_page, @function\n"
	"sft_spare_page:\n"
	".fill 4096, 1, 0xcc\n"
	".size sft_spare_page, 4096\n"
	".popsection\n");

static const char * const verdict_names[] = {
	[SFT_TRUTH] = "truth",
	[SFT_FP] = "fp",
	[SFT_OTHER] = "other",
	[SFT_BROKEN] = "broken",
};

/**
 * sft_verdict_name() - Name of a verdict or expectation
 * @v: an enum sft_verdict
 *
 * Return: "truth", "fp", "other", "broken", "any" or "?".
 */
const char *sft_verdict_name(int v)
{
	if (v == SFT_ANY)
		return "any";
	if (v < 0 || v >= (int)ARRAY_SIZE(verdict_names))
		return "?";
	return verdict_names[v];
}

static int parse_expect(const char *s)
{
	if (!strcmp(s, "any"))
		return SFT_ANY;
	if (!strcmp(s, "truth"))
		return SFT_TRUTH;
	if (!strcmp(s, "fp"))
		return SFT_FP;
	return -2;
}

/**
 * sft_run_open() - Set up sampling of the chain's system calls
 * @r: the run; its event stays open for any number of runs
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_run_open(struct sft_run *r)
{
	int tp;

	memset(r, 0, sizeof(*r));
	r->ev.fd = -1;
	tp = sft_tracepoint_id(TP_GROUP, TP_EVENT);
	if (tp < 0)
		return tp;
	return sft_perf_open_tracepoint(&r->ev, tp, true);
}

/**
 * sft_run_close() - Close the event of sft_run_open()
 * @r: the run
 */
void sft_run_close(struct sft_run *r)
{
	sft_perf_close(&r->ev);
}

/**
 * sft_run_begin() - Start sampling, right before the chain runs
 * @r: the run
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_run_begin(struct sft_run *r)
{
	if (r->ev.fd < 0)
		return -EBADF;
	r->nsamples = 0;
	return sft_perf_enable(&r->ev);
}

/**
 * sft_run_end() - Stop sampling and read what the run left in the ring
 * @r: the run
 * @err: how the run went: 0, or a negative errno
 *
 * Return: @err, or a negative errno after printing why: -EAGAIN when the
 * event missed the whole run and was opened again (sft_perf_missed()),
 * for the caller to run once more.
 */
int sft_run_end(struct sft_run *r, int err)
{
	int n;

	if (r->ev.fd < 0)
		return err ? err : -EBADF;
	n = sft_perf_disable(&r->ev);
	if (!err)
		err = n;
	/* Read the ring even after a failure: it must be empty next time. */
	n = sft_perf_collect(&r->ev, r->samples, SFT_RUN_MAX_SAMPLES,
			     &r->stats);
	if (n < 0)
		return err ? err : n;
	r->nsamples = n;
	if (!err && !n && sft_perf_missed(&r->ev))
		return -EAGAIN;
	return err;
}

/* Is @s a good deferred sample of this thread, with its stack? */
static bool sample_ok(const struct sft_run *r, int i)
{
	const struct sft_sample *s = &r->samples[i];

	if (s->pid != (__u32)getpid() || s->tid != (__u32)gettid()) {
		ksft_print_msg("sample %d is from pid %u tid %u, not from us\n",
			       i, s->pid, s->tid);
		return false;
	}
	if (s->kernel_ips || s->sync_user || s->malformed || !s->deferred ||
	    s->chain_nr != 2 || !s->cookie) {
		ksft_print_msg("sample %d: callchain is not exactly USER_DEFERRED, cookie\n",
			       i);
		ksft_print_msg("(%u words, %u kernel IPs, sync %d, deferred %d, cookie %#llx)\n",
			       s->chain_nr, s->kernel_ips, s->sync_user,
			       s->deferred, (unsigned long long)s->cookie);
		return false;
	}
	if (!s->merged) {
		ksft_print_msg("sample %d: no deferred record with cookie %#llx among %u\n",
			       i, (unsigned long long)s->cookie,
			       r->stats.deferred);
		return false;
	}
	if (s->rec_pid != s->pid || s->rec_tid != s->tid) {
		ksft_print_msg("sample %d: deferred record from %u/%u\n", i,
			       s->rec_pid, s->rec_tid);
		return false;
	}
	if (!s->nr || s->nr > SFT_MAX_IPS - 2) {
		ksft_print_msg("sample %d: %u user IPs\n", i, s->nr);
		return false;
	}
	return true;
}

static bool run_ok(const struct sft_run *r)
{
	const struct sft_ring_stats *st = &r->stats;
	unsigned int i;

	if (r->walk.samples != SFT_CHAIN_SAMPLES) {
		ksft_print_msg("the chain made %u of its %d system calls\n",
			       r->walk.samples, SFT_CHAIN_SAMPLES);
		return false;
	}
	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		if (r->walk.truth[i].ret != getppid()) {
			ksft_print_msg("getppid from the chain returned %ld, not %d\n",
				       r->walk.truth[i].ret, getppid());
			return false;
		}
	}
	if (r->nsamples != SFT_CHAIN_SAMPLES || st->samples != SFT_CHAIN_SAMPLES ||
	    st->deferred != SFT_CHAIN_SAMPLES || st->lost || st->unmatched ||
	    st->duplicates) {
		ksft_print_msg("ring: %u samples, %u deferred records for %d system calls\n",
			       st->samples, st->deferred, SFT_CHAIN_SAMPLES);
		ksft_print_msg("ring: %u unmatched, %u duplicate, %u lost, %u other\n",
			       st->unmatched, st->duplicates, st->lost,
			       st->other);
		sft_perf_print_count(&r->ev);
		return false;
	}
	return true;
}

static bool equal_ips(const __u64 *ips, const unsigned long *want,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ips[i] != want[i])
			return false;
	return true;
}

static bool is_truth(const struct sft_sample *s, const struct sft_truth *t)
{
	return s->nr >= t->nr && equal_ips(s->ips, t->addr, t->nr);
}

static bool is_fp(const struct sft_sample *s, const struct sft_truth *t)
{
	if (t->fp_open ? s->nr < t->fp_nr : s->nr != t->fp_nr)
		return false;
	return equal_ips(s->ips, t->fp_ips, t->fp_nr);
}

/* The ground truth of one system call as sft_stack_matches() wants it. */
static void truth_frames(const struct sft_truth *t, struct sft_frame *f)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		f[i].func = t->func[i];
		f[i].addr = t->addr[i];
	}
}

static void print_fp(const struct sft_symtab *syms, const struct sft_truth *t,
		     const struct sft_sample *s)
{
	unsigned int i, rows = t->fp_nr;

	/* The simulated frames, and a few more of the kernel's. */
	if (s->nr > rows)
		rows = s->nr < rows + 4 ? s->nr : rows + 4;
	ksft_print_msg("frame pointer unwinder, simulated: %u frames%s\n",
		       t->fp_nr, t->fp_open ? " (and maybe more)" : "");
	for (i = 0; i < rows; i++) {
		char want[96] = "(none)", got[96] = "(none)";
		bool same = i < t->fp_nr && i < s->nr &&
			    t->fp_ips[i] == s->ips[i];

		if (i < t->fp_nr)
			sft_describe(syms, want, sizeof(want), i,
				     t->fp_ips[i]);
		if (i < s->nr)
			sft_describe(syms, got, sizeof(got), i, s->ips[i]);
		ksft_print_msg("%3u  %-40s  %-40s  %s\n", i, want, got,
			       same ? "" : "<--");
	}
}

/**
 * sft_run_verdict() - Judge the user stacks of the last run
 * @r: the run, after sft_run_end() returned 0
 * @syms: symbols of this program
 * @expect: the verdict the caller expects, or SFT_ANY
 * @quiet: explain nothing unless the run is broken
 *
 * Each system call's stack is the truth when it holds every frame of the
 * chain at its exact address (frames below main are not checked), the frame
 * pointer stack when it is exactly what fp_simulate() predicted, and other
 * when neither.  A run whose samples or deferred records are missing or
 * malformed is broken.  When the verdict is not @expect, prints the stacks
 * side by side.
 *
 * Return: the verdict shared by all of the run's stacks, or SFT_OTHER when
 * they differ, or SFT_BROKEN.
 */
int sft_run_verdict(struct sft_run *r, const struct sft_symtab *syms,
		    int expect, bool quiet)
{
	int i, verdict = -1;

	if (!run_ok(r))
		return SFT_BROKEN;
	for (i = 0; i < SFT_CHAIN_SAMPLES; i++)
		if (!sample_ok(r, i))
			return SFT_BROKEN;

	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		const struct sft_sample *s = &r->samples[i];
		const struct sft_truth *t = &r->walk.truth[i];
		int v;

		if (is_truth(s, t))
			v = SFT_TRUTH;
		else if (is_fp(s, t))
			v = SFT_FP;
		else
			v = SFT_OTHER;
		r->verdict[i] = v;
		verdict = verdict < 0 || verdict == v ? v : SFT_OTHER;
	}
	if (quiet || expect == SFT_ANY || verdict == expect)
		return verdict;

	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		const struct sft_sample *s = &r->samples[i];
		const struct sft_truth *t = &r->walk.truth[i];
		struct sft_frame want[SFT_MAX_LEVELS];

		ksft_print_msg("system call %d (in %s): %s stack, %u frames\n",
			       i, t->func[0], sft_verdict_name(r->verdict[i]),
			       s->nr);
		if (r->verdict[i] == expect)
			continue;
		truth_frames(t, want);
		if (r->verdict[i] == SFT_TRUTH)
			ksft_print_msg("it is the real chain: %s..%s\n",
				       t->func[0], t->func[t->nr - 1]);
		else
			sft_stack_matches(syms, want, t->nr, s->ips, s->nr);
		if (r->verdict[i] != SFT_FP)
			print_fp(syms, t, s);
	}
	return verdict;
}

/**
 * sft_probe_init() - Enter probe mode if the command line asks for it
 * @p: the probe
 * @argc: main()'s
 * @argv: main()'s
 *
 * Return: true in probe mode; then the caller records the chain and exits
 * with sft_probe_finish().
 */
bool sft_probe_init(struct sft_probe *p, int argc, char **argv)
{
	int expect;

	if (argc < 3 || strcmp(argv[1], "--probe"))
		return false;

	expect = parse_expect(argv[2]);
	sft_probe_setup(p, expect == -2 ? SFT_ANY : expect);
	if (expect == -2) {
		ksft_print_msg("probe: expectation '%s' is not truth, fp or any\n",
			       argv[2]);
		p->err = -EINVAL;
	}
	if (!p->err && argc > 3) {
		unsigned long want = strtoul(argv[3], NULL, 16);

		if (p->syms.bias != want) {
			ksft_print_msg("probe: loaded at bias %#lx, not %#lx\n",
				       p->syms.bias, want);
			p->err = -EADDRNOTAVAIL;
		}
	}
	return true;
}

/**
 * sft_probe_setup() - Prepare a probe of this process
 * @p: the probe
 * @expect: the verdict expected, for the messages
 *
 * Errors are kept in @p->err, for sft_probe_finish() to report.
 */
void sft_probe_setup(struct sft_probe *p, int expect)
{
	memset(p, 0, sizeof(*p));
	p->run.ev.fd = -1;
	p->expect = expect;
	p->err = sft_symtab_load_self(&p->syms);
	if (!p->err)
		p->err = sft_run_open(&p->run);
}

/**
 * sft_probe_finish() - Judge the probe's run
 * @p: the probe
 * @err: what SFT_RECORD_CHAIN() returned
 *
 * Return: the exit code: the verdict.
 */
int sft_probe_finish(struct sft_probe *p, int err)
{
	int v = SFT_BROKEN;

	if (p->err)
		err = p->err;
	if (err)
		ksft_print_msg("probe %d: no run of the chain: %s\n", getpid(),
			       strerror(-err));
	else
		v = sft_run_verdict(&p->run, &p->syms, p->expect, false);
	ksft_print_msg("probe %d: %s stack (expected %s)\n", getpid(),
		       sft_verdict_name(v), sft_verdict_name(p->expect));
	sft_run_close(&p->run);
	sft_symtab_free(&p->syms);
	fflush(stdout);
	return v;
}

/**
 * sft_run_probe() - Run a program in probe mode and get its verdict
 * @path: the program (a test program or a copy of one)
 * @expect: the verdict the caller expects (passed on, for the messages)
 * @bias: the load bias it must have, in hex, or NULL for any
 * @timeout_s: how long it may take
 *
 * Return: its verdict, or -1 when it did not run or died (printed).
 */
int sft_run_probe(const char *path, int expect, const char *bias,
		  int timeout_s)
{
	char *argv[5];
	int ret;

	argv[0] = (char *)path;
	argv[1] = "--probe";
	argv[2] = (char *)sft_verdict_name(expect);
	argv[3] = (char *)bias;
	argv[4] = NULL;

	ret = sft_spawn(argv, NULL, timeout_s);
	if (ret > SFT_BROKEN) {
		ksft_print_msg("%s exited with %d, not a verdict\n", path, ret);
		return -1;
	}
	return ret;
}

/**
 * sft_exe_dir() - The directory of this program: its sibling tests
 * @buf: receives it
 * @len: size of @buf
 *
 * Return: 0, or a negative errno after printing why.
 */
int sft_exe_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		ksft_perror("readlink(/proc/self/exe)");
		return -errno;
	}
	exe[n] = '\0';
	snprintf(buf, len, "%s", dirname(exe));
	return 0;
}

/**
 * sft_tmp_copy() - A path in /tmp for a damaged copy of a program
 * @path: receives it
 * @len: size of @path
 * @tag: what the copy is, part of the name
 *
 * The caller unlinks the file.
 */
void sft_tmp_copy(char *path, size_t len, const char *tag)
{
	snprintf(path, len, "/tmp/sframe-%s-%d", tag, getpid());
}

/**
 * sft_self_load() - Read this program's ELF image and locate its SFrame data
 * @self: receives it; free with sft_self_free()
 * @syms: this program's symbols, for the load bias
 *
 * Return: 0 (with or without PT_GNU_SFRAME, see @self->has_sframe), or a
 * negative errno after printing why.
 */
int sft_self_load(struct sft_self *self, const struct sft_symtab *syms)
{
	const struct elf64_phdr *ph;
	int ret;

	memset(self, 0, sizeof(*self));
	ret = sft_elf_load(&self->elf, "/proc/self/exe");
	if (ret)
		return ret;
	self->bias = syms->bias;
	ph = sft_elf_find_phdr(&self->elf, PT_GNU_SFRAME);
	if (!ph)
		return 0;
	ret = sft_sframe_parse(&self->elf, &self->sframe);
	if (ret) {
		sft_elf_free(&self->elf);
		return ret;
	}
	self->has_sframe = true;
	self->sframe_start = ph->p_vaddr + self->bias;
	self->sframe_end = self->sframe_start + ph->p_memsz;
	return 0;
}

/**
 * sft_self_free() - Release what sft_self_load() allocated
 * @self: the image
 */
void sft_self_free(struct sft_self *self)
{
	sft_elf_free(&self->elf);
	memset(self, 0, sizeof(*self));
}

/**
 * sft_self_text() - The executable segment that holds the chain
 * @self: this program
 * @syms: its symbols
 * @start: receives the start of the segment, at run time
 * @end: receives its end
 *
 * That is the text range the ELF loader registers the section for.
 *
 * Return: true, or false (printed) when the program has no PT_GNU_SFRAME or
 * no such segment.
 */
bool sft_self_text(const struct sft_self *self, const struct sft_symtab *syms,
		   unsigned long *start, unsigned long *end)
{
	const struct sft_sym *s = sft_symtab_find(syms, "st_entry");
	unsigned int i;

	for (i = 0; s && self->has_sframe && i < self->elf.phnum; i++) {
		const struct elf64_phdr *ph = &self->elf.phdr[i];
		unsigned long lo = ph->p_vaddr + self->bias;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (s->start < lo || s->start - lo >= ph->p_memsz)
			continue;
		*start = lo;
		*end = lo + ph->p_memsz;
		return true;
	}
	ksft_print_msg("no PT_GNU_SFRAME, or no text segment holding the chain\n");
	return false;
}

/**
 * sft_self_sframe_pages() - The pages of this program's .sframe section
 * @self: this program
 * @syms: its symbols
 * @start: receives the first page
 * @len: receives the length of the range
 *
 * Return: true, or false (printed) when there is no section or its pages
 * share the text.
 */
bool sft_self_sframe_pages(const struct sft_self *self,
			   const struct sft_symtab *syms,
			   unsigned long *start, unsigned long *len)
{
	unsigned long page = sysconf(_SC_PAGESIZE), t_start, t_end, lo, hi;

	if (!sft_self_text(self, syms, &t_start, &t_end))
		return false;
	lo = self->sframe_start & ~(page - 1);
	hi = (self->sframe_end + page - 1) & ~(page - 1);
	if (lo < t_end && t_start < hi) {
		ksft_print_msg(".sframe pages %#lx-%#lx share the text %#lx-%#lx\n",
			       lo, hi, t_start, t_end);
		return false;
	}
	*start = lo;
	*len = hi - lo;
	return true;
}
