// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO's SFrame section.
 *
 * The kernel builds the x86-64 and arm64 vDSOs with an SFrame section
 * (PT_GNU_SFRAME) and registers it for the vDSO's text whenever it maps the
 * vDSO: at exec, and on x86-64 by arch_prctl(ARCH_MAP_VDSO_64), as CRIU
 * does.  The registration is
 * inherited by fork(), follows the vDSO when mremap() moves it, and dies
 * with munmap(); /proc/self/sframe shows it as an "exec" registration named
 * [vdso].
 *
 * The stack tests sample this thread's user time (task-clock, deferred
 * callchains) while functions built without frame pointers call a vDSO
 * function in a loop:
 *
 *	caller -> vd_loop -> vd_outer -> vd_middle -> vd_inner -> vDSO
 *
 * Every sample whose IP is in the vDSO must have that chain, exactly: the
 * IP, then any return addresses of calls inside the vDSO, then an address
 * in vd_inner, then the return addresses vd_inner, vd_middle, vd_outer and
 * vd_loop found on their own stacks.  The second function, the leaf
 * (__vdso_getcpu on x86-64, __kernel_clock_getres on arm64), sets up no
 * frame: without the vDSO's SFrame section the kernel can only follow the
 * frame pointer register there, which holds whatever the program left in
 * it, and loses the caller.  The test that unregisters the vDSO's section
 * shows that: some of the leaf's samples must be wrong.
 *
 * The changes of the vDSO's mapping run in children, which must not call
 * the C library's time functions once the vDSO moved: they call the vDSO
 * through their own pointers and read the clock with syscall().
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
#include <sys/wait.h>

#include "../kselftest.h"
#include "sframe_codectl.h"
#include "sframe_lib.h"

#ifndef ARCH_MAP_VDSO_64
#define ARCH_MAP_VDSO_64	0x2003
#endif

#ifdef __aarch64__
/* The leaf is clock_getres(); no system call maps the vDSO again. */
#define VD_LEAF_IS_GETRES	1
#define VD_TESTS		8
#else
#define VD_LEAF_IS_GETRES	0
#define VD_TESTS		10
#endif

/* CPU time between two samples */
#define VD_PERIOD_NS		200000
/* Samples in the function under test that a stack test wants */
#define VD_WANT			120
/* ... and the fewest it accepts, after VD_MAX_ROUNDS rounds */
#define VD_MIN			30
#define VD_MAX_ROUNDS		400
/* Seconds a stack test may take */
#define VD_BUDGET_S		8
/* Aim for this many samples per round, far fewer than SFT_MAX_DEFERRED */
#define VD_ROUND_SAMPLES	24
/* Wrong stacks printed per test */
#define VD_SHOW			4

enum vd_kind { VD_CLOCK_GETTIME, VD_LEAF };

static const char * const vd_kind_names[] = {
#ifdef __aarch64__
	[VD_CLOCK_GETTIME] = "__kernel_clock_gettime",
	[VD_LEAF] = "__kernel_clock_getres",
#else
	[VD_CLOCK_GETTIME] = "__vdso_clock_gettime",
	[VD_LEAF] = "__vdso_getcpu",
#endif
};

/* A mapping of /proc/self/maps */
struct vd_range {
	unsigned long start, end;
};

/* The vDSO and its data pages, as mapped now */
struct vd_map {
	struct vd_range vdso, vvar, vclock;
	struct vd_range sframe;		/* PT_GNU_SFRAME, runtime */
	struct vd_range fn[2];		/* enum vd_kind, runtime */
};

static struct sft_symtab syms;
static struct vd_map vdso;

/* What the chain's functions found as their return addresses */
static unsigned long vd_ra[4];

typedef int (*vd_clock_gettime_t)(clockid_t, struct timespec *);
typedef long (*vd_getcpu_t)(unsigned int *, unsigned int *, void *);

/*
 * The chain: SFT_FN, no clones or inlining, so that the symbols are the
 * functions; SFT_KEEP() after each call, so that no call is a tail call.
 */
static SFT_FN void vd_inner(int kind, unsigned long fn)
{
	struct timespec ts = { 0 };
	unsigned int cpu = 0;
	long ret;

	vd_ra[0] = (unsigned long)__builtin_return_address(0);
	if (kind == VD_CLOCK_GETTIME || VD_LEAF_IS_GETRES)
		ret = ((vd_clock_gettime_t)fn)(CLOCK_MONOTONIC, &ts);
	else
		ret = ((vd_getcpu_t)fn)(&cpu, NULL, NULL);
	SFT_KEEP(ret);
}

