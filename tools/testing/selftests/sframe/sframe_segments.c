// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks through objects with two executable segments.
 *
 * sframe_segments.lds links every other function of the known chain
 * (sframe_chain.h) into an executable PT_LOAD segment of its own, below the
 * one of .text and 64 KiB away from it, so that the chain goes from one
 * segment to the other at almost every call.  The object has one .sframe
 * section, which describes the functions of both segments, and the ELF
 * loader registers it once per executable segment: a lookup in the
 * registration of one segment meets FDEs of the other, which are legal.
 * The stacks at the chain's two system calls must be the chain, frame by
 * frame, at the exact addresses it recorded, and /proc/self/sframe must
 * show one registration per segment, both still "ok" after the unwinds.  A
 * copy of the program without PT_GNU_SFRAME gets the frame pointer stack:
 * the comparison can fail.
 *
 * The V2 build also dlopen()s libsframe_segments.so, the chain linked the
 * same way into a shared library, and registers the library's section once
 * per executable segment with codectl(2), as the dynamic loader's audit
 * module (tools/sframe) does.  Before that, the stack through the library
 * is not the chain; after, it must be.  The V3 programs are static, without
 * dlopen().
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if SFT_SFRAME_VERSION == 2
#include <dlfcn.h>
#endif

#include "../kselftest.h"
#include "sframe_lib.h"
#if SFT_SFRAME_VERSION == 2
#include "sframe_codectl.h"
#endif

#define PROBE_TIMEOUT	30
#define MAX_SEGS	4
/* The space sframe_segments.lds leaves between the two segments */
#define MIN_GAP		0x10000
/* Calls of the chain from one segment to the other, at least */
#define MIN_CROSSINGS	10

/* The functions of the chain that sframe_segments.lds puts first */
static const char * const low_funcs[] = {
	"st_entry", "st_callee_saved", "st_big_frame", "st_stack_args",
	"st_stack_args2", "st_alloca", "st_realign", "st_indirect_target",
	"st_cold", "st_noreturn_call", "st_leaf_parent",
};

/* The executable segments of an object at run time, in address order */
struct segs {
	unsigned int n;
	unsigned long start[MAX_SEGS], end[MAX_SEGS];
};

static struct sft_symtab syms;
static struct sft_self self;
static struct sft_run run;
static struct segs exe_segs;

static bool is_low(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(low_funcs); i++)
		if (!strcmp(low_funcs[i], name))
			return true;
	return false;
}

/* The index of the segment holding @addr, or -1 */
static int seg_of(const struct segs *s, unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (addr >= s->start[i] && addr < s->end[i])
			return i;
	return -1;
}

/* Exactly two executable segments, far enough apart */
static bool find_segs(const struct sft_elf *e, unsigned long bias,
		      struct segs *s, const char *what)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < e->phnum; i++) {
		const struct elf64_phdr *ph = &e->phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (s->n == MAX_SEGS)
			break;
		s->start[s->n] = ph->p_vaddr + bias;
		s->end[s->n] = s->start[s->n] + ph->p_memsz;
		ksft_print_msg("%s: executable segment %u: %#lx-%#lx\n", what,
			       s->n, s->start[s->n], s->end[s->n]);
		s->n++;
	}
	if (s->n != 2) {
		ksft_print_msg("%s: %u executable segments, not 2\n", what,
			       s->n);
		return false;
	}
	if (s->start[1] < s->end[0] || s->start[1] - s->end[0] < MIN_GAP) {
		ksft_print_msg("%s: less than %d KiB between the segments\n",
			       what, MIN_GAP / 1024);
		return false;
	}
	return true;
}

static bool check_binary(void)
{
	if (!self.has_sframe) {
		ksft_print_msg("no PT_GNU_SFRAME: was it built with -Wa,--gsframe?\n");
		return false;
	}
	if (self.sframe.version != SFT_SFRAME_VERSION) {
		ksft_print_msg("SFrame version %u, built for %d\n",
			       self.sframe.version, SFT_SFRAME_VERSION);
		return false;
	}
	ksft_print_msg("PT_GNU_SFRAME: V%u, %u FDEs at %#lx-%#lx\n",
		       self.sframe.version, self.sframe.num_fdes,
		       self.sframe_start, self.sframe_end);
	return find_segs(&self.elf, self.bias, &exe_segs, "program");
}

/*
 * Is the function at run-time address @addr in the segment the linker
 * script meant for it?
 */
static bool placed(const struct segs *s, const char *name, unsigned long addr)
{
	int want = is_low(name) ? 0 : 1, seg = seg_of(s, addr);

	if (seg == want)
		return true;
	ksft_print_msg("%s at %#lx: segment %d, not %d\n", name, addr, seg,
		       want);
	return false;
}

