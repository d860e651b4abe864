// SPDX-License-Identifier: GPL-2.0
/*
 * The user stacks of the stacktrace:user event trigger, against ground
 * truth.
 *
 * A tracefs instance of this test traces syscalls/sys_enter_getppid of this
 * thread, with the trigger "stacktrace:user if common_pid == <tid>".  Then
 *
 *  - chain_run() runs the known call chain of the SFrame tests
 *    (sframe_chain.h), built without frame pointers, whose two leaves each
 *    make a getppid system call;
 *  - under LD_AUDIT=sframe-audit.so, which registers the SFrame sections of
 *    what ld.so maps with codectl(2), run_lib() calls through a dlopen()ed
 *    library without frame pointers (codectl_chain.h) to a callback here
 *    that makes the getppid system call, for an SFrame V2 and an SFrame V3
 *    library.
 *
 * Each stack the trigger recorded is read from the instance's trace file as
 * "file+offset" lines.  Each frame is resolved from its file and offset
 * alone: the file must be the object the frame is in (this program, named
 * by /proc/self/exe, or the library, by its own path), the offset goes
 * through that file's program headers to a link-time address, and the load
 * bias of the object to a run-time address, which must be the address the
 * chain recorded as it ran, and which the object's symbol table must name
 * as the function that ran there.  The same stacks, decoded from the
 * instance's raw pages with the format files (what trace-cmd reads), must
 * be the same, name by name and offset by offset.
 *
 * Two controls show that the comparison can fail: a copy of this program
 * whose PT_GNU_SFRAME is turned into PT_NULL, which the kernel can only
 * unwind by frame pointer, and the library without LD_AUDIT; their stacks
 * must not match.
 *
 * The Makefile builds it with SFrame V2 (ftrace_truth_v2, dynamic) and V3
 * (ftrace_truth_v3, static: it cannot dlopen()).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "../codectl/codectl_chain.h"
#include "ftrace_util.h"

#define EVENT		"events/syscalls/sys_enter_getppid"
#define CHILD_TIMEOUT	120

/* Exit codes of a child run */
#define RUN_MATCH	0	/* every stack is the truth */
#define RUN_MISMATCH	1	/* complete stacks, not the truth */
#define RUN_BROKEN	2	/* no stack to compare */

#define LIB_V2		"libftrace_chain_v2.so"
#define LIB_V3		"libftrace_chain_v3.so"
#define AUDIT_SO	"sframe-audit.so"

/*
 * dladdr()'s result, as dladdr(3) documents it: glibc's Dl_info, whose
 * CamelCase checkpatch --strict would flag.
 */
struct ft_dl_info {
	const char *dli_fname;
	void *dli_fbase;
	const char *dli_sname;
	void *dli_saddr;
};

/* An object the frames may be in: its path, headers and load bias */
struct object {
	char path[PATH_MAX];
	struct sft_elf elf;
	unsigned long bias;
	unsigned long base;	/* where its first segment is */
};

/* One expected frame: the object, the address, the function */
struct expect {
	const struct object *obj;
	unsigned long addr;
	const char *func;
};

static struct sft_symtab syms;
static struct object self;

static int object_load(struct object *o, const char *path, unsigned long bias)
{
	if (!realpath(path, o->path)) {
		ksft_print_msg("realpath(%s): %s\n", path, strerror(errno));
		return -errno;
	}
	o->bias = bias;
	return sft_elf_load(&o->elf, o->path);
}

/* The run-time address of @offset in the file of @o; false if none */
static bool object_addr(const struct object *o, unsigned long long offset,
			unsigned long *addr)
{
	unsigned int i;

	for (i = 0; i < o->elf.phnum; i++) {
		const struct elf64_phdr *ph = &o->elf.phdr[i];

		if (ph->p_type != PT_LOAD || offset < ph->p_offset ||
		    offset - ph->p_offset >= ph->p_filesz)
			continue;
		*addr = o->bias + ph->p_vaddr + (offset - ph->p_offset);
		return true;
	}
	return false;
}