static SFT_FN void vd_middle(int kind, unsigned long fn)
{
	vd_ra[1] = (unsigned long)__builtin_return_address(0);
	vd_inner(kind, fn);
	SFT_KEEP(fn);
}

static SFT_FN void vd_outer(int kind, unsigned long fn)
{
	vd_ra[2] = (unsigned long)__builtin_return_address(0);
	vd_middle(kind, fn);
	SFT_KEEP(fn);
}

static SFT_FN void vd_loop(int kind, unsigned long fn, unsigned long n)
{
	unsigned long i;

	vd_ra[3] = (unsigned long)__builtin_return_address(0);
	for (i = 0; i < n; i++)
		vd_outer(kind, fn);
	SFT_KEEP(fn);
}

/* Monotonic seconds, without the vDSO */
static double vd_now(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Find the vDSO and its data pages in /proc/self/maps; false if none. */
static bool vd_find(struct vd_map *m)
{
	char line[512], name[64];
	unsigned long start, end;
	FILE *f;

	memset(m, 0, sizeof(*m));
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %63s", &start, &end,
			   name) < 2)
			continue;
		if (!strcmp(name, "[vdso]"))
			m->vdso = (struct vd_range){ start, end };
		else if (!strcmp(name, "[vvar]"))
			m->vvar = (struct vd_range){ start, end };
		else if (!strcmp(name, "[vvar_vclock]"))
			m->vclock = (struct vd_range){ start, end };
	}
	fclose(f);
	return m->vdso.start;
}

/* @size bytes at @off lie inside the vDSO mapping */
static bool vd_inside(const struct vd_map *m, __u64 off, __u64 size)
{
	return sft_in_bounds(m->vdso.end - m->vdso.start, off, size);
}

/*
 * Read the vDSO's ELF image where it is mapped: its PT_GNU_SFRAME and the
 * two functions' dynamic symbols.  False, after saying why, if anything is
 * missing or out of place.
 */
static bool vd_parse(struct vd_map *m)
{
	const char *base = (const char *)m->vdso.start;
	const struct elf64_hdr *eh = (const void *)base;
	const struct elf64_phdr *ph;
	const struct elf64_shdr *sh, *dynsym = NULL, *dynstr;
	unsigned int i, k, found = 0;

	if (!vd_inside(m, 0, sizeof(*eh)) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    !vd_inside(m, eh->e_phoff, (__u64)eh->e_phnum * sizeof(*ph)) ||
	    eh->e_shentsize != sizeof(*sh) ||
	    !vd_inside(m, eh->e_shoff, (__u64)eh->e_shnum * sizeof(*sh))) {
		ksft_print_msg("the vDSO at %#lx is not a whole ELF64 image\n",
			       m->vdso.start);
		return false;
	}
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_GNU_SFRAME)
			continue;
		if (!vd_inside(m, ph[i].p_vaddr, ph[i].p_memsz) ||
		    ph[i].p_memsz < SFT_SFRAME_HDR_SIZE) {
			ksft_print_msg("the vDSO's PT_GNU_SFRAME %#llx+%#llx is out of place\n",
				       (unsigned long long)ph[i].p_vaddr,
				       (unsigned long long)ph[i].p_memsz);
			return false;
		}
		m->sframe.start = m->vdso.start + ph[i].p_vaddr;
		m->sframe.end = m->sframe.start + ph[i].p_memsz;
	}
	if (!m->sframe.start) {
		ksft_print_msg("the vDSO has no PT_GNU_SFRAME: built without --gsframe?\n");
		return false;
	}

	sh = (const void *)(base + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
	if (!dynsym || dynsym->sh_link >= eh->e_shnum ||
	    dynsym->sh_entsize != sizeof(struct elf64_sym) ||
	    !vd_inside(m, dynsym->sh_offset, dynsym->sh_size)) {
		ksft_print_msg("the vDSO has no usable .dynsym\n");
		return false;
	}
	dynstr = &sh[dynsym->sh_link];
	if (!vd_inside(m, dynstr->sh_offset, dynstr->sh_size) ||
	    !dynstr->sh_size || base[dynstr->sh_offset + dynstr->sh_size - 1]) {
		ksft_print_msg("the vDSO has no usable .dynstr\n");
		return false;
	}
	for (i = 0; i < dynsym->sh_size / sizeof(struct elf64_sym); i++) {
		const struct elf64_sym *s = (const struct elf64_sym *)
			(base + dynsym->sh_offset) + i;
		const char *name = base + dynstr->sh_offset + s->st_name;

		if (s->st_name >= dynstr->sh_size || !s->st_size ||
		    !vd_inside(m, s->st_value, s->st_size))
			continue;
		for (k = 0; k < ARRAY_SIZE(vd_kind_names); k++) {
			if (strcmp(name, vd_kind_names[k]) || m->fn[k].start)
				continue;
			m->fn[k].start = m->vdso.start + s->st_value;
			m->fn[k].end = m->fn[k].start + s->st_size;
			found++;
		}
	}
	if (found != ARRAY_SIZE(vd_kind_names)) {
		ksft_print_msg("the vDSO does not export %s and %s\n",
			       vd_kind_names[0], vd_kind_names[1]);
		return false;
	}
	return true;
}