/* Each function of the chain in its segment, with its FDE */
static bool check_placement(void)
{
	unsigned int i, low = 0;
	bool ok = true;

	for (i = 0; i < SFT_CHAIN_FUNCS; i++) {
		const char *name = sft_chain_funcs[i];
		const struct sft_sym *s = sft_symtab_find(&syms, name);
		struct sft_fde fde;

		if (!s) {
			ksft_print_msg("%s: no symbol\n", name);
			ok = false;
			continue;
		}
		if (!placed(&exe_segs, name, s->start))
			ok = false;
		low += is_low(name);
		/* GNU as 2.44 cannot describe st_realign in V2 */
		if (SFT_SFRAME_VERSION == 2 && !strcmp(name, "st_realign"))
			continue;
		if (sft_sframe_find(&self.sframe, s->start - syms.bias, &fde)) {
			ksft_print_msg("%s: no FDE\n", name);
			ok = false;
		}
	}
	if (ok)
		ksft_print_msg("%u functions of the chain in segment 0, %u in segment 1\n",
			       low, SFT_CHAIN_FUNCS - low);
	return ok;
}

/* How often the chain of system call @t goes from one segment to the other */
static unsigned int crossings(const struct sft_truth *t, const struct segs *s)
{
	unsigned int i, n = 0;
	int prev = -1, seg;

	for (i = 0; i < t->nr; i++) {
		/* A return address may be past the end of its caller. */
		seg = seg_of(s, i ? t->addr[i] - 1 : t->addr[i]);
		if (seg >= 0 && prev >= 0 && seg != prev)
			n++;
		prev = seg;
	}
	return n;
}

static bool check_crossings(const struct sft_run *r, const struct segs *s)
{
	unsigned int i, n;
	bool ok = true;

	for (i = 0; i < SFT_CHAIN_SAMPLES; i++) {
		n = crossings(&r->walk.truth[i], s);
		ksft_print_msg("system call %u: %u frames, %u calls across segments\n",
			       i, r->walk.truth[i].nr, n);
		if (n < MIN_CROSSINGS)
			ok = false;
	}
	return ok;
}

/*
 * /proc/self/sframe: for each segment, a registration of its text range
 * with the section, by @user (codectl) or not (exec), not found corrupt;
 * and no other registration of the section.
 */
static bool check_regs(const struct segs *s, unsigned long sframe_start,
		       unsigned long sframe_end, bool user)
{
	struct sft_reg regs[64];
	unsigned int i, same = 0;
	bool ok = true;
	int n;

	n = sft_regs_read(regs, ARRAY_SIZE(regs));
	if (n < 0)
		return false;
	if (n > (int)ARRAY_SIZE(regs)) {
		ksft_print_msg("%d registrations, more than expected\n", n);
		n = ARRAY_SIZE(regs);
		ok = false;
	}
	for (i = 0; i < (unsigned int)n; i++)
		same += regs[i].sframe_start == sframe_start;
	for (i = 0; i < s->n; i++) {
		const struct sft_reg *r = sft_regs_find(regs, n, s->start[i]);

		if (!r) {
			ksft_print_msg("segment %u (%#lx): not registered\n",
				       i, s->start[i]);
			ok = false;
			continue;
		}
		ksft_print_msg("segment %u: text %#lx-%#lx, .sframe %#lx-%#lx, %s, %s\n",
			       i, r->text_start, r->text_end, r->sframe_start,
			       r->sframe_end, r->user ? "codectl" : "exec",
			       r->bad ? "bad" : "ok");
		if (r->text_end != s->end[i] || r->sframe_start != sframe_start ||
		    r->sframe_end != sframe_end || r->user != user || r->bad) {
			ksft_print_msg("expected text %#lx-%#lx, .sframe %#lx-%#lx, %s, ok\n",
				       s->start[i], s->end[i], sframe_start,
				       sframe_end, user ? "codectl" : "exec");
			ok = false;
		}
	}
	if (same != s->n) {
		ksft_print_msg("%u registrations of the section, not %u\n",
			       same, s->n);
		ok = false;
	}
	if (!ok)
		sft_regs_dump();
	return ok;
}