/* The function at @addr of @o, by its symbol table */
static const char *object_func(const struct object *o, unsigned long addr)
{
	const struct sft_sym *s;

	if (o == &self) {
		s = sft_symtab_lookup(&syms, addr);
		return s ? s->name : NULL;
	}
#if !SFT_STATIC
	{
		struct ft_dl_info info;

		/* The library's functions are in its dynamic symbol table. */
		if (dladdr((void *)addr, (void *)&info) && info.dli_sname &&
		    (unsigned long)info.dli_fbase == o->base)
			return info.dli_sname;
	}
#endif
	return NULL;
}

/* Is frame @i of @s the expected one?  Explains, unless @quiet. */
static bool frame_ok(const struct ftu_stack *s, unsigned int i,
		     const struct expect *e, bool quiet)
{
	const struct ftu_frame *f = &s->frames[i];
	const char *func = NULL;
	unsigned long addr = 0;
	bool ok;

	ok = !strcmp(f->name, e->obj->path) &&
	     object_addr(e->obj, f->offset, &addr) && addr == e->addr;
	if (ok)
		func = object_func(e->obj, i ? addr - 1 : addr);
	ok = ok && func && !strcmp(func, e->func);
	if (!ok && !quiet)
		ksft_print_msg("  %2u  want %s in %s at %#lx, got %s+0x%llx: %s at %#lx\n",
			       i, e->func, e->obj->path, e->addr, f->name,
			       f->offset, func ? func : "?", addr);
	return ok;
}

/*
 * The stacks of this thread's getppid events, in order: each event line,
 * then the cookie record, then exactly one stack with that cookie.
 */
static int find_stacks(const struct ftu_trace *t,
		       const struct ftu_stack **stacks, unsigned int max)
{
	unsigned int i, n = 0, count;
	int tid = gettid();

	for (i = 0; i < t->nrecs; i++) {
		const struct ftu_record *r = &t->recs[i];
		unsigned int j;

		if (r->pid != tid || strncmp(r->body, "sys_getppid(", 12))
			continue;
		for (j = i + 1; j < t->nrecs; j++)
			if (t->recs[j].pid == tid)
				break;
		if (j == t->nrecs || !t->recs[j].cookie_record ||
		    !t->recs[j].has_cookie) {
			ksft_print_msg("getppid event %u: no cookie record after it\n",
				       n);
			return -1;
		}
		if (n == max) {
			ksft_print_msg("more than %u getppid events\n", max);
			return -1;
		}
		stacks[n] = ftu_find_stack(t, t->recs[j].cookie, tid, &count);
		if (count != 1) {
			ksft_print_msg("cookie %llx: %u stacks\n",
				       t->recs[j].cookie, count);
			return -1;
		}
		n++;
	}
	return n;
}

/* The instance, tracing this thread's getppid with its user stacks */
static int trace_begin(struct ftu_instance *in, const char *tag)
{
	char name[64], text[128];
	int ret;

	snprintf(name, sizeof(name), "sframe_ftrace_%s_%d", tag, getpid());
	ret = ftu_instance_create(in, name);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "common_pid == %d", gettid());
	ret = ftu_write(in->dir, EVENT "/filter", text);
	if (!ret) {
		snprintf(text, sizeof(text),
			 "stacktrace:user if common_pid == %d", gettid());
		ret = ftu_write(in->dir, EVENT "/trigger", text);
	}
	if (!ret)
		ret = ftu_write(in->dir, EVENT "/enable", "1");
	if (ret)
		ftu_instance_remove(in);
	return ret;
}

/*
 * Stop tracing, parse the trace into @t and the raw pages into @raw, and
 * remove the instance.
 */
static int trace_end(struct ftu_instance *in, struct ftu_trace *t,
		     struct ftu_trace *raw, bool show)
{
	char *text, *line, *next;
	int ret;