static bool vd_load(struct vd_map *m)
{
	if (!vd_find(m)) {
		ksft_print_msg("no [vdso] in /proc/self/maps\n");
		return false;
	}
	return vd_parse(m);
}

static bool in_range(const struct vd_range *r, __u64 addr)
{
	return addr >= r->start && addr < r->end;
}

#ifdef __aarch64__
/*
 * A return address inside the vDSO: it follows a BL to a place in the
 * vDSO, or a BLR.
 */
static bool vd_is_return(const struct vd_map *m, __u64 ra)
{
	__u32 insn;
	__s64 rel;

	if (ra < m->vdso.start + 4 || ra >= m->vdso.end || ra & 3)
		return false;
	memcpy(&insn, (const void *)(unsigned long)(ra - 4), sizeof(insn));
	if ((insn & 0xfffffc1f) == 0xd63f0000)		/* BLR Xn */
		return true;
	if ((insn & 0xfc000000) != 0x94000000)		/* BL imm26 */
		return false;
	rel = (__s64)((__u64)(insn & 0x03ffffff) << 38) >> 36;
	return in_range(&m->vdso, ra - 4 + rel);
}
#else
/*
 * A return address inside the vDSO: it follows a direct call (e8 rel32)
 * to a place in the vDSO.
 */
static bool vd_is_return(const struct vd_map *m, __u64 ra)
{
	const unsigned char *p = (const unsigned char *)(unsigned long)ra - 5;
	int rel;

	if (ra < m->vdso.start + 5 || ra >= m->vdso.end || p[0] != 0xe8)
		return false;
	memcpy(&rel, p + 1, sizeof(rel));
	return in_range(&m->vdso, ra + rel);
}
#endif

/* Print a stack, one frame a line */
static void vd_show(const struct vd_map *m, const struct sft_sample *s)
{
	char buf[128];
	unsigned int i;

	for (i = 0; i < s->nr && i < 12; i++) {
		if (in_range(&m->vdso, s->ips[i]))
			snprintf(buf, sizeof(buf), "[vdso]+%#llx",
				 (unsigned long long)(s->ips[i] - m->vdso.start));
		else
			sft_describe(&syms, buf, sizeof(buf), i, s->ips[i]);
		ksft_print_msg("    #%-2u %#llx %s\n", i,
			       (unsigned long long)s->ips[i], buf);
	}
	if (s->nr > 12)
		ksft_print_msg("    ... %u frames in all\n", s->nr);
}

/*
 * Is the stack of a sample taken in the vDSO the chain?  Frames past
 * vd_loop's return address are not looked at.
 */
static bool vd_stack_right(const struct vd_map *m, const struct sft_sample *s)
{
	const struct sft_sym *sym;
	unsigned int i = 1, k;

	while (i < s->nr && in_range(&m->vdso, s->ips[i])) {
		if (!vd_is_return(m, s->ips[i]))
			return false;
		i++;
	}
	if (i + 5 > s->nr)
		return false;
	sym = sft_symtab_lookup(&syms, s->ips[i] - 1);
	if (!sym || strcmp(sym->name, "vd_inner"))
		return false;
	for (k = 0; k < 4; k++)
		if (s->ips[i + 1 + k] != vd_ra[k])
			return false;
	return true;
}