/* The copy without PT_GNU_SFRAME gets the frame pointer stack. */
static bool check_sensitivity(void)
{
	struct elf64_phdr *ph;
	char path[128];
	int v;

	ph = sft_elf_find_phdr(&self.elf, PT_GNU_SFRAME);
	if (!ph)
		return false;
	ph->p_type = PT_NULL;
	sft_tmp_copy(path, sizeof(path), "segments-ptnull");
	v = sft_elf_save(&self.elf, path);
	ph->p_type = PT_GNU_SFRAME;
	if (v)
		return false;

	ksft_print_msg("running %s, this program with PT_GNU_SFRAME turned into PT_NULL\n",
		       path);
	v = sft_run_probe(path, SFT_FP, NULL, PROBE_TIMEOUT);
	unlink(path);
	if (v == SFT_FP)
		ksft_print_msg("as expected, the comparison FAILS there: frame pointer stack\n");
	return v == SFT_FP;
}

#if SFT_SFRAME_VERSION == 2
#define LIB_NAME	"libsframe_segments.so"
#define LIB_TESTS	4

/* The chain in the library: its own copy of the chain's functions */
static struct {
	char path[PATH_MAX];
	void *handle;
	int (*prepare)(struct sft_walk *w, const char *caller);
	void (*entry)(struct sft_walk *w);
	struct sft_elf elf;
	struct sft_sframe sframe;
	unsigned long bias, sframe_start, sframe_end;
	struct segs segs;
	unsigned int registered;
} lib;

/* Where the library was loaded: its mapping at file offset 0 */
static int lib_bias(unsigned long *bias)
{
	char line[PATH_MAX + 128];
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, off;
		int pos = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %n", &start, &off,
			   &pos) != 2 || !pos)
			continue;
		if (off || strcmp(line + pos, lib.path))
			continue;
		*bias = start;
		fclose(f);
		return 0;
	}
	fclose(f);
	ksft_print_msg("%s is not in /proc/self/maps\n", lib.path);
	return -ENOENT;
}

static bool open_lib(void)
{
	const struct elf64_phdr *ph;
	char dir[PATH_MAX - 64];
	unsigned int i;
	bool ok = true;

	if (sft_exe_dir(dir, sizeof(dir)))
		return false;
	snprintf(lib.path, sizeof(lib.path), "%s/%s", dir, LIB_NAME);
	lib.handle = dlopen(lib.path, RTLD_NOW | RTLD_LOCAL);
	if (!lib.handle) {
		ksft_print_msg("dlopen(%s): %s\n", lib.path, dlerror());
		return false;
	}
	lib.prepare = dlsym(lib.handle, "sft_chain_prepare");
	lib.entry = dlsym(lib.handle, "st_entry");
	if (!lib.prepare || !lib.entry) {
		ksft_print_msg("%s: no sft_chain_prepare or st_entry\n",
			       LIB_NAME);
		return false;
	}
	if (sft_elf_load(&lib.elf, lib.path) ||
	    sft_sframe_parse(&lib.elf, &lib.sframe) || lib_bias(&lib.bias))
		return false;
	/* The mapping at offset 0 is at the bias if the file's is at 0. */
	ph = sft_elf_find_phdr(&lib.elf, PT_LOAD);
	if (!ph || ph->p_vaddr || ph->p_offset) {
		ksft_print_msg("%s: the first segment is not at 0\n", LIB_NAME);
		return false;
	}
	ph = sft_elf_find_phdr(&lib.elf, PT_GNU_SFRAME);
	lib.sframe_start = ph->p_vaddr + lib.bias;
	lib.sframe_end = lib.sframe_start + ph->p_memsz;
	ksft_print_msg("%s at %#lx: PT_GNU_SFRAME V%u, %u FDEs at %#lx-%#lx\n",
		       LIB_NAME, lib.bias, lib.sframe.version,
		       lib.sframe.num_fdes, lib.sframe_start, lib.sframe_end);
	if (!find_segs(&lib.elf, lib.bias, &lib.segs, LIB_NAME))
		return false;

	for (i = 0; i < SFT_CHAIN_FUNCS; i++) {
		const char *name = sft_chain_funcs[i];
		void *addr = dlsym(lib.handle, name);

		if (!addr) {
			ksft_print_msg("%s: no %s\n", LIB_NAME, name);
			ok = false;
		} else if (!placed(&lib.segs, name, (unsigned long)addr)) {
			ok = false;
		}
	}
	return ok;
}

/*
 * SFT_RECORD_CHAIN() with the library's chain, called from here: this
 * function's frame is the one below st_entry.
 */
static SFT_FN int record_lib_chain(void)
{
	int err = sft_run_begin(&run);

	if (!err) {
		err = lib.prepare(&run.walk, __func__);
		if (!err && !setjmp(run.walk.done))
			lib.entry(&run.walk);
	}
	return sft_run_end(&run, err);
}