	ret = ftu_write(in->dir, EVENT "/enable", "0");
	text = ret ? NULL : ftu_read(in->dir, "trace", NULL);
	ret = text ? ftu_parse(text, t) : -EIO;
	/* The trace as it is, without its header */
	for (line = text; show && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] != '#')
			ksft_print_msg("trace: %s\n", line);
	}
	free(text);
	if (!ret) {
		ret = ftu_raw_stacks(in->dir, raw);
		if (ret)
			ftu_trace_free(t);
	}
	ftu_instance_remove(in);
	return ret;
}

/* The raw pages hold the stacks the trace file shows, exactly. */
static bool raw_agrees(const struct ftu_trace *t, const struct ftu_trace *raw)
{
	unsigned int i, count;

	if (raw->nstacks != t->nstacks) {
		ksft_print_msg("%u stacks in the raw pages, %u in the trace file\n",
			       raw->nstacks, t->nstacks);
		return false;
	}
	for (i = 0; i < t->nstacks; i++) {
		const struct ftu_stack *s = &t->stacks[i], *r;

		r = ftu_find_stack(raw, s->cookie, s->pid, &count);
		if (count != 1 || !ftu_same_stack(s, r)) {
			ksft_print_msg("the raw pages differ from the trace file:\n");
			ftu_print_stack(s);
			if (r)
				ftu_print_stack(r);
			return false;
		}
	}
	return true;
}

/*
 * What the stack records take in the ring buffer, and what they would take
 * with a path in each frame instead.
 */
static void record_sizes(const struct ftu_trace *raw)
{
	unsigned int i, j;

	for (i = 0; i < raw->nstacks; i++) {
		const struct ftu_stack *s = &raw->stacks[i];
		unsigned int per_frame = s->record_size - s->names_size;

		for (j = 0; j < s->nr; j++)
			per_frame += strlen(s->frames[j].name) + 1;
		ksft_print_msg("stack record: %u bytes, %u frames, %u of names\n",
			       s->record_size, s->nr, s->names_size);
		ksft_print_msg("with a path in each frame instead: %u bytes\n",
			       per_frame);
	}
}

/* Compare @s with @n expected frames; the verdict, explained if wrong */
static int judge(const struct ftu_stack *s, const struct expect *e,
		 unsigned int n, bool quiet)
{
	unsigned int i;
	bool ok = s->nr >= n;

	for (i = 0; i < n && i < s->nr; i++)
		ok &= frame_ok(s, i, &e[i], true);
	if (ok)
		return RUN_MATCH;
	if (!quiet) {
		ksft_print_msg("the stack is not the chain:\n");
		for (i = 0; i < n && i < s->nr; i++)
			frame_ok(s, i, &e[i], false);
		if (s->nr < n)
			ksft_print_msg("  %u frames, %u expected\n", s->nr, n);
		ftu_print_stack(s);
	}
	return RUN_MISMATCH;
}

/* The verdict on the two stacks of a run of the SFrame chain */
static int judge_chain(const struct sft_walk *w, const struct ftu_trace *t,
		       const struct ftu_trace *raw, bool quiet)
{
	const struct ftu_stack *stacks[SFT_CHAIN_SAMPLES + 1];
	struct expect e[SFT_MAX_LEVELS];
	int n, i, verdict = RUN_MATCH;
	unsigned int j;

	n = find_stacks(t, stacks, SFT_CHAIN_SAMPLES + 1);
	if (n != SFT_CHAIN_SAMPLES || w->samples != SFT_CHAIN_SAMPLES) {
		ksft_print_msg("%d stacks for %u getppid calls of the chain\n",
			       n, w->samples);
		return RUN_BROKEN;
	}
	if (!raw_agrees(t, raw))
		return RUN_BROKEN;
	if (!quiet)
		record_sizes(raw);
	for (i = 0; i < n; i++) {
		const struct sft_truth *tr = &w->truth[i];

		for (j = 0; j < tr->nr; j++) {
			e[j].obj = &self;
			e[j].addr = tr->addr[j];
			e[j].func = tr->func[j];
		}
		if (!quiet)
			ksft_print_msg("system call %d (in %s): %u frames recorded\n",
				       i, tr->func[0], stacks[i]->nr);
		if (judge(stacks[i], e, tr->nr, quiet) != RUN_MATCH)
			verdict = RUN_MISMATCH;
	}
	return verdict;
}