struct vd_tally {
	unsigned int rounds, samples, in_fn, in_vdso, right, wrong;
	unsigned int unmerged, sync, most;
	struct sft_ring_stats ring;	/* summed over the rounds */
};

/*
 * Sample the chain calling the vDSO function @kind of @m until VD_WANT
 * samples were in it, or the rounds or the time ran out.  Each round runs
 * the chain a number of times, adjusted so that a round has about
 * VD_ROUND_SAMPLES samples, and collects them.  Return: 0, or a negative
 * errno after saying why.
 */
static int vd_sample(const struct vd_map *m, int kind, struct vd_tally *t)
{
	static struct sft_sample samples[SFT_MAX_DEFERRED];
	unsigned long n = 256, fn = m->fn[kind].start;
	double deadline = vd_now() + VD_BUDGET_S;
	struct sft_ring_stats st;
	struct sft_perf p;
	int ret, i, got;

	memset(t, 0, sizeof(*t));
	ret = sft_perf_open_task_clock(&p, 0, VD_PERIOD_NS);
	if (ret)
		return ret;
	while (t->in_fn < VD_WANT && t->rounds < VD_MAX_ROUNDS &&
	       vd_now() < deadline) {
		ret = sft_perf_enable(&p);
		if (ret)
			break;
		vd_loop(kind, fn, n);
		ret = sft_perf_disable(&p);
		if (ret)
			break;
		got = sft_perf_collect(&p, samples, ARRAY_SIZE(samples), &st);
		if (got < 0) {
			ret = got;
			break;
		}
		t->rounds++;
		t->samples += got;
		t->most = st.samples > t->most ? st.samples : t->most;
		t->ring.deferred += st.deferred;
		t->ring.unmatched += st.unmatched;
		t->ring.duplicates += st.duplicates;
		t->ring.lost += st.lost;
		for (i = 0; i < got; i++) {
			const struct sft_sample *s = &samples[i];

			if (s->sync_user) {
				t->sync++;
				continue;
			}
			if (!s->merged || !s->nr) {
				t->unmerged++;
				continue;
			}
			if (!in_range(&m->vdso, s->ips[0]))
				continue;
			t->in_vdso++;
			if (!in_range(&m->fn[kind], s->ips[0]))
				continue;
			t->in_fn++;
			if (vd_stack_right(m, s)) {
				t->right++;
				continue;
			}
			if (t->wrong++ < VD_SHOW) {
				ksft_print_msg("  a wrong stack in %s:\n",
					       vd_kind_names[kind]);
				vd_show(m, s);
			}
		}
		/*
		 * Next round: about VD_ROUND_SAMPLES samples, growing slowly,
		 * as a guest may get samples in bursts.
		 */
		if (got > 2 * VD_ROUND_SAMPLES)
			n = n * VD_ROUND_SAMPLES / got + 1;
		else if (got < VD_ROUND_SAMPLES / 2 && n < 1UL << 22)
			n *= 2;
	}
	sft_perf_close(&p);
	ksft_print_msg("%s: %u rounds, %u samples, %u in the vDSO, %u in it: %u right, %u wrong\n",
		       vd_kind_names[kind], t->rounds, t->samples, t->in_vdso,
		       t->in_fn, t->right, t->wrong);
	if (t->unmerged || t->sync)
		ksft_print_msg("  %u samples without a deferred stack, %u with a synchronous one\n",
			       t->unmerged, t->sync);
	if (t->ring.unmatched || t->ring.duplicates || t->ring.lost)
		ksft_print_msg("  %u deferred records: %u unmatched, %u duplicates, %u lost\n",
			       t->ring.deferred, t->ring.unmatched,
			       t->ring.duplicates, t->ring.lost);
	if (t->most > SFT_MAX_DEFERRED)
		ksft_print_msg("  up to %u samples a round, of which %u were looked at\n",
			       t->most, SFT_MAX_DEFERRED);
	return ret;
}

/* Every sample in the function had the chain, and there were enough. */
static bool vd_stacks_right(const struct vd_map *m, int kind)
{
	struct vd_tally t;

	if (vd_sample(m, kind, &t))
		return false;
	if (t.in_fn < VD_MIN) {
		ksft_print_msg("only %u samples in %s, %u wanted\n", t.in_fn,
			       vd_kind_names[kind], VD_MIN);
		return false;
	}
	return !t.wrong && !t.unmerged && !t.sync && t.right == t.in_fn;
}