/* The verdict of a run of the library's chain */
static int lib_verdict(int expect)
{
	int ret = record_lib_chain();

	if (ret) {
		ksft_print_msg("recording: %s\n", strerror(-ret));
		return SFT_BROKEN;
	}
	return sft_run_verdict(&run, &syms, expect, expect != SFT_TRUTH);
}

static bool check_lib_unregistered(void)
{
	int v = lib_verdict(SFT_ANY);

	ksft_print_msg("unregistered library: %s stack\n", sft_verdict_name(v));
	return v == SFT_FP || v == SFT_OTHER;
}

static bool register_lib(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < lib.segs.n; i++) {
		ret = sft_codectl_register(lib.segs.start[i], lib.segs.end[i],
					   lib.sframe_start, lib.sframe_end);
		if (ret) {
			ksft_print_msg("codectl(REGISTER_SFRAME, %#lx-%#lx): %s\n",
				       lib.segs.start[i], lib.segs.end[i],
				       strerror(-ret));
			return false;
		}
		lib.registered++;
	}
	return true;
}

static bool check_lib_registered(void)
{
	int v;

	if (!register_lib())
		return false;
	v = lib_verdict(SFT_TRUTH);
	return v == SFT_TRUTH && check_crossings(&run, &lib.segs);
}

static void close_lib(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < lib.registered; i++) {
		ret = sft_codectl_unregister(lib.segs.start[i]);
		if (ret)
			ksft_print_msg("codectl(UNREGISTER, %#lx): %s\n",
				       lib.segs.start[i], strerror(-ret));
	}
	if (lib.handle)
		dlclose(lib.handle);
	sft_elf_free(&lib.elf);
}

static void lib_tests(void)
{
	bool opened = open_lib();

	ksft_test_result(opened,
			 "library: two executable segments, the chain alternating between them\n");
	ksft_test_result(opened && check_lib_unregistered(),
			 "library, not registered: the stack through it is not the chain\n");
	ksft_test_result(opened && check_lib_registered(),
			 "library, registered per executable segment with codectl: the chain, every frame at its address\n");
	ksft_test_result(opened && lib.registered == lib.segs.n &&
			 check_regs(&lib.segs, lib.sframe_start,
				    lib.sframe_end, true),
			 "/proc/self/sframe: one codectl registration of the library's section per segment, both ok\n");
	close_lib();
}
#else
#define LIB_TESTS	0
#endif

int main(int argc, char **argv)
{
	/* Static: live across the chain's longjmp() back into main() */
	static bool binary;
	int ret, v;

	SFT_PROBE_MAIN(argc, argv);

	ksft_print_header();
	ksft_set_plan(7 + LIB_TESTS);
	ksft_print_msg("%s: the chain alternating between two executable segments, SFrame V%d\n",
		       argv[0], SFT_SFRAME_VERSION);

	if (sft_symtab_load_self(&syms) || sft_self_load(&self, &syms))
		ksft_exit_fail_msg("cannot read this program's ELF image\n");

	binary = check_binary();
	ksft_test_result(binary,
			 "binary: two executable segments %d KiB apart, one SFrame V%d section\n",
			 MIN_GAP / 1024, SFT_SFRAME_VERSION);
	ksft_test_result(binary && check_placement(),
			 "binary: every other function of the chain in the other segment, each with its FDE\n");

	ret = sft_run_open(&run);
	if (!ret)
		ret = SFT_RECORD_CHAIN(&run);
	if (ret)
		ksft_print_msg("recording: %s\n", strerror(-ret));
	v = ret ? SFT_BROKEN : sft_run_verdict(&run, &syms, SFT_TRUTH, false);
	ksft_test_result(v != SFT_BROKEN && binary &&
			 check_crossings(&run, &exe_segs),
			 "record: two samples with deferred stacks, the chain crossing between the segments at least %d times\n",
			 MIN_CROSSINGS);
	ksft_test_result(v != SFT_BROKEN && run.verdict[0] == SFT_TRUTH,
			 "stack at st_leaf_bare: the chain, every frame at its address\n");
	ksft_test_result(v != SFT_BROKEN && run.verdict[1] == SFT_TRUTH,
			 "stack at st_leaf_framed: the chain, every frame at its address\n");
	ksft_test_result(binary && check_regs(&exe_segs, self.sframe_start,
					      self.sframe_end, false),
			 "/proc/self/sframe: one exec registration of the section per segment, both ok\n");
	ksft_test_result(check_sensitivity(),
			 "sensitivity: without PT_GNU_SFRAME the stack is the frame pointer one, the comparison fails\n");

#if SFT_SFRAME_VERSION == 2
	lib_tests();
#endif
	sft_run_close(&run);
	sft_self_free(&self);
	sft_symtab_free(&syms);
	ksft_finished();
}