/*
 * The outermost frame the chain records and the check compares: the chain
 * runs from here, with setjmp() and longjmp() of its own.
 */
static __attribute__((noipa)) int chain_run(struct sft_walk *w)
{
	return SFT_RUN_CHAIN(w);
}

/* Run the SFrame chain under the trigger: the verdict */
static int run_chain(struct sft_walk *w, bool quiet)
{
	struct ftu_trace t, raw;
	struct ftu_instance in;
	int err, v = RUN_BROKEN;

	if (trace_begin(&in, "chain"))
		return RUN_BROKEN;
	err = chain_run(w);
	if (trace_end(&in, &t, &raw, !quiet))
		return RUN_BROKEN;
	if (!err)
		v = judge_chain(w, &t, &raw, quiet);
	else
		ksft_print_msg("the chain did not run: %s\n", strerror(-err));
	ftu_trace_free(&t);
	ftu_trace_free(&raw);
	return v;
}

#if !SFT_STATIC
/* The last function of the library chain: the system call */
__attribute__((noipa)) long ft_callback(struct cl_walk *w)
{
	CL_NOTE(w);
	CL_GETPPID(w);
	return w->ret;
}

/* The verdict on the stack of the call through the library */
static int judge_lib(const struct cl_walk *w, const struct object *lib,
		     const struct ftu_trace *t, const struct ftu_trace *raw)
{
	static const char * const funcs[] = {
		"ft_callback", "cl_call", "cl_middle", "cl_entry", "run_lib",
	};
	const struct ftu_stack *stacks[2];
	struct expect e[ARRAY_SIZE(funcs)];
	unsigned int i;
	int n;

	n = find_stacks(t, stacks, 2);
	if (n != 1 || w->depth != 4 || w->ret != getppid()) {
		ksft_print_msg("%d stacks, %d functions ran\n", n, w->depth);
		return RUN_BROKEN;
	}
	if (!raw_agrees(t, raw))
		return RUN_BROKEN;
	/* ra[i] returns into the caller of name[i]: cl_entry's into run_lib */
	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		e[i].func = funcs[i];
		e[i].obj = i == 0 || i == 4 ? &self : lib;
		e[i].addr = i ? w->ra[4 - i] : w->top_ip;
	}
	ksft_print_msg("call through %s: %u frames recorded\n", lib->path,
		       stacks[0]->nr);
	record_sizes(raw);
	return judge(stacks[0], e, ARRAY_SIZE(e), false);
}
#endif

#if !SFT_STATIC
/* Child: call through the library @path, under the trigger */
static __attribute__((noipa)) int run_lib(const char *path)
{
	unsigned long page = sysconf(_SC_PAGESIZE), low = ~0UL;
	struct ftu_trace t, raw;
	struct ftu_instance in;
	struct object lib = { };
	long (*entry)(struct cl_walk *w);
	struct cl_walk w = { };
	struct ft_dl_info info;
	unsigned int i;
	void *h;
	int v = RUN_BROKEN;

	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		ksft_print_msg("dlopen(%s): %s\n", path, dlerror());
		return RUN_BROKEN;
	}
	entry = dlsym(h, "cl_entry");
	if (!entry || !dladdr(entry, (void *)&info) ||
	    object_load(&lib, path, 0)) {
		ksft_print_msg("%s: no cl_entry\n", path);
		return RUN_BROKEN;
	}
	/* The load bias: where the lowest segment is, less its address */
	for (i = 0; i < lib.elf.phnum; i++)
		if (lib.elf.phdr[i].p_type == PT_LOAD &&
		    lib.elf.phdr[i].p_vaddr < low)
			low = lib.elf.phdr[i].p_vaddr;
	lib.base = (unsigned long)info.dli_fbase;
	lib.bias = lib.base - (low & ~(page - 1));
	w.callback = ft_callback;
	if (!trace_begin(&in, "lib")) {
		entry(&w);
		if (!trace_end(&in, &t, &raw, true)) {
			v = judge_lib(&w, &lib, &t, &raw);
			ftu_trace_free(&t);
			ftu_trace_free(&raw);
		}
	}
	sft_elf_free(&lib.elf);
	dlclose(h);
	return v;
}
#endif