/*
 * The registration of the vDSO of @m: exactly one line of
 * /proc/self/sframe for its text, registered by the kernel ("exec"),
 * in use, for the whole mapping and its PT_GNU_SFRAME, named [vdso].
 */
static bool vd_registered(const struct vd_map *m)
{
	char line[512], source[16], state[16], name[64];
	unsigned long ts, te, ss, se;
	unsigned int version, lines = 0;
	bool ok = false;
	FILE *f;

	f = fopen("/proc/self/sframe", "re");
	if (!f) {
		ksft_perror("/proc/self/sframe");
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %lx-%lx v%u %15s %15s %63s", &ts, &te,
			   &ss, &se, &version, source, state, name) < 7)
			continue;
		if (ts >= m->vdso.end || te <= m->vdso.start)
			continue;
		lines++;
		ok = ts == m->vdso.start && te == m->vdso.end &&
		     ss == m->sframe.start && se == m->sframe.end &&
		     version >= 2 && !strcmp(source, "exec") &&
		     !strcmp(state, "ok") && !strcmp(name, "[vdso]");
		if (!ok)
			ksft_print_msg("the vDSO's registration: %s", line);
	}
	fclose(f);
	if (lines != 1) {
		ksft_print_msg("%u registrations of the vDSO's text %#lx-%#lx, not 1\n",
			       lines, m->vdso.start, m->vdso.end);
		sft_regs_dump();
		return false;
	}
	return ok;
}

/* No registration of any part of @r */
static bool vd_unregistered(const struct vd_range *r)
{
	struct sft_reg regs[64];
	int n, i;
	bool ok = true;

	n = sft_regs_read(regs, ARRAY_SIZE(regs));
	if (n < 0)
		return false;
	for (i = 0; i < n && i < (int)ARRAY_SIZE(regs); i++) {
		if (regs[i].text_start < r->end && regs[i].text_end > r->start) {
			ksft_print_msg("a registration of %#lx-%#lx is left\n",
				       regs[i].text_start, regs[i].text_end);
			ok = false;
		}
	}
	return ok;
}

/* The vDSO's section: V2 or later, FDEs covering both functions. */
static bool vd_section_ok(const struct vd_map *m)
{
	struct sft_elf e = { 0 };
	const struct elf64_hdr *eh = (const void *)m->vdso.start;
	struct sft_sframe s;
	struct sft_fde fde;
	unsigned int k;
	bool ok = true;

	/* sft_sframe_parse() reads a file image: the vDSO is one. */
	e.len = m->vdso.end - m->vdso.start;
	e.image = malloc(e.len);
	if (!e.image)
		return false;
	memcpy(e.image, (void *)m->vdso.start, e.len);
	e.phdr = (struct elf64_phdr *)(e.image + eh->e_phoff);
	e.phnum = eh->e_phnum;
	if (sft_sframe_parse(&e, &s)) {
		ksft_print_msg("the vDSO's SFrame section does not parse\n");
		free(e.image);
		return false;
	}
	ksft_print_msg("the vDSO's .sframe: V%u, flags %#x, %u FDEs, %u FREs, %llu bytes\n",
		       s.version, s.flags, s.num_fdes, s.num_fres,
		       (unsigned long long)s.size);
	for (k = 0; k < ARRAY_SIZE(vd_kind_names); k++) {
		unsigned long off = m->fn[k].start - m->vdso.start;

		if (sft_sframe_find(&s, off, &fde) ||
		    fde.start > off ||
		    fde.start + fde.size < m->fn[k].end - m->vdso.start) {
			ksft_print_msg("no FDE covers %s\n", vd_kind_names[k]);
			ok = false;
		}
	}
	free(e.image);
	return ok && s.version >= 2 && s.num_fdes;
}

/* Run @fn in a child; its result is the test's. */
static bool vd_in_child(bool (*fn)(void), const char *what)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ksft_perror("fork");
		return false;
	}
	if (!pid) {
		bool ok = fn();

		fflush(stdout);
		_exit(ok ? 0 : 1);
	}
	return sft_wait(pid, 3 * VD_BUDGET_S + 30, what) == 0;
}

/* Child: the registration and the stacks, inherited at fork */
static bool child_fork(void)
{
	struct vd_map m;

	return vd_load(&m) && m.vdso.start == vdso.vdso.start &&
	       vd_registered(&m) && vd_stacks_right(&m, VD_LEAF);
}

