// SPDX-License-Identifier: GPL-2.0
/*
 * The program codectl_sidecar runs for a stack taken inside ld.so's
 * lazy-binding trampoline on x86-64 (_dl_runtime_resolve_xsave and its
 * siblings), which realigns the stack and keeps the CFA in rbx around its
 * call of _dl_fixup(): a frame only a flexible FDE (SFrame V3) describes.
 * ld.so has no SFrame section; its sidecar comes from sframe-gen, through
 * the audit module.  Linked with -z lazy, built with SFrame, its functions
 * exported for dladdr():
 *
 *	main -> lz_outer -> lz_inner -> getpgrp@plt -> PLT0
 *	     -> _dl_runtime_resolve_* (GOT[2]), at its first address whose
 *		CFA is in rbx
 *
 * It finds that address in ld.so's own CFI with libdw (codectl_sidecar_lazy_cfi.c,
 * apart: libdw's <elf.h> and the kernel's <linux/elf.h> do not mix), samples it with a
 * hardware breakpoint whose user callchain is deferred, and checks the
 * stack the kernel took, frame by frame: that address, lz_inner, lz_outer,
 * main, the C library's start (one or two frames), _start, where it ends.
 * Prints the stack ("stack N IP...") and "lazy: ..." lines saying what is
 * wrong; exits 0 when the stack is right, 1 when it is not, 2 when it
 * could not take one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "codectl_sidecar.h"
#include "codectl_sidecar_lazy.h"

/* GOT[2]: where PLT0 jumps to bind a symbol, set by ld.so at start */
static unsigned long lazy_resolver(void)
{
	unsigned long *got;

	asm("lea _GLOBAL_OFFSET_TABLE_(%%rip), %0" : "=r" (got));
	return got[2];
}

/* noipa, and work after each call: no call becomes a jump. */
__attribute__((noipa)) int lz_inner(int v)
{
	return getpgrp() > 0 ? v + 1 : -1;
}

__attribute__((noipa)) int lz_outer(int v)
{
	return lz_inner(v) * 2;
}

/* Is @ip, a return address, in the function @name of this program? */
static bool returns_to(__u64 ip, const char *name)
{
	Dl_info info;

	return dladdr((void *)(unsigned long)(ip - 1), &info) &&
	       info.dli_sname && !strcmp(info.dli_sname, name);
}

static bool in_libc(__u64 ip)
{
	const char *slash;
	Dl_info info;

	if (!dladdr((void *)(unsigned long)(ip - 1), &info) ||
	    !info.dli_fname)
		return false;
	slash = strrchr(info.dli_fname, '/');
	return !strcmp(slash ? slash + 1 : info.dli_fname, "libc.so.6");
}

/* The stack the chain really has, from the top: see the comment above */
static bool stack_is_chain(const struct sft_sample *s, unsigned long at)
{
	static const char * const funcs[] = { "lz_inner", "lz_outer", "main" };
	unsigned int i, n = s->nr;
	bool ok = true;

	if (n < 6 || n > 7) {
		printf("lazy: %u frames, the chain has 6 or 7\n", n);
		return false;
	}
	if (s->ips[0] != at) {
		printf("lazy: frame 0 is %llx, not the trampoline's %lx\n",
		       (unsigned long long)s->ips[0], at);
		ok = false;
	}
	for (i = 0; i < 3; i++) {
		if (returns_to(s->ips[i + 1], funcs[i]))
			continue;
		printf("lazy: frame %u is %llx, not in %s\n", i + 1,
		       (unsigned long long)s->ips[i + 1], funcs[i]);
		ok = false;
	}
	for (i = 4; i < n - 1; i++) {
		if (in_libc(s->ips[i]))
			continue;
		printf("lazy: frame %u is %llx, not in the C library's start\n",
		       i, (unsigned long long)s->ips[i]);
		ok = false;
	}
	if (!returns_to(s->ips[n - 1], "_start")) {
		printf("lazy: the last frame is %llx, not in _start\n",
		       (unsigned long long)s->ips[n - 1]);
		ok = false;
	}
	return ok;
}

int main(void)
{
	static struct sft_sample samples[SFT_RUN_MAX_SAMPLES];
	unsigned long resolver, base, at;
	struct sft_ring_stats stats;
	Dl_info ldso;
	struct sft_perf ev;
	unsigned int i;
	int n, r;

	resolver = lazy_resolver();
	if (!resolver || !dladdr((void *)resolver, &ldso) || !ldso.dli_fname) {
		printf("lazy: GOT[2] is %#lx, in no object: the program is bound at start\n",
		       resolver);
		return 2;
	}
	base = (unsigned long)ldso.dli_fbase;
	at = lz_rbx_cfa_addr(ldso.dli_fname, base, resolver);
	if (!at) {
		printf("lazy: the resolver at %s+%#lx has no CFA in rbx\n",
		       ldso.dli_fname, resolver - base);
		return 2;
	}
	if (sft_perf_open_breakpoint(&ev, 0, at) || sft_perf_enable(&ev))
		return 2;
	r = lz_outer(20);
	sft_perf_disable(&ev);
	n = sft_perf_collect(&ev, samples, SFT_RUN_MAX_SAMPLES, &stats);
	if (r != 42 || n != 1 || stats.lost || !samples[0].deferred ||
	    !samples[0].merged) {
		printf("lazy: the chain returned %d; %d samples, %u deferred stacks, %u lost",
		       r, n, stats.deferred, stats.lost);
		printf(": want 42; 1, 1, 0\n");
		return 2;
	}
	printf("lazy: the resolver %s+%#lx, sampled at +%#lx\n",
	       ldso.dli_fname, resolver - base, at - base);
	printf("%s %u", SC_STACK, samples[0].nr);
	for (i = 0; i < samples[0].nr; i++)
		printf(" %llx", (unsigned long long)samples[0].ips[i]);
	printf("\n");
	return stack_is_chain(&samples[0], at) ? 0 : 1;
}