/* A copy of this program whose PT_GNU_SFRAME is PT_NULL, run --chain */
static int run_without_sframe(void)
{
	char path[128], *argv[3];
	struct elf64_phdr *ph;
	int ret;

	ph = sft_elf_find_phdr(&self.elf, PT_GNU_SFRAME);
	if (!ph) {
		ksft_print_msg("this program has no PT_GNU_SFRAME\n");
		return -1;
	}
	ph->p_type = PT_NULL;
	snprintf(path, sizeof(path), "/tmp/sframe-ftrace-ptnull-%d", getpid());
	ret = sft_elf_save(&self.elf, path);
	ph->p_type = PT_GNU_SFRAME;
	if (ret)
		return -1;
	argv[0] = path;
	argv[1] = "--chain";
	argv[2] = NULL;
	ret = sft_spawn(argv, NULL, CHILD_TIMEOUT);
	unlink(path);
	return ret;
}

#if !SFT_STATIC
/* This program with @args, under LD_AUDIT with the audit module or not */
static int run_self(const char *dir, const char *arg1, const char *arg2,
		    bool audit)
{
	static char env[PATH_MAX + 16];
	char *argv[4];

	snprintf(env, sizeof(env), "LD_AUDIT=%s/%s", dir, AUDIT_SO);
	argv[0] = "/proc/self/exe";
	argv[1] = (char *)arg1;
	argv[2] = (char *)arg2;
	argv[3] = NULL;
	return sft_spawn(argv, audit ? env : NULL, CHILD_TIMEOUT);
}

static void test_lib(const char *dir, const char *name, int version)
{
	char path[PATH_MAX];
	int v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	v = run_self(dir, "--lib", path, true);
	ksft_test_result(v == RUN_MATCH,
			 "dlopen, SFrame V%d library under LD_AUDIT: every frame, named by its file, is the chain\n",
			 version);
	v = run_self(dir, "--lib", path, false);
	ksft_test_result(v == RUN_MISMATCH,
			 "dlopen, SFrame V%d library without LD_AUDIT: the comparison fails (control)\n",
			 version);
}
#endif

int main(int argc, char **argv)
{
	static struct sft_walk walk;
	char dir[PATH_MAX];
	int v;

	if (sft_symtab_load_self(&syms) ||
	    object_load(&self, "/proc/self/exe", syms.bias))
		return RUN_BROKEN;

	if (argc == 2 && !strcmp(argv[1], "--chain"))
		return run_chain(&walk, true);
#if !SFT_STATIC
	if (argc == 3 && !strcmp(argv[1], "--lib"))
		return run_lib(argv[2]);
#endif

	ksft_print_header();
	ksft_set_plan(3 + (SFT_STATIC ? 0 : 4));
	ksft_print_msg("%s: SFrame V%d, %s\n", self.path, SFT_SFRAME_VERSION,
		       SFT_STATIC ? "static" : "dynamic");
	snprintf(dir, sizeof(dir), "%s", self.path);
	*strrchr(dir, '/') = '\0';

	v = run_chain(&walk, false);
	ksft_test_result(v == RUN_MATCH,
			 "chain: both stacks, named by file and offset, are the chain frame by frame\n");
	v = run_chain(&walk, false);
	ksft_test_result(v == RUN_MATCH, "chain: the same a second time\n");
	v = run_without_sframe();
	ksft_test_result(v == RUN_MISMATCH,
			 "chain without PT_GNU_SFRAME: the comparison fails (control)\n");
#if !SFT_STATIC
	test_lib(dir, LIB_V2, 2);
	test_lib(dir, LIB_V3, 3);
#endif
	sft_elf_free(&self.elf);
	sft_symtab_free(&syms);
	ksft_finished();
}