/* Child: without the vDSO's registration, the leaf's stacks go wrong */
static bool child_unregistered(void)
{
	struct vd_map m;
	struct vd_tally t;
	bool wrong;
	int ret;

	if (!vd_load(&m))
		return false;
	ret = sft_codectl_unregister(m.vdso.start);
	if (ret) {
		ksft_print_msg("unregistering the vDSO's section: %s\n",
			       strerror(-ret));
		return false;
	}
	if (!vd_unregistered(&m.vdso) || vd_sample(&m, VD_LEAF, &t))
		return false;
	if (t.in_fn < VD_MIN) {
		ksft_print_msg("only %u samples in %s\n", t.in_fn,
			       vd_kind_names[VD_LEAF]);
		return false;
	}
	ksft_print_msg("without the vDSO's SFrame section: %u of %u %s stacks right\n",
		       t.right, t.in_fn, vd_kind_names[VD_LEAF]);
	wrong = t.right < t.in_fn;
	if (vd_sample(&m, VD_CLOCK_GETTIME, &t))
		return false;
	ksft_print_msg("without the vDSO's SFrame section: %u of %u clock_gettime stacks right\n",
		       t.right, t.in_fn);
	if (!wrong)
		ksft_print_msg("every %s stack right without SFrame: the test cannot tell\n",
			       vd_kind_names[VD_LEAF]);
	return wrong;
}

/*
 * Move the vDSO and its data pages to a new place, keeping their layout:
 * the vDSO's code finds its data at a fixed distance.
 */
static bool vd_move(const struct vd_map *m, unsigned long *delta)
{
	const struct vd_range *r[] = { &m->vvar, &m->vclock, &m->vdso };
	unsigned long lo = ~0UL, hi = 0;
	unsigned int i;
	char *to;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		if (!r[i]->start)
			continue;
		lo = r[i]->start < lo ? r[i]->start : lo;
		hi = r[i]->end > hi ? r[i]->end : hi;
	}
	to = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED) {
		ksft_perror("mmap");
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		unsigned long len = r[i]->end - r[i]->start;

		if (!r[i]->start)
			continue;
		if (mremap((void *)r[i]->start, len, len,
			   MREMAP_MAYMOVE | MREMAP_FIXED,
			   to + (r[i]->start - lo)) == MAP_FAILED) {
			ksft_perror("mremap of the vDSO");
			return false;
		}
	}
	*delta = (unsigned long)to - lo;
	return true;
}

/* Child: mremap() moves the registration with the vDSO */
static bool child_mremap(void)
{
	struct vd_map old, m;
	unsigned long delta;

	if (!vd_load(&old) || !vd_move(&old, &delta) || !vd_load(&m))
		return false;
	ksft_print_msg("moved the vDSO from %#lx to %#lx\n", old.vdso.start,
		       m.vdso.start);
	if (m.vdso.start != old.vdso.start + delta) {
		ksft_print_msg("the vDSO is at %#lx, not %#lx\n", m.vdso.start,
			       old.vdso.start + delta);
		return false;
	}
	return vd_unregistered(&old.vdso) && vd_registered(&m) &&
	       vd_stacks_right(&m, VD_CLOCK_GETTIME) &&
	       vd_stacks_right(&m, VD_LEAF);
}

/* Unmap the vDSO and its data pages */
static bool vd_unmap(const struct vd_map *m)
{
	const struct vd_range *r[] = { &m->vvar, &m->vclock, &m->vdso };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		if (r[i]->start &&
		    munmap((void *)r[i]->start, r[i]->end - r[i]->start)) {
			ksft_perror("munmap of the vDSO");
			return false;
		}
	}
	return true;
}

/* Child: munmap() removes the registration */
static bool child_munmap(void)
{
	struct vd_map m;

	return vd_load(&m) && vd_unmap(&m) && vd_unregistered(&m.vdso);
}

#ifdef __x86_64__
/*
 * Child: a vDSO mapped again by arch_prctl(ARCH_MAP_VDSO_64), as CRIU
 * does, is registered where it lands.
 */
static bool child_arch_prctl(void)
{
	struct vd_map old, m;
	long ret;

	if (!vd_load(&old) || !vd_unmap(&old))
		return false;
	ret = syscall(SYS_arch_prctl, ARCH_MAP_VDSO_64, 0UL);
	if (ret < 0) {
		ksft_perror("arch_prctl(ARCH_MAP_VDSO_64)");
		return false;
	}
	if (!vd_load(&m))
		return false;
	ksft_print_msg("arch_prctl(ARCH_MAP_VDSO_64) mapped the vDSO at %#lx\n",
		       m.vdso.start);
	return vd_registered(&m) && vd_stacks_right(&m, VD_CLOCK_GETTIME) &&
	       vd_stacks_right(&m, VD_LEAF);
}

/*
 * The race of arch_prctl(ARCH_MAP_VDSO_64) with another thread's mmap():
 * the kernel maps the vDSO, drops mmap_lock to read its section's header,
 * then registers the section.  A second thread maps a copy of the vDSO's
 * text over it, MAP_FIXED, just as arch_prctl() maps it: whatever the
 * order, no registration may be left for what is not the vDSO.  Until
 * the registration checked, under the lock, that the vDSO still maps the
 * text, the copy was registered as the vDSO's when it came in between
 * (in 138 rounds of 254 on the debug kernel under TCG).  Up to
 * VD_RACE_ROUNDS rounds in VD_RACE_SECONDS, VD_RACE_MIN at least.
 */
#define VD_RACE_ROUNDS		300
#define VD_RACE_SECONDS		20
#define VD_RACE_MIN		20
/* Where the race maps the vDSO: far below mmap()'s area, above the heap */
#define VD_RACE_HINT		0x300000000000UL

static struct {
	void *text;		/* where arch_prctl() maps the vDSO's text */
	size_t len;
	int fd;			/* a copy of the vDSO's text */
	int go, done, stop;
	unsigned int round, strays;
} vd_race;

static void *vd_race_thread(void *arg)
{
	unsigned int spin;

	(void)arg;
	for (;;) {
		while (!__atomic_load_n(&vd_race.go, __ATOMIC_ACQUIRE))
			;
		__atomic_store_n(&vd_race.go, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(&vd_race.stop, __ATOMIC_ACQUIRE))
			return NULL;
		/* Now and then a little later, to meet the window */
		for (spin = 0; spin < (vd_race.round % 16) * 64; spin++)
			asm volatile("" : : : "memory");
		mmap(vd_race.text, vd_race.len, PROT_READ | PROT_EXEC,
		     MAP_PRIVATE | MAP_FIXED, vd_race.fd, 0);
		__atomic_store_n(&vd_race.done, 1, __ATOMIC_RELEASE);
	}
}

/* Registrations of the race's text range that are not the vDSO's */
static unsigned int vd_race_stray(void)
{
	unsigned long t = (unsigned long)vd_race.text;
	unsigned int i, stray = 0;
	struct sft_reg regs[64];
	struct vd_map m;
	int n;

	vd_find(&m);
	n = sft_regs_read(regs, ARRAY_SIZE(regs));
	for (i = 0; n > 0 && i < (unsigned int)n && i < ARRAY_SIZE(regs); i++) {
		if (regs[i].text_start >= t + vd_race.len ||
		    regs[i].text_end <= t)
			continue;
		if (regs[i].text_start == m.vdso.start &&
		    regs[i].text_end == m.vdso.end)
			continue;
		if (!vd_race.strays++) {
			ksft_print_msg("round %u: %#lx-%#lx registered, the vDSO at %#lx\n",
				       vd_race.round, regs[i].text_start,
				       regs[i].text_end, m.vdso.start);
			sft_regs_dump();
		}
		stray++;
	}
	return stray;
}

static bool child_arch_prctl_race(void)
{
	unsigned int stray = 0, landed = 0, moved = 0;
	unsigned long lo, hi, off;
	struct vd_map old, m;
	pthread_t thread;
	double t0;
	char *hint;
	long ret;

	if (!vd_load(&old))
		return false;
	lo = old.vvar.start && old.vvar.start < old.vdso.start ?
	     old.vvar.start : old.vdso.start;
	if (old.vclock.start && old.vclock.start < lo)
		lo = old.vclock.start;
	hi = old.vdso.end > old.vvar.end ? old.vdso.end : old.vvar.end;
	hi = old.vclock.end > hi ? old.vclock.end : hi;
	off = old.vdso.start - lo;
	vd_race.len = old.vdso.end - old.vdso.start;
	vd_race.fd = memfd_create("vdso-copy", MFD_CLOEXEC);
	if (vd_race.fd < 0 ||
	    write(vd_race.fd, (void *)old.vdso.start, vd_race.len) !=
	    (ssize_t)vd_race.len) {
		ksft_perror("memfd of the vDSO's copy");
		return false;
	}
	/*
	 * A free place for the vDSO and its data pages, far from where
	 * mmap() puts what the C library and the thread map meanwhile: the
	 * loop unmaps it, whatever is there.
	 */
	if (pthread_create(&thread, NULL, vd_race_thread, NULL)) {
		ksft_print_msg("pthread_create failed\n");
		return false;
	}
	hint = mmap((void *)VD_RACE_HINT, 2 * (hi - lo), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (hint != (void *)VD_RACE_HINT || munmap(hint, 2 * (hi - lo)) ||
	    !vd_unmap(&old)) {
		ksft_perror("mmap of the hint");
		return false;
	}
	vd_race.text = hint + off;
	t0 = vd_now();
	for (vd_race.round = 0; vd_race.round < VD_RACE_ROUNDS &&
	     vd_now() - t0 < VD_RACE_SECONDS; vd_race.round++) {
		/* Nothing of the last round left: no vDSO, no copy */
		if (vd_find(&m) && !vd_unmap(&m))
			break;
		munmap(hint, 2 * (hi - lo));
		__atomic_store_n(&vd_race.go, 1, __ATOMIC_RELEASE);
		ret = syscall(SYS_arch_prctl, ARCH_MAP_VDSO_64,
			      (unsigned long)hint);
		while (!__atomic_load_n(&vd_race.done, __ATOMIC_ACQUIRE))
			;
		__atomic_store_n(&vd_race.done, 0, __ATOMIC_RELAXED);
		if (ret < 0) {
			ksft_perror("arch_prctl(ARCH_MAP_VDSO_64)");
			break;
		}
		/* Where did the vDSO go: at the hint, or elsewhere */
		if (vd_find(&m) && m.vdso.start == (unsigned long)vd_race.text)
			landed++;
		else if (m.vdso.start)
			moved++;
		stray += vd_race_stray();
	}
	__atomic_store_n(&vd_race.stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&vd_race.go, 1, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	ksft_print_msg("%u rounds: the vDSO at the hint %u times, elsewhere %u\n",
		       vd_race.round, landed, moved);
	ksft_print_msg("replaced %u times; %u stray registrations\n",
		       vd_race.round - landed - moved, stray);
	return vd_race.round >= VD_RACE_MIN && !stray;
}
#endif

int main(void)
{
	ksft_print_header();
	ksft_set_plan(VD_TESTS);

	if (sft_symtab_load_self(&syms))
		ksft_exit_fail_msg("cannot read this program's symbols\n");
	if (!vd_load(&vdso))
		ksft_exit_fail_msg("cannot find the vDSO's SFrame section and functions\n");
	ksft_print_msg("vDSO %#lx-%#lx, .sframe %#lx-%#lx\n", vdso.vdso.start,
		       vdso.vdso.end, vdso.sframe.start, vdso.sframe.end);

	ksft_test_result(vd_registered(&vdso), "vdso_registered\n");
	ksft_test_result(vd_section_ok(&vdso), "vdso_section\n");
	ksft_test_result(vd_stacks_right(&vdso, VD_CLOCK_GETTIME),
			 "vdso_clock_gettime_stacks\n");
	ksft_test_result(vd_stacks_right(&vdso, VD_LEAF),
			 "vdso_leaf_stacks\n");
	ksft_test_result(vd_in_child(child_unregistered, "unregistered"),
			 "vdso_unregistered_stacks_wrong\n");
	ksft_test_result(vd_in_child(child_fork, "fork"), "vdso_fork\n");
	ksft_test_result(vd_in_child(child_mremap, "mremap"), "vdso_mremap\n");
	ksft_test_result(vd_in_child(child_munmap, "munmap"), "vdso_munmap\n");
#ifdef __x86_64__
	ksft_test_result(vd_in_child(child_arch_prctl, "arch_prctl"),
			 "vdso_arch_prctl\n");
	ksft_test_result(vd_in_child(child_arch_prctl_race, "arch_prctl race"),
			 "vdso_arch_prctl_race\n");
#endif
	sft_symtab_free(&syms);
	ksft_finished();
}
