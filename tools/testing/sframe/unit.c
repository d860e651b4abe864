// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the SFrame decoder on hand-made sections (written by sfw.c)
 * and on sections that GNU as and ld made (real/real_sections.h), against
 * expectations written by hand from the format and from objdump --sframe.
 *
 * unit [--seeds DIR]: with --seeds, also write each valid section as a fuzz
 * seed into DIR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sfw.h"
#include "real/real_sections.h"

static uint8_t buf[1 << 22];
static const char *seed_dir;
static unsigned int nr_seeds, nr_sidecar_seeds;

/* A valid section: set it up, check that it was accepted, seed it. */
static bool setup_ok(struct sframe_section *sec, const void *b, size_t len,
		     unsigned long addr, unsigned long ts, unsigned long te,
		     const char *what)
{
	int ret = setup(sec, b, len, addr, ts, te);
	char name[64];

	CHECK(ret == 0, "%s: setup: %s (%s)", what, err_str(ret),
	      test_last_reject() ?: "-");
	if (ret)
		return false;
	/* Small seeds: the fuzzer grows them */
	if (seed_dir && len <= 4096) {
		snprintf(name, sizeof(name), "unit-%02u", nr_seeds++);
		write_seed(seed_dir, name, b, len, addr, ts, te, ts, true, 0);
	}
	return true;
}

static void expect_ok(const struct sframe_section *sec, unsigned long ip,
		      bool topmost, struct sframe_rule rule, const char *what)
{
	expect(sec, ip, topmost, 0, &rule, NULL, what);
}

static void expect_both(const struct sframe_section *sec, unsigned long ip,
			struct sframe_rule rule, const char *what)
{
	expect(sec, ip, true, 0, &rule, NULL, what);
	expect(sec, ip, false, 0, &rule, NULL, what);
}

static void expect_err(const struct sframe_section *sec, unsigned long ip,
		       bool topmost, int err, const char *why,
		       const char *what)
{
	expect(sec, ip, topmost, err, NULL, why, what);
}

#define NOTOP	"register rule in a non-topmost frame"
#define FDE_ORDER "FDEs out of order or overlapping"
#define FRE_PAST "FRE start past the function"

/* sframe-format.md section 1.9: the bytes libsframe's encoder made */
static const uint8_t v3_example[56] = {
	0xe2, 0xde, 0x03, 0x05, 0x03, 0x00, 0xf8, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x03, 0x08,
	0x01, 0x05, 0x10, 0xf0,
};

static void test_v3_example(void)
{
	const unsigned long a = 0x7f0000010000UL, fn = a + 0x1c + 0x1000;
	struct sframe_rule entry = x86_rule(false, 8, false, 0);
	struct sframe_rule body = x86_rule(false, 16, true, -16);
	struct sfw_fre fres[2];
	struct sframe_section sec;
	struct sfw_fde fde;
	struct sfw_sec s;
	size_t len;

	/* Our writer makes the same bytes as libsframe's encoder. */
	sfw_sec_init(&s, 3, SFW_ABI_AMD64_LE, a, &fde, 1);
	sfw_fde_init(&fde, fn, 0x40, fres, 2);
	fres[0] = sfw_fre(0, false, 1, 8);
	fres[1] = sfw_fre(1, false, 2, 16, -16);
	len = sfw_write(&s, buf, sizeof(buf));
	CHECK(len == sizeof(v3_example) && !memcmp(buf, v3_example, len),
	      "v3 example: writer output differs (%zu bytes)", len);

	if (!setup_ok(&sec, v3_example, sizeof(v3_example), a, a + 0x1000,
		      a + 0x2000, "v3 example"))
		return;
	CHECK(sec.version == 3 && sec.num_fdes == 1 &&
	      sec.fdes_start == a + 28 && sec.fres_start == a + 44 &&
	      sec.fres_end == a + 56 && sec.fixed_ra_offset == -8 &&
	      sec.abi_arch == 3, "v3 example: section fields");
	expect_both(&sec, fn, entry, "v3 example");
	expect_both(&sec, fn + 1, body, "v3 example");
	expect_both(&sec, fn + 0x3f, body, "v3 example");
	expect_err(&sec, fn + 0x40, true, -ENOENT, NULL, "v3 example end");
	expect_err(&sec, fn - 1, true, -ENOENT, NULL, "v3 example before");
	expect_err(&sec, a + 0x1000, false, -ENOENT, NULL, "v3 text start");
	expect_err(&sec, a + 0x2000, true, -ENOENT, NULL, "v3 past text");
	expect_err(&sec, a, true, -ENOENT, NULL, "v3 below text");
	CHECK(lookup_rejects == 0, "v3 example: %lu rejects", lookup_rejects);
}

/*
 * Four functions with gaps, FREs of every start size and data word size,
 * SP and FP based CFAs; V2 and V3, with and without PCREL.
 */
static void test_layouts(void)
{
	const unsigned long a = 0x500000UL, t = 0x400000UL;
	struct sfw_fre f0[3], f1[1], f2[3], f3[4];
	struct sfw_fde fdes[4];
	struct sframe_section sec;
	unsigned int v, pcrel, i;
	struct sfw_sec s;
	char what[64];
	size_t len;

	f0[0] = sfw_fre(0, false, 1, 8);
	f0[1] = sfw_fre(4, false, 2, 16, -16);
	f0[2] = sfw_fre(8, true, 2, 16, -16);
	f1[0] = sfw_fre(0, false, 1, 8);
	f2[0] = sfw_fre(0, false, 1, 8);
	f2[1] = sfw_fre(0x10, false, 1, 0x1238);	/* 2-byte word */
	f2[2] = sfw_fre(0xff, true, 2, 0x12345678, -0x7ffffff0); /* 4-byte */
	f3[0] = sfw_fre(0, false, 1, 8);
	f3[1] = sfw_fre(0x100, false, 2, 24, -24);
	f3[2] = sfw_fre(0x10000, false, 2, -300, 300);
	f3[3] = sfw_fre(0x1ffff, true, 1, 16);

	for (v = 2; v <= 3; v++) {
		for (pcrel = 0; pcrel < 2; pcrel++) {
			snprintf(what, sizeof(what), "layout v%u%s", v,
				 pcrel ? " pcrel" : "");
			sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, fdes, 4);
			s.flags = SFW_F_SORTED | (pcrel ? SFW_F_PCREL : 0);
			sfw_fde_init(&fdes[0], t + 0x1000, 0x10, f0, 3);
			sfw_fde_init(&fdes[1], t + 0x1020, 0x10, f1, 1);
			sfw_fde_init(&fdes[2], t + 0x1100, 0x100, f2, 3);
			sfw_fde_init(&fdes[3], t + 0x2000, 0x20000, f3, 4);
			len = sfw_write(&s, buf, sizeof(buf));
			if (!setup_ok(&sec, buf, len, a, t, t + 0x30000, what))
				continue;

			for (i = 0; i < 4; i++)
				expect_both(&sec, t + 0x1000 + i,
					    x86_rule(false, 8, false, 0), what);
			for (i = 4; i < 8; i++)
				expect_both(&sec, t + 0x1000 + i,
					    x86_rule(false, 16, true, -16),
					    what);
			for (i = 8; i < 16; i++)
				expect_both(&sec, t + 0x1000 + i,
					    x86_rule(true, 16, true, -16),
					    what);
			expect_err(&sec, t + 0x1010, true, -ENOENT, NULL, what);
			expect_err(&sec, t + 0x101f, false, -ENOENT, NULL,
				   what);
			expect_both(&sec, t + 0x1020,
				    x86_rule(false, 8, false, 0), what);
			expect_both(&sec, t + 0x102f,
				    x86_rule(false, 8, false, 0), what);
			expect_err(&sec, t + 0x1030, true, -ENOENT, NULL, what);
			expect_err(&sec, t + 0xfff, true, -ENOENT, NULL, what);
			expect_both(&sec, t + 0x110f,
				    x86_rule(false, 8, false, 0), what);
			expect_both(&sec, t + 0x1110,
				    x86_rule(false, 0x1238, false, 0), what);
			expect_both(&sec, t + 0x11fe,
				    x86_rule(false, 0x1238, false, 0), what);
			expect_both(&sec, t + 0x11ff,
				    x86_rule(true, 0x12345678, true,
					     -0x7ffffff0), what);
			expect_err(&sec, t + 0x1200, true, -ENOENT, NULL, what);
			expect_both(&sec, t + 0x20ff,
				    x86_rule(false, 8, false, 0), what);
			expect_both(&sec, t + 0x2100,
				    x86_rule(false, 24, true, -24), what);
			expect_both(&sec, t + 0x11fff,
				    x86_rule(false, 24, true, -24), what);
			expect_both(&sec, t + 0x12000,
				    x86_rule(false, -300, true, 300), what);
			expect_both(&sec, t + 0x21ffe,
				    x86_rule(false, -300, true, 300), what);
			expect_both(&sec, t + 0x21fff,
				    x86_rule(true, 16, false, 0), what);
			expect_err(&sec, t + 0x22000, true, -ENOENT, NULL,
				   what);
			expect_err(&sec, t + 0x30000, true, -ENOENT, NULL,
				   what);
			CHECK(lookup_rejects == 0, "%s: %lu rejects", what,
			      lookup_rejects);
		}
	}
}

/* 2-byte FRE starts, and an aux header that the decoder must skip */
static void test_addr2_aux(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fre fres[3];
	struct sfw_fde fde;
	struct sfw_sec s;
	size_t len;

	sfw_sec_init(&s, 2, SFW_ABI_AMD64_LE, a, &fde, 1);
	s.auxhdr_len = 13;
	s.gap = 7;
	s.tail = 3;
	sfw_fde_init(&fde, t, 0x2000, fres, 3);
	fres[0] = sfw_fre(0, false, 1, 8);
	fres[1] = sfw_fre(0x1234, false, 2, 32, -16);
	fres[2] = sfw_fre(0x1235, false, 2, 40, -16);
	len = sfw_write(&s, buf, sizeof(buf));
	CHECK(buf[fres[1].off + 1] == 0x12 && (buf[fde.off + 16] & 0xf) == 1,
	      "addr2: FRE type ADDR2");
	if (!setup_ok(&sec, buf, len, a, t, t + 0x2000, "addr2 aux"))
		return;
	expect_both(&sec, t + 0x1233, x86_rule(false, 8, false, 0), "addr2");
	expect_both(&sec, t + 0x1234, x86_rule(false, 32, true, -16),
		    "addr2");
	expect_both(&sec, t + 0x1fff, x86_rule(false, 40, true, -16),
		    "addr2");
}

/* PCMASK: a PLT, FREs match (ip - start) % rep_size */
static void test_pcmask(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fre fres[2];
	struct sfw_fde fde;
	struct sfw_sec s;
	unsigned int v, i;
	size_t len;

	for (v = 2; v <= 3; v++) {
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, &fde, 1);
		sfw_fde_init(&fde, t + 0x20, 0x40, fres, 2);
		fde.pcmask = true;
		fde.rep_size = 16;
		fres[0] = sfw_fre(0, false, 1, 8);
		fres[1] = sfw_fre(11, false, 1, 16);
		len = sfw_write(&s, buf, sizeof(buf));
		if (!setup_ok(&sec, buf, len, a, t, t + 0x100, "pcmask"))
			continue;
		for (i = 0; i < 0x40; i++)
			expect_both(&sec, t + 0x20 + i,
				    x86_rule(false, i % 16 < 11 ? 8 : 16,
					     false, 0), "pcmask");
		expect_err(&sec, t + 0x60, true, -ENOENT, NULL, "pcmask end");

		/* rep_size 0 is refused at the lookup */
		fde.rep_size = 0;
		len = sfw_write(&s, buf, sizeof(buf));
		if (!setup_ok(&sec, buf, len, a, t, t + 0x100, "pcmask 0"))
			continue;
		expect_err(&sec, t + 0x20, true, -EBADMSG,
			   "PCMASK FDE with rep_size 0", "pcmask 0");
	}
}

/* Outermost frames: an FRE without data words (V3, and V2 errata 2) */
static void test_outermost(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fre fres[2];
	struct sfw_fde fde;
	struct sfw_sec s;
	unsigned int v;
	size_t len;

	for (v = 2; v <= 3; v++) {
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, &fde, 1);
		sfw_fde_init(&fde, t, 0x10, fres, 2);
		fres[0] = sfw_fre(0, false, 0);
		fres[1] = sfw_fre(8, false, 1, 16);
		len = sfw_write(&s, buf, sizeof(buf));
		if (!setup_ok(&sec, buf, len, a, t, t + 0x10, "outermost"))
			continue;
		expect_both(&sec, t, outermost_rule(0), "outermost");
		expect_both(&sec, t + 7, outermost_rule(0),
			    "outermost");
		expect_both(&sec, t + 8, x86_rule(false, 16, false, 0),
			    "outermost");
	}
}

/* V3 signal trampolines; the same bit means nothing in V2 */
static void test_signal(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_rule sig = mkrule(LOC_SP(false, 160),
					LOC_CFA(true, 8), LOC_SAME,
					SFRAME_RULE_SIGNAL);
	struct sframe_section sec;
	struct sfw_fre fre;
	struct sfw_fde fde;
	struct sfw_sec s;
	size_t len;

	sfw_sec_init(&s, 3, SFW_ABI_AMD64_LE, a, &fde, 1);
	sfw_fde_init(&fde, t, 0x10, &fre, 1);
	fde.signal = true;
	fde.type = SFW_FDE_FLEX;
	fre = sfw_fre(0, false, 4, SFW_CTRL(X86_RSP, 0, 1), 160,
		      SFW_CTRL(0, 1, 0), 8);
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "signal"))
		expect_both(&sec, t + 3, sig, "signal");

	/* A default FDE with the signal bit */
	fde.type = SFW_FDE_DEFAULT;
	fre = sfw_fre(0, false, 1, 160);
	len = sfw_write(&s, buf, sizeof(buf));
	sig = x86_rule(false, 160, false, 0);
	sig.flags = SFRAME_RULE_SIGNAL;
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "signal default"))
		expect_both(&sec, t + 3, sig, "signal default");

	sfw_sec_init(&s, 2, SFW_ABI_AMD64_LE, a, &fde, 1);
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "signal v2"))
		expect_both(&sec, t + 3, x86_rule(false, 160, false, 0),
			    "signal bit in v2");
}

/* AArch64: RA tracked per FRE, in LR until saved; PAC flags */
static void test_aarch64(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	const uint32_t mangled = SFRAME_RULE_RA_MANGLED;
	const uint32_t keyb = SFRAME_RULE_PAUTH_KEY_B;
	struct sframe_rule in_lr = mkrule(LOC_SP(false, 0),
					  LOC_REG(A64_LR, false, 0),
					  LOC_SAME, 0);
	struct sframe_rule saved = mkrule(LOC_SP(false, 64),
					  LOC_CFA(true, -56),
					  LOC_CFA(true, -64), 0);
	struct sframe_rule fp_based = mkrule(LOC_FP(false, 64),
					     LOC_CFA(true, -56),
					     LOC_CFA(true, -64), 0);
	struct sframe_rule ra_only = mkrule(LOC_SP(false, 16),
					    LOC_CFA(true, -8), LOC_SAME, 0);
	struct sframe_section sec;
	struct sfw_fre fres[5];
	struct sfw_fde fde;
	struct sfw_sec s;
	unsigned int v, b;
	size_t len;

	for (v = 2; v <= 3; v++) {
		for (b = 0; b < 2; b++) {
			const uint32_t key = b ? keyb : 0;

			sfw_sec_init(&s, v, SFW_ABI_AARCH64_LE, a, &fde, 1);
			sfw_fde_init(&fde, t, 0x40, fres, 5);
			fde.key_b = b;
			fres[0] = sfw_fre(0, false, 1, 0);
			fres[1] = sfw_fre(4, false, 1, 0);
			fres[1].mangled = true;
			fres[2] = sfw_fre(8, false, 3, 64, -56, -64);
			fres[2].mangled = true;
			fres[3] = sfw_fre(0x20, true, 3, 64, -56, -64);
			fres[4] = sfw_fre(0x28, false, 2, 16, -8);
			len = sfw_write(&s, buf, sizeof(buf));
			if (!setup_ok(&sec, buf, len, a, t, t + 0x40,
				      "aarch64"))
				continue;
			expect_ok(&sec, t, true, in_lr, "aarch64 in LR");
			expect_err(&sec, t, false, -EOPNOTSUPP, NOTOP,
				   "aarch64 LR non-topmost");
			in_lr.flags = mangled | key;
			expect_ok(&sec, t + 4, true, in_lr, "aarch64 mangled");
			in_lr.flags = 0;
			saved.flags = mangled | key;
			expect_both(&sec, t + 8, saved, "aarch64 saved");
			expect_both(&sec, t + 0x1f, saved, "aarch64 saved");
			expect_both(&sec, t + 0x20, fp_based, "aarch64 fp");
			expect_both(&sec, t + 0x28, ra_only, "aarch64 ra only");
		}
	}

	/* Too many words for AArch64 */
	fres[0] = sfw_fre(0, false, 4, 64, -56, -64, 8);
	fde.nfres = 1;
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x40, "aarch64 4 words"))
		expect_err(&sec, t, true, -EBADMSG, "too many data words",
			   "aarch64 4 words");

	/* The PAC bits mean nothing on x86-64 */
	sfw_sec_init(&s, 3, SFW_ABI_AMD64_LE, a, &fde, 1);
	fde.key_b = true;
	fres[0] = sfw_fre(0, false, 2, 16, -16);
	fres[0].mangled = true;
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x40, "x86 pac bits"))
		expect_both(&sec, t, x86_rule(false, 16, true, -16),
			    "x86 pac bits");
	/* Nor 3 words */
	fres[0] = sfw_fre(0, false, 3, 16, -16, -8);
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x40, "x86 3 words"))
		expect_err(&sec, t, true, -EBADMSG, "too many data words",
			   "x86 3 words");
}

/* A header-wide FP offset: FREs carry only the CFA offset */
static void test_fixed_fp(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fre fres[2];
	struct sfw_fde fde;
	struct sfw_sec s;
	size_t len;

	sfw_sec_init(&s, 2, SFW_ABI_AMD64_LE, a, &fde, 1);
	s.fixed_fp = -16;
	sfw_fde_init(&fde, t, 0x10, fres, 2);
	fres[0] = sfw_fre(0, true, 1, 16);
	fres[1] = sfw_fre(8, true, 2, 16, -16);
	len = sfw_write(&s, buf, sizeof(buf));
	if (!setup_ok(&sec, buf, len, a, t, t + 0x10, "fixed fp"))
		return;
	expect_both(&sec, t, x86_rule(true, 16, true, -16), "fixed fp");
	expect_err(&sec, t + 8, true, -EBADMSG, "too many data words",
		   "fixed fp 2 words");
}

/* One flex FRE in a one-function V3 section, looked up at its start */
static int flex_word_size;

static void flex_case(uint8_t abi, unsigned int n, const int32_t *w,
		      int top_ret, const struct sframe_rule *rule,
		      const char *why, int ret_nontop, const char *why_nontop,
		      const char *what)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fde fde;
	struct sfw_fre fre;
	struct sfw_sec s;
	size_t len;

	sfw_sec_init(&s, 3, abi, a, &fde, 1);
	sfw_fde_init(&fde, t, 0x10, &fre, 1);
	fde.type = SFW_FDE_FLEX;
	fre = sfw_fre(0, false, 0);
	fre.nwords = n;
	fre.word_size = flex_word_size;
	if (n)
		memcpy(fre.words, w, n * sizeof(*w));
	len = sfw_write(&s, buf, sizeof(buf));
	if (!setup_ok(&sec, buf, len, a, t, t + 0x10, what))
		return;
	expect(&sec, t + 5, true, top_ret, rule, why, what);
	expect(&sec, t + 5, false, ret_nontop, rule, why_nontop, what);
}

#define W(...)	((const int32_t[]){ __VA_ARGS__ })
#define NW(...)	(sizeof((const int32_t[]){ __VA_ARGS__ }) / sizeof(int32_t))
#define FLEX(abi, top, rule, why, nontop, why_nontop, what, ...)	\
	flex_case(abi, NW(__VA_ARGS__), W(__VA_ARGS__), top, rule, why,	\
		  nontop, why_nontop, what)

static void test_flex(void)
{
	const uint8_t x86 = SFW_ABI_AMD64_LE, a64 = SFW_ABI_AARCH64_LE;
	const int sp = SFW_CTRL(X86_RSP, 0, 1), rbp = SFW_CTRL(X86_RBP, 0, 1);
	const int drap = SFW_CTRL(X86_RBP, 1, 1), r10 = SFW_CTRL(10, 0, 1);
	const int cfa_deref = SFW_CTRL(0, 1, 0);
	struct sframe_rule r;

	/* DRAP: CFA = *(rbp - 8), FP = *(rbp), RA at the fixed offset */
	r = mkrule(LOC_FP(true, -8), LOC_CFA(true, -8),
		   LOC_FP(true, 0), 0);
	FLEX(x86, 0, &r, NULL, 0, NULL, "flex drap", drap, -8, 0, drap, 0);
	/* CFA = r10: the topmost frame only */
	r = mkrule(LOC_REG(10, false, 0), LOC_CFA(true, -8), LOC_SAME, 0);
	FLEX(x86, 0, &r, NULL, -EOPNOTSUPP, NOTOP, "flex r10", r10, 0);
	/* CFA + RA rule + FP rule, all spelled out */
	r = mkrule(LOC_SP(false, 24), LOC_CFA(true, -8),
		   LOC_CFA(true, -16), 0);
	FLEX(x86, 0, &r, NULL, 0, NULL, "flex full", sp, 24, cfa_deref, -8,
	     cfa_deref, -16);
	/* FP based CFA, padding RA, FP rule */
	r = mkrule(LOC_FP(false, 16), LOC_CFA(true, -8),
		   LOC_CFA(true, -16), 0);
	FLEX(x86, 0, &r, NULL, 0, NULL, "flex padding", rbp, 16, 0,
	     cfa_deref, -16);
	/* Both padding */
	r = x86_rule(false, 8, false, 0);
	FLEX(x86, 0, &r, NULL, 0, NULL, "flex 2 paddings", sp, 8, 0, 0);
	/* RA in a register: the topmost frame only */
	r = mkrule(LOC_SP(false, 8), LOC_REG(3, false, 0),
		   LOC_SAME, 0);
	FLEX(x86, 0, &r, NULL, -EOPNOTSUPP, NOTOP, "flex ra in rbx", sp, 8,
	     SFW_CTRL(3, 0, 1), 0);
	/* FP in r15, x86-64's last general register */
	r = mkrule(LOC_SP(false, 8), LOC_CFA(true, -8),
		   LOC_REG(15, false, 0), 0);
	FLEX(x86, 0, &r, NULL, -EOPNOTSUPP, NOTOP, "flex fp in r15", sp, 8,
	     0, SFW_CTRL(15, 0, 1), 0);
	/* No words: outermost */
	r = outermost_rule(0);
	flex_case(x86, 0, NULL, 0, &r, NULL, 0, NULL, "flex outermost");

	/* Refusals */
	FLEX(x86, -EOPNOTSUPP, NULL, "unsupported flex register", -EOPNOTSUPP,
	     "unsupported flex register", "flex reg 16", SFW_CTRL(16, 0, 1),
	     0);
	FLEX(x86, -EOPNOTSUPP, NULL, "unsupported flex register", -EOPNOTSUPP,
	     "unsupported flex register", "flex huge reg", 0x7ffffff9, 0);
	FLEX(x86, -EOPNOTSUPP, NULL, "unknown flex control bits", -EOPNOTSUPP,
	     "unknown flex control bits", "flex reserved bit", sp | 4, 8);
	FLEX(x86, -EOPNOTSUPP, NULL, "RA rule is a stack address",
	     -EOPNOTSUPP, "RA rule is a stack address", "flex ra = sp + 8", sp,
	     8, sp, 8);
	FLEX(x86, -EOPNOTSUPP, NULL, "RA rule is a stack address",
	     -EOPNOTSUPP, "RA rule is a stack address", "flex ra = cfa", sp, 8,
	     SFW_CTRL(1, 0, 0), -8);

	/* Corruption */
	FLEX(x86, -EBADMSG, NULL, "truncated flex rule", -EBADMSG,
	     "truncated flex rule", "flex 1 word", sp);
	FLEX(x86, -EBADMSG, NULL, "flex CFA rule not register-based",
	     -EBADMSG, "flex CFA rule not register-based", "flex cfa on cfa",
	     cfa_deref, 8);
	FLEX(x86, -EBADMSG, NULL, "truncated flex rule", -EBADMSG,
	     "truncated flex rule", "flex ra w/o offset", sp, 8, cfa_deref);
	FLEX(x86, -EBADMSG, NULL, "truncated flex rule", -EBADMSG,
	     "truncated flex rule", "flex fp w/o offset", sp, 8, 0,
	     cfa_deref);
	FLEX(x86, -EBADMSG, NULL, "too many data words", -EBADMSG,
	     "too many data words", "flex extra word", sp, 8, 0, 0, 0);
	FLEX(x86, -EBADMSG, NULL, "too many data words", -EBADMSG,
	     "too many data words", "flex extra pair", sp, 8, cfa_deref, -8,
	     cfa_deref, -16, cfa_deref, -24);

	/* AArch64 flex: a padding RA means "still in LR" */
	r = mkrule(LOC_SP(false, 0), LOC_REG(A64_LR, false, 0),
		   LOC_SAME, 0);
	FLEX(a64, 0, &r, NULL, -EOPNOTSUPP, NOTOP, "a64 flex lr",
	     SFW_CTRL(A64_SP, 0, 1), 0);
	r = mkrule(LOC_FP(false, 16), LOC_CFA(true, -8),
		   LOC_CFA(true, -16), 0);
	FLEX(a64, 0, &r, NULL, 0, NULL, "a64 flex saved",
	     SFW_CTRL(A64_FP, 0, 1), 16, cfa_deref, -8, cfa_deref, -16);
	FLEX(a64, -EOPNOTSUPP, NULL, "unsupported flex register", -EOPNOTSUPP,
	     "unsupported flex register", "a64 flex reg 32",
	     SFW_CTRL(32, 0, 1), 0);

	/* Control words are unsigned: a 1-byte 0xf9 is SP, not -7 */
	flex_word_size = 1;
	r = mkrule(LOC_SP(false, 16), LOC_REG(A64_LR, false, 0),
		   LOC_SAME, 0);
	FLEX(a64, 0, &r, NULL, -EOPNOTSUPP, NOTOP, "a64 1-byte ctrl",
	     SFW_CTRL(A64_SP, 0, 1), 16);
	/* ... and offsets are signed */
	r = mkrule(LOC_SP(false, -16), LOC_CFA(true, -8), LOC_SAME,
		   0);
	FLEX(a64, 0, &r, NULL, 0, NULL, "a64 1-byte offsets",
	     SFW_CTRL(A64_SP, 0, 1), 0xf0, SFW_CTRL(0, 1, 0), 0xf8);
	flex_word_size = 0;

	/* Unknown FDE types are refused, not taken for corruption */
	{
		const unsigned long a = 0x10000UL, t = 0x20000UL;
		struct sframe_section sec;
		struct sfw_fde fde;
		struct sfw_fre fre;
		struct sfw_sec s;
		unsigned int type;
		size_t len;

		for (type = 2; type < 0x100; type += 7) {
			sfw_sec_init(&s, 3, x86, a, &fde, 1);
			sfw_fde_init(&fde, t, 0x10, &fre, 1);
			fde.type = type;
			fre = sfw_fre(0, false, 1, 8);
			len = sfw_write(&s, buf, sizeof(buf));
			if (!setup_ok(&sec, buf, len, a, t, t + 0x10, "type"))
				continue;
			/* Bits 5-7 are unused: 0x41 is FLEX */
			if ((type & 0x1f) > 1)
				expect_err(&sec, t, true, -EOPNOTSUPP,
					   "unknown FDE type", "fde type");
			else if (type & 0x1f)
				expect_err(&sec, t, true, -EBADMSG,
					   "truncated flex rule", "fde type");
			else
				expect(&sec, t, true, 0, NULL, NULL,
				       "fde type, unused bits");
		}
	}
}

/*
 * Every register a flex rule may name, for the CFA, the RA and the FP: the
 * stack and frame pointers come back as SFRAME_LOC_SP and SFRAME_LOC_FP in
 * any frame, any other register as SFRAME_LOC_REG, in the topmost frame
 * only.
 */
static void test_flex_regs(void)
{
	static const struct {
		uint8_t		abi;
		unsigned int	sp, fp, max;
		const char	*name;
	} abis[] = {
		{ SFW_ABI_AMD64_LE, X86_RSP, X86_RBP, 15, "x86" },
		{ SFW_ABI_AARCH64_LE, A64_SP, A64_FP, 31, "a64" },
	};
	const int cfa_deref = SFW_CTRL(0, 1, 0);
	unsigned int i, reg, which;
	struct sframe_rule r;
	struct sframe_loc l;
	char what[64];

	for (i = 0; i < ARRAY_SIZE(abis); i++) {
		const int sp = SFW_CTRL(abis[i].sp, 0, 1);

		for (reg = 0; reg <= abis[i].max; reg++) {
			bool other = reg != abis[i].sp && reg != abis[i].fp;
			int nontop = other ? -EOPNOTSUPP : 0;
			const char *why = other ? NOTOP : NULL;

			/* The CFA: rN + 16 */
			if (reg == abis[i].sp)
				l = LOC_SP(false, 16);
			else if (reg == abis[i].fp)
				l = LOC_FP(false, 16);
			else
				l = LOC_REG(reg, false, 16);
			r = mkrule(l, LOC_CFA(true, -8), LOC_CFA(true, -16), 0);
			snprintf(what, sizeof(what), "%s flex cfa r%u",
				 abis[i].name, reg);
			FLEX(abis[i].abi, 0, &r, NULL, nontop, why, what,
			     SFW_CTRL(reg, 0, 1), 16, cfa_deref, -8, cfa_deref,
			     -16);

			/* The RA, then the FP: *(rN - 24) */
			l.deref = true;
			l.offset = -24;
			for (which = 0; which < 2; which++) {
				r = mkrule(LOC_SP(false, 32), LOC_CFA(true, -8),
					   LOC_SAME, 0);
				if (which)
					r.fp = l;
				else
					r.ra = l;
				snprintf(what, sizeof(what), "%s flex %s r%u",
					 abis[i].name, which ? "fp" : "ra",
					 reg);
				if (which)
					FLEX(abis[i].abi, 0, &r, NULL, nontop,
					     why, what, sp, 32, cfa_deref, -8,
					     SFW_CTRL(reg, 1, 1), -24);
				else
					FLEX(abis[i].abi, 0, &r, NULL, nontop,
					     why, what, sp, 32,
					     SFW_CTRL(reg, 1, 1), -24);
			}

			/* An RA that is SP or FP + n, not read from there */
			if (other)
				continue;
			snprintf(what, sizeof(what), "%s flex ra = r%u + 8",
				 abis[i].name, reg);
			FLEX(abis[i].abi, -EOPNOTSUPP, NULL,
			     "RA rule is a stack address", -EOPNOTSUPP,
			     "RA rule is a stack address", what, sp, 32,
			     SFW_CTRL(reg, 0, 1), 8);
		}
	}
}

/* The sections GNU as and ld made; the expectations are objdump's */
static void test_real(void)
{
	const uint32_t mangled = SFRAME_RULE_RA_MANGLED |
				 SFRAME_RULE_PAUTH_KEY_B;
	struct sframe_rule sp8 = x86_rule(false, 8, false, 0);
	struct sframe_rule r10, r, lr;
	struct sframe_section sec;
	unsigned long ip;

	/* gas 2.44 skips the DRAP function; sigtramp's RA is approximate */
	if (setup_ok(&sec, x86_64_v2_bytes, sizeof(x86_64_v2_bytes),
		     x86_64_v2_addr, x86_64_v2_text_start,
		     x86_64_v2_text_start + x86_64_v2_text_size, "real v2")) {
		for (ip = x86_64_v2_drap; ip < x86_64_v2_leaf; ip += 7)
			expect_err(&sec, ip, true, -ENOENT, NULL, "v2 drap");
		expect_both(&sec, x86_64_v2_leaf, sp8, "v2 leaf");
		expect_both(&sec, x86_64_v2_leaf + 3, sp8, "v2 leaf");
		expect_err(&sec, x86_64_v2_leaf + 4, true, -ENOENT, NULL,
			   "v2 after leaf");
		expect_both(&sec, x86_64_v2_framed + 8, sp8, "v2 framed");
		expect_both(&sec, x86_64_v2_use, sp8, "v2 use");
		expect_both(&sec, x86_64_v2__start + 17, sp8, "v2 _start");
		expect_both(&sec, x86_64_v2_sigtramp + 6,
			    x86_rule(false, 160, false, 0), "v2 sigtramp");
		expect_err(&sec, x86_64_v2_sigtramp + 7, true, -ENOENT, NULL,
			   "v2 past text");
	}

	if (setup_ok(&sec, x86_64_v3_bytes, sizeof(x86_64_v3_bytes),
		     x86_64_v3_addr, x86_64_v3_text_start,
		     x86_64_v3_text_start + x86_64_v3_text_size, "real v3")) {
		const unsigned long d = x86_64_v3_drap;

		r10 = mkrule(LOC_REG(10, false, 0), LOC_CFA(true, -8),
			     LOC_SAME, 0);
		expect_both(&sec, d, sp8, "v3 drap entry");
		expect_both(&sec, d + 4, sp8, "v3 drap entry");
		for (ip = d + 5; ip < d + 0x1c; ip++) {
			expect_ok(&sec, ip, true, r10, "v3 drap r10");
			expect_err(&sec, ip, false, -EOPNOTSUPP, NOTOP,
				   "v3 drap r10");
		}
		r10.fp = LOC_FP(true, 0);
		expect_ok(&sec, d + 0x1c, true, r10, "v3 drap push r10");
		r = mkrule(LOC_FP(true, -8), LOC_CFA(true, -8),
			   LOC_FP(true, 0), 0);
		for (ip = d + 0x1e; ip < d + 0x36; ip++)
			expect_both(&sec, ip, r, "v3 drap body");
		expect_ok(&sec, d + 0x36, true, r10, "v3 drap epilogue");
		expect_err(&sec, d + 0x3a, false, -EOPNOTSUPP, NOTOP,
			   "v3 drap epilogue");
		r = sp8;
		r.fp = LOC_FP(true, 0);
		expect_both(&sec, d + 0x3b, r, "v3 drap ret");
		expect_err(&sec, d + 0x3c, true, -ENOENT, NULL, "v3 drap end");
		expect_both(&sec, x86_64_v3_leaf, sp8, "v3 leaf");
		expect_both(&sec, x86_64_v3_framed + 8, sp8, "v3 framed");
		expect_both(&sec, x86_64_v3__start, outermost_rule(0),
			    "v3 _start");
		expect_both(&sec, x86_64_v3__start + 17,
			    outermost_rule(0), "v3 _start");
		r = mkrule(LOC_SP(false, 160), LOC_CFA(true, 8),
			   LOC_SAME, SFRAME_RULE_SIGNAL);
		expect_both(&sec, x86_64_v3_sigtramp, r, "v3 sigtramp");
		expect_both(&sec, x86_64_v3_sigtramp + 6, r, "v3 sigtramp");
		CHECK(lookup_rejects == 0 + 0x1c - 5 + 1,
		      "real v3: %lu rejects", lookup_rejects);
	}

	if (setup_ok(&sec, aarch64_v3_bytes, sizeof(aarch64_v3_bytes),
		     aarch64_v3_addr, aarch64_v3_text_start,
		     aarch64_v3_text_start + aarch64_v3_text_size,
		     "real aarch64")) {
		const unsigned long d = aarch64_v3_drap;

		lr = mkrule(LOC_SP(false, 0),
			    LOC_REG(A64_LR, false, 0), LOC_SAME, 0);
		expect_ok(&sec, d, true, lr, "a64 drap entry");
		expect_err(&sec, d, false, -EOPNOTSUPP, NOTOP,
			   "a64 drap entry");
		lr.flags = mangled;
		expect_ok(&sec, d + 4, true, lr, "a64 pacibsp");
		r = mkrule(LOC_SP(false, 128), LOC_CFA(true, -120),
			   LOC_CFA(true, -128), mangled);
		expect_both(&sec, d + 0xc, r, "a64 frame");
		r.cfa = LOC_FP(false, 128);
		expect_both(&sec, d + 0x14, r, "a64 fp frame");
		expect_both(&sec, d + 0x2f, r, "a64 fp frame");
		expect_ok(&sec, d + 0x30, true, lr, "a64 restored");
		lr.flags = 0;
		expect_ok(&sec, d + 0x34, true, lr, "a64 autibsp");
		expect_err(&sec, d + 0x38, true, -ENOENT, NULL, "a64 gap");
		expect_ok(&sec, aarch64_v3_leaf, true, lr, "a64 leaf");
		r = mkrule(LOC_SP(false, 32),
			   LOC_REG(A64_LR, false, 0), LOC_SAME, 0);
		expect_ok(&sec, aarch64_v3_framed + 4, true, r, "a64 framed");
		expect_both(&sec, aarch64_v3__start + 8,
			    outermost_rule(0), "a64 _start");
	}
}

/* Lookups cost O(log FDEs) reads, and binary search finds every function */
static void test_many_fdes(void)
{
	const unsigned long a = 0x10000000UL, t = 0x40000000UL;
	static struct sfw_fde fdes[1 << 16];
	static struct sfw_fre fres[2];
	struct sframe_section sec;
	unsigned int n, i, max_reads, v = 3;
	unsigned long reads;
	struct sfw_sec s;
	size_t len;

	fres[0] = sfw_fre(0, false, 1, 8);
	fres[1] = sfw_fre(1, false, 2, 16, -16);
	for (n = 1; n <= (1 << 16); n = n * 4 + 1) {
		v = v == 3 ? 2 : 3;
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, fdes, n);
		/* Odd functions leave a gap after them */
		for (i = 0; i < n; i++)
			sfw_fde_init(&fdes[i], t + 32 * i, i & 1 ? 16 : 32,
				     fres, 2);
		len = sfw_write(&s, buf, sizeof(buf));
		CHECK(len, "many fdes: %u FDEs do not fit", n);
		if (!len || !setup_ok(&sec, buf, len, a, t, t + 32 * n,
				      "many fdes"))
			continue;
		/* floor(log2(n)) + 1 probes, and one read of the FREs */
		for (max_reads = 1, i = n; i; i >>= 1)
			max_reads++;
		for (i = 0; i < n; i += 1 + i / 8) {
			expect_ok(&sec, t + 32 * i, false,
				  x86_rule(false, 8, false, 0), "many fdes");
			reads = last_reads;
			CHECK(reads <= max_reads,
			      "many fdes: %lu reads for %u FDEs", reads, n);
			expect_ok(&sec, t + 32 * i + 15, false,
				  x86_rule(false, 16, true, -16), "many fdes");
			reads = last_reads;
			CHECK(reads <= max_reads,
			      "many fdes: %lu reads for %u FDEs", reads, n);
			if (i & 1)
				expect_err(&sec, t + 32 * i + 16, false,
					   -ENOENT, NULL, "many fdes gap");
		}
	}
}

/*
 * Interpolation cannot be fooled into more than O(log FDEs) probes: FDEs
 * bunched at the start of a huge text, or at its end, or growing
 * geometrically.
 */
static void test_skewed_fdes(void)
{
	const unsigned long a = 0x10000000UL, t = 0x40000000UL;
	static struct sfw_fde fdes[1 << 14];
	static struct sfw_fre fre[1];
	unsigned int n = 1 << 14, i, layout, bits, max_reads;
	struct sframe_section sec;
	unsigned long reads, worst = 0, ip;
	uint64_t start;
	struct sfw_sec s;
	size_t len;

	fre[0] = sfw_fre(0, false, 1, 8);
	for (bits = 0, i = n; i; i >>= 1)
		bits++;
	/* Each bisection comes after two slow probes at most */
	max_reads = 3 * bits + 2;
	for (layout = 0; layout < 3; layout++) {
		sfw_sec_init(&s, 3, SFW_ABI_AMD64_LE, a, fdes, n);
		for (i = 0, start = t; i < n; i++) {
			uint32_t size = 16;

			if (layout == 0 && i == n - 1)
				size = 0x40000000;	/* one huge last one */
			if (layout == 1 && i == 0)
				size = 0x40000000;	/* one huge first one */
			if (layout == 2)
				size = 16 + (i * i) / 64;
			sfw_fde_init(&fdes[i], start, size, fre, 1);
			start += size;
		}
		len = sfw_write(&s, buf, sizeof(buf));
		if (!setup_ok(&sec, buf, len, a, t, start, "skewed fdes"))
			continue;
		for (i = 0; i < n; i += 1 + i / 16) {
			ip = fdes[i].start + fdes[i].size / 2;
			expect_ok(&sec, ip, false, x86_rule(false, 8, false, 0),
				  "skewed fdes");
			reads = last_reads;
			if (reads > worst)
				worst = reads;
			CHECK(reads <= max_reads,
			      "skewed fdes %u: %lu reads for FDE %u", layout,
			      reads, i);
		}
	}
	printf("# skewed FDEs: at most %lu reads a lookup (bound %u)\n", worst,
	       max_reads);
}

/*
 * A layout like a real program's (sfw_random_section()), of 140,000 FDEs.
 * Random PCs all over the text must find what a plain binary search over
 * the layout finds, in O(log FDEs) reads.
 */
static void test_random_fdes(void)
{
	const unsigned long a = 0x10000000UL, t = 0x40000000UL;
	static struct sfw_fde fdes[140000];
	const unsigned int n = ARRAY_SIZE(fdes);
	unsigned long reads, worst, total, ip;
	unsigned int i, k, v, lo, hi, bits, max_reads;
	uint64_t x = 0x9e3779b97f4a7c15ULL, end;
	struct sframe_section sec;
	struct sfw_sec s;
	size_t len;

	for (bits = 0, i = n; i; i >>= 1)
		bits++;
	max_reads = 3 * bits + 2;
	for (v = 2; v <= 3; v++) {
		len = sfw_random_section(&s, v, a, fdes, n, t, &end, &x, buf,
					 sizeof(buf));
		CHECK(len, "random fdes: %u FDEs do not fit", n);
		if (!len || !setup_ok(&sec, buf, len, a, t, end, "random fdes"))
			continue;
		for (k = 0, worst = 0, total = 0; k < 100000; k++) {
			ip = t + sfw_random(&x) % (end - t);
			for (lo = 0, hi = n; hi - lo > 1;) {
				if (fdes[lo + (hi - lo) / 2].start <= ip)
					lo += (hi - lo) / 2;
				else
					hi = lo + (hi - lo) / 2;
			}
			if (ip - fdes[lo].start >= fdes[lo].size)
				expect_err(&sec, ip, false, -ENOENT, NULL,
					   "random fdes gap");
			else if (ip == fdes[lo].start)
				expect_ok(&sec, ip, false,
					  x86_rule(false, 8, false, 0),
					  "random fdes entry");
			else
				expect_ok(&sec, ip, false,
					  x86_rule(false, 16, true, -16),
					  "random fdes body");
			reads = last_reads;
			CHECK(reads <= max_reads,
			      "random fdes: %lu reads at %#lx", reads, ip);
			worst = reads > worst ? reads : worst;
			total += reads;
		}
		printf("# random FDEs, V%u: %lu reads a lookup at most, ", v,
		       worst);
		printf("%.2f on average (bound %u)\n", total / 100000.0,
		       max_reads);
	}
}

/* Faults: the header, an FDE, FREs; the read-ahead must not fail lookups */
static void test_faults(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fre fres[2][2];
	struct sfw_fde fdes[2];
	struct sfw_sec s;
	size_t len;
	int ret;

	sfw_sec_init(&s, 3, SFW_ABI_AMD64_LE, a, fdes, 2);
	sfw_fde_init(&fdes[0], t, 0x10, fres[0], 2);
	sfw_fde_init(&fdes[1], t + 0x10, 0x10, fres[1], 2);
	fres[0][0] = sfw_fre(0, false, 1, 8);
	fres[0][1] = sfw_fre(1, false, 2, 16, -16);
	fres[1][0] = sfw_fre(0, false, 1, 8);
	fres[1][1] = sfw_fre(4, false, 2, 32, -16);
	len = sfw_write(&s, buf, sizeof(buf));

	/* Nothing mapped: the header faults */
	test_mem_reset();
	test_mem_set_window(a, a + len);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x20);
	CHECK(ret == -EFAULT, "fault: unmapped header: %s", err_str(ret));
	/* The header's last byte unmapped */
	test_mem_reset();
	test_mem_map(a, buf, 27);
	test_mem_map(a + 28, buf + 28, len - 28);
	test_mem_set_window(a, a + len);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x20);
	CHECK(ret == -EFAULT, "fault: header byte 27: %s", err_str(ret));

	/* Second FDE unmapped: the first function can still be found */
	test_mem_reset();
	test_mem_map(a, buf, fdes[1].off);
	test_mem_map(a + fdes[1].off + 16, buf + fdes[1].off + 16,
		     len - fdes[1].off - 16);
	test_mem_set_window(a, a + len);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x20);
	CHECK(ret == 0, "fault: FDE 1 unmapped: setup %s", err_str(ret));
	expect_err(&sec, t + 0x10, true, -EFAULT, NULL, "fault FDE 1");
	/* The binary search probes FDE 1 first */
	expect_err(&sec, t, true, -EFAULT, NULL, "fault FDE 1 probe");

	/* Second function's FREs unmapped: the read-ahead of the first
	 * function's FREs hits the hole, and must not fail its lookups.
	 */
	test_mem_reset();
	test_mem_map(a, buf, fdes[1].attr_off);
	test_mem_set_window(a, a + len);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x20);
	CHECK(ret == 0, "fault: FREs 1 unmapped: setup %s", err_str(ret));
	expect_ok(&sec, t + 1, false, x86_rule(false, 16, true, -16),
		  "fault read-ahead");
	expect_err(&sec, t + 0x10, true, -EFAULT, NULL, "fault FREs 1");
	/* Only the data word of function 1's last FRE unmapped: the FRE
	 * before it needs the start of that FRE, not its word.
	 */
	test_mem_reset();
	test_mem_map(a, buf, fres[1][1].off + 2);
	test_mem_set_window(a, a + len);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x20);
	CHECK(ret == 0, "fault: last word unmapped: setup %s", err_str(ret));
	expect_ok(&sec, t + 0x13, false, x86_rule(false, 8, false, 0),
		  "fault last FRE");
	expect_err(&sec, t + 0x14, false, -EFAULT, NULL, "fault last FRE");
}

static void add32(uint8_t *p, int32_t delta)
{
	uint32_t v = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;

	sfw_put(p, v + delta, 4);
}

/* The section changes after setup: each read is checked anew */
static void test_changes(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_section sec;
	struct sfw_fre fres[3][2];
	struct sfw_fde fdes[3];
	struct sfw_sec s;
	unsigned int i;
	size_t len;

	sfw_sec_init(&s, 2, SFW_ABI_AMD64_LE, a, fdes, 3);
	for (i = 0; i < 3; i++) {
		sfw_fde_init(&fdes[i], t + 0x10 * i, 0x10, fres[i], 2);
		fres[i][0] = sfw_fre(0, false, 1, 8);
		fres[i][1] = sfw_fre(4, false, 2, 16, -16);
	}
	len = sfw_write(&s, buf, sizeof(buf));
	if (!setup_ok(&sec, buf, len, a, t, t + 0x100, "changes"))
		return;
	/* The header is read once: a new FDE count changes nothing. */
	buf[8] = 0xff;
	expect_both(&sec, t + 0x25, x86_rule(false, 16, true, -16),
		    "changed header");
	/* FDE 1 now starts after FDE 2 */
	add32(buf + fdes[1].off, 0x18);
	expect_err(&sec, t + 0x2f, true, -EBADMSG, FDE_ORDER,
		   "changed FDE order");
	/* Not seen: the search stops at FDE 1, the first past the address */
	expect_both(&sec, t + 0x5, x86_rule(false, 16, true, -16),
		    "changed FDE order");
	add32(buf + fdes[1].off, -0x18);
	/* FDE 1 now starts before FDE 0 */
	add32(buf + fdes[1].off, -0x11);
	expect_err(&sec, t, true, -EBADMSG, FDE_ORDER, "changed FDE start");
	add32(buf + fdes[1].off, 0x11);
	/*
	 * FDE 0 now starts before the text, FDE 2 ends after it: they cover
	 * nothing of this text, but the section is not corrupt, as it may
	 * describe text on both sides of the range.
	 */
	add32(buf + fdes[0].off, -8);
	expect_err(&sec, t + 5, true, -ENOENT, NULL, "FDE across text start");
	add32(buf + fdes[0].off, 8);
	add32(buf + fdes[2].off + 4, 0xd1);
	expect_err(&sec, t + 0x25, true, -ENOENT, NULL, "FDE across text end");
	expect_both(&sec, t + 0x15, x86_rule(false, 16, true, -16),
		    "FDE across text end");
	add32(buf + fdes[2].off + 4, -0xd1);
	/* FRE starts out of order */
	buf[fres[2][1].off] = 0x11;
	expect_err(&sec, t + 0x25, true, -EBADMSG,
		   "FRE start past the function", "changed FRE start");
	buf[fres[2][0].off] = 0x5;
	buf[fres[2][1].off] = 0x4;
	expect_err(&sec, t + 0x25, true, -EBADMSG, "FRE starts not in order",
		   "changed FRE order");
	/* Not seen: the scan stops at the first FRE */
	expect_err(&sec, t + 0x23, true, -ENOENT, NULL, "changed FRE order");
	buf[fres[2][0].off] = 0;
	expect_both(&sec, t + 0x25, x86_rule(false, 16, true, -16),
		    "changed back");
	/*
	 * V2 counts FREs in 32 bits: more than V3's 16 bits can say is
	 * refused before the scan, which would otherwise run that long.
	 */
	sfw_put(buf + fdes[2].off + 12, 0x10000, 4);
	expect_err(&sec, t + 0x25, true, -EBADMSG,
		   "too many FREs in a function", "changed FRE count");
	sfw_put(buf + fdes[2].off + 12, 0xffff, 4);
	expect_both(&sec, t + 0x21, x86_rule(false, 8, false, 0),
		    "FRE count at the limit");
}

/*
 * The FREs of the FDE after the one found tell how many bytes to read
 * ahead.  A wrong guess - none, too short, too long, wrapping, reaching a
 * fault - may cost reads, never a lookup.
 */
static void test_fre_readahead(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	/* FDE 2's fres_off, as an offset from FDE 1's */
	static const int32_t next[] = { 0, 1, 4, -1, 0x1000, 0x7fffffff };
	struct sfw_fre fres[3][3];
	struct sframe_section sec;
	struct sfw_fde fdes[3];
	unsigned long reads, exact;
	unsigned int v, i, k;
	struct sfw_sec s;
	size_t len, off;
	uint32_t f1;

	for (v = 2; v <= 3; v++) {
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, fdes, 3);
		for (i = 0; i < 3; i++) {
			sfw_fde_init(&fdes[i], t + 0x40 * i, 0x40, fres[i], 3);
			fres[i][0] = sfw_fre(0, false, 1, 8);
			fres[i][1] = sfw_fre(1, false, 2, 16, -16);
			fres[i][2] = sfw_fre(0x30, true, 2, 0x1000, -16);
		}
		len = sfw_write(&s, buf, sizeof(buf));
		if (!setup_ok(&sec, buf, len, a, t, t + 0xc0, "read-ahead"))
			continue;
		/* The FDE search reads all three, then the exact FREs */
		expect_ok(&sec, t + 0x7f, true, x86_rule(true, 0x1000, true, -16),
			  "read-ahead exact");
		exact = last_reads;
		CHECK(exact == 2, "read-ahead: %lu reads, not 2", exact);

		/* fres_off: bytes 8-11 of a V2 FDE, 12-15 of a V3 one */
		off = v == 2 ? 8 : 12;
		f1 = fdes[1].off + off;
		f1 = buf[f1] | buf[f1 + 1] << 8 | buf[f1 + 2] << 16 |
		     (uint32_t)buf[f1 + 3] << 24;
		off += fdes[2].off;
		for (k = 0; k < ARRAY_SIZE(next); k++) {
			sfw_put(buf + off, f1 + next[k], 4);
			expect_ok(&sec, t + 0x40, true,
				  x86_rule(false, 8, false, 0),
				  "read-ahead guess");
			expect_ok(&sec, t + 0x7f, false,
				  x86_rule(true, 0x1000, true, -16),
				  "read-ahead guess");
		}
		/* Too short: more reads, as many as the FREs need */
		sfw_put(buf + off, f1 + 1, 4);
		expect_ok(&sec, t + 0x7f, true, x86_rule(true, 0x1000, true, -16),
			  "read-ahead short");
		reads = last_reads;
		CHECK(reads > exact && reads <= exact + 2,
		      "read-ahead short: %lu reads", reads);

		/* Too long, into a fault after function 1's FREs */
		sfw_put(buf + off, f1 + 0x1000, 4);
		test_mem_reset();
		test_mem_map(a, buf, v == 2 ? fdes[2].fres_off :
					      fdes[2].attr_off);
		test_mem_set_window(a, a + len);
		CHECK(!sframe_section_init(&sec, a, a + len, a, t, t + 0xc0),
		      "read-ahead fault: setup");
		expect_ok(&sec, t + 0x7f, true, x86_rule(true, 0x1000, true, -16),
			  "read-ahead fault");
	}
}

/*
 * A V3 section at @a with one 16-byte function at @t, whose one FRE says
 * CFA = SP + @cfa; into buf.  Returns its size.
 */
static size_t one_fde_v3(struct sfw_sec *s, uint8_t abi, unsigned long a,
			 struct sfw_fde *fde, unsigned long t,
			 struct sfw_fre *fre, int32_t cfa)
{
	sfw_sec_init(s, 3, abi, a, fde, 1);
	sfw_fde_init(fde, t, 0x10, fre, 1);
	*fre = sfw_fre(0, false, 1, cfa);
	return sfw_write(s, buf, sizeof(buf));
}

/* The outcome of one lookup, to compare two placements of a section */
struct outcome {
	int			ret;
	const char		*why;
	uint32_t		cost;
	struct sframe_rule	rule;
};

#define RELOC_MARGIN	0x40UL
#define RELOC_MAX_IPS	32768U

static struct outcome reloc_base[2 * RELOC_MAX_IPS];

/* The lookups of a placement: every address around the text, or a spread */
static unsigned long reloc_step(unsigned long ts, unsigned long te)
{
	return (te - ts + 2 * RELOC_MARGIN) / RELOC_MAX_IPS + 1;
}

/*
 * Look up every address of [@ts, @te) and around it, plus @delta, topmost
 * and not: record the outcomes if @record, else compare them with those
 * recorded.
 */
static void reloc_lookups(const struct sframe_section *sec, unsigned long ts,
			  unsigned long te, unsigned long delta, bool record,
			  const char *what)
{
	unsigned long step = reloc_step(ts, te), ip;
	struct outcome *o = reloc_base, got;
	char b1[160], b2[160];
	unsigned int top;

	for (ip = ts - RELOC_MARGIN; ip < te + RELOC_MARGIN; ip += step) {
		for (top = 0; top < 2; top++, o++) {
			struct outcome *r = record ? o : &got;

			memset(&r->rule, 0, sizeof(r->rule));
			r->ret = lookup(sec, ip + delta, top, &r->rule,
					&r->why, &r->cost, what);
			if (record)
				continue;
			CHECK(got.ret == o->ret && str_eq(got.why, o->why) &&
			      got.cost == o->cost &&
			      (got.ret || rule_eq(&got.rule, &o->rule)),
			      "%s: ip %+ld%s: %s \"%s\" %s (cost %u); at its own address %s \"%s\" %s (cost %u)",
			      what, (long)(ip - ts), top ? " top" : "",
			      err_str(got.ret), got.why ?: "",
			      got.ret ? "" : rule_str(&got.rule, b1, sizeof(b1)),
			      got.cost, err_str(o->ret), o->why ?: "",
			      o->ret ? "" : rule_str(&o->rule, b2, sizeof(b2)),
			      o->cost);
		}
	}
}

/*
 * A section mapped apart from its object, as a sidecar file is: its bytes,
 * mapped anywhere and described as at @addr + delta (sframe_addr), give at
 * every address + delta what they give at their own address @addr, for
 * text [@ts, @te): the same rules, errors, reject reasons and work.
 */
static void check_relocated(const void *b, size_t len, unsigned long addr,
			    unsigned long ts, unsigned long te,
			    const char *what)
{
	static const struct {
		unsigned long	map;
		long		delta;
	} pl[] = {
		{ 0x7ffe00000000UL, 0 },		/* far above */
		{ 0x10000UL, 0 },			/* below */
		{ 0x7ffe00000000UL, 0x1000 },
		{ 0x7ffe00000000UL, 0x7ff00003 },	/* odd, near 2 GiB */
		{ 0x20000000UL, -0x3fff1 },		/* odd, down */
		{ 0x1000UL, 0x7f0000000000L },		/* 127 TiB up */
	};
	struct sframe_section sec;
	char name[96];
	unsigned int i;
	int ret;

	if (!setup_ok(&sec, b, len, addr, ts, te, what))
		return;
	/* Seeds of sidecars, 17 * 100 bytes up and 1 MiB + 1 down */
	if (seed_dir && len <= 4096) {
		snprintf(name, sizeof(name), "sidecar-%02u",
			 nr_sidecar_seeds++);
		write_seed(seed_dir, name, b, len, addr, ts, te, ts, true,
			   200);
		snprintf(name, sizeof(name), "sidecar-%02u",
			 nr_sidecar_seeds++);
		write_seed(seed_dir, name, b, len, addr, ts, te, ts, false,
			   -1);
	}
	reloc_lookups(&sec, ts, te, 0, true, what);
	for (i = 0; i < ARRAY_SIZE(pl); i++) {
		snprintf(name, sizeof(name), "%s at %#lx, sframe_addr %+ld",
			 what, pl[i].map, pl[i].delta);
		ret = setup_at(&sec, b, len, pl[i].map, addr + pl[i].delta,
			       ts + pl[i].delta, te + pl[i].delta);
		CHECK(!ret, "%s: setup %s (%s)", name, err_str(ret),
		      test_last_reject() ?: "-");
		if (ret)
			continue;
		CHECK(sec.sframe_start == pl[i].map &&
		      sec.sframe_addr == addr + pl[i].delta &&
		      sec.fdes_start > pl[i].map &&
		      sec.fres_end <= pl[i].map + len,
		      "%s: the section is not read where it is mapped", name);
		reloc_lookups(&sec, ts, te, pl[i].delta, false, name);
	}
}

#define BEYOND_FDE	"FDE beyond the user address space"
#define BEYOND_ADDR	"section address beyond the user address space"

/*
 * Sections that a loader maps apart from their objects: the same rules at
 * the shifted addresses, for V2 with and without PCREL and V3, made by gas
 * and ld and by hand; and a hostile sframe_addr: one where the section would
 * end beyond the user address space is refused, one that wraps the
 * functions around the address space makes the lookups fail as corrupt, and
 * one that puts them out of the text's reach covers nothing.  The window
 * keeps every read inside the bytes where they are mapped.
 */
static void test_relocated(void)
{
	static struct sfw_fde fdes[3000];
	const unsigned long a = 0x10000000UL, t = 0x40000000UL;
	const unsigned long lim = 0x8000000000000000UL;	/* 2^63 */
	uint64_t x = 0x5eed5eed5eedULL, end;
	struct sframe_section sec;
	unsigned long ip, ts, te;
	struct sfw_sec s;
	unsigned int v;
	size_t len;
	int ret;

	check_relocated(x86_64_v2_bytes, sizeof(x86_64_v2_bytes),
			x86_64_v2_addr, x86_64_v2_text_start,
			x86_64_v2_text_start + x86_64_v2_text_size,
			"relocated real v2");
	check_relocated(x86_64_v3_bytes, sizeof(x86_64_v3_bytes),
			x86_64_v3_addr, x86_64_v3_text_start,
			x86_64_v3_text_start + x86_64_v3_text_size,
			"relocated real v3");
	check_relocated(aarch64_v3_bytes, sizeof(aarch64_v3_bytes),
			aarch64_v3_addr, aarch64_v3_text_start,
			aarch64_v3_text_start + aarch64_v3_text_size,
			"relocated real aarch64");
	for (v = 2; v <= 3; v++) {
		len = sfw_random_section(&s, v, a, fdes, ARRAY_SIZE(fdes), t,
					 &end, &x, buf, sizeof(buf));
		CHECK(len, "relocated random v%u: does not fit", v);
		if (len)
			check_relocated(buf, len, a, t, end,
					v == 2 ? "relocated random v2 pcrel" :
						 "relocated random v3");
	}
	/* V2 without PCREL: offsets from the section's start */
	s.flags &= ~SFW_F_PCREL;
	s.version = 2;
	len = sfw_write(&s, buf, sizeof(buf));
	CHECK(len, "relocated random v2: does not fit");
	if (len)
		check_relocated(buf, len, a, t, end, "relocated random v2");

	/* Where the section would end beyond the user address space */
	ts = x86_64_v2_text_start;
	te = ts + x86_64_v2_text_size;
	len = sizeof(x86_64_v2_bytes);
	ret = setup_at(&sec, x86_64_v2_bytes, len, a, lim - len - 1, ts, te);
	CHECK(!ret, "sframe_addr just below 2^63: %s", err_str(ret));
	ret = setup_at(&sec, x86_64_v2_bytes, len, a, lim - len, ts, te);
	CHECK(ret == -EINVAL && str_eq(test_last_reject(), BEYOND_ADDR),
	      "sframe_addr ending at 2^63: %s", err_str(ret));
	ret = setup_at(&sec, x86_64_v2_bytes, len, a, lim, ts, te);
	CHECK(ret == -EINVAL && str_eq(test_last_reject(), BEYOND_ADDR),
	      "sframe_addr 2^63: %s", err_str(ret));
	ret = setup_at(&sec, x86_64_v2_bytes, len, a, ~0UL - 4, ts, te);
	CHECK(ret == -EINVAL && str_eq(test_last_reject(), BEYOND_ADDR),
	      "sframe_addr wrapping: %s", err_str(ret));

	/*
	 * The functions wrapped below 0: V2 without PCREL, whose offsets are
	 * negative (the text is before the section), and V3 with PCREL.
	 */
	if (!setup_at(&sec, x86_64_v2_bytes, len, a, 0x100, ts, te))
		for (ip = ts; ip < te; ip++)
			expect_err(&sec, ip, false, -EBADMSG, BEYOND_FDE,
				   "v2 functions wrapped below 0");
	ts = x86_64_v3_text_start;
	te = ts + x86_64_v3_text_size;
	if (!setup_at(&sec, x86_64_v3_bytes, sizeof(x86_64_v3_bytes), a,
		      0x100, ts, te))
		for (ip = ts; ip < te; ip++)
			expect_err(&sec, ip, false, -EBADMSG, BEYOND_FDE,
				   "v3 functions wrapped below 0");

	/* Out of reach of the text: 1 TiB away, the text where it was */
	ts = x86_64_v2_text_start;
	te = ts + x86_64_v2_text_size;
	if (!setup_at(&sec, x86_64_v2_bytes, len, a,
		      x86_64_v2_addr + (1UL << 40), ts, te))
		for (ip = ts; ip < te; ip++)
			expect_err(&sec, ip, false, -ENOENT, NULL,
				   "v2 text out of reach");
	ts = x86_64_v3_text_start;
	te = ts + x86_64_v3_text_size;
	if (!setup_at(&sec, x86_64_v3_bytes, sizeof(x86_64_v3_bytes), a,
		      x86_64_v3_addr + (1UL << 40), ts, te))
		for (ip = ts; ip < te; ip++)
			expect_err(&sec, ip, true, -ENOENT, NULL,
				   "v3 text out of reach");
	/* ... and the other way, the text 1 TiB above its functions */
	ts = x86_64_v3_text_start + (1UL << 40);
	te = ts + x86_64_v3_text_size;
	if (!setup_at(&sec, x86_64_v3_bytes, sizeof(x86_64_v3_bytes), a,
		      x86_64_v3_addr, ts, te))
		for (ip = ts; ip < te; ip++)
			expect_err(&sec, ip, true, -ENOENT, NULL,
				   "v3 text above its functions");
}

/* Header and range checks (the corpus test covers them systematically) */
static void test_header(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL, top = 1UL << 63;
	struct sframe_section sec;
	struct sfw_fde fde, fdes[2];
	struct sfw_fre fre;
	struct sfw_sec s;
	size_t len;
	int ret;

	len = one_fde_v3(&s, SFW_ABI_AARCH64_LE, a, &fde, t, &fre, 0);

	ret = setup(&sec, buf, len, a, t, t);
	CHECK(ret == -EINVAL, "empty text: %s", err_str(ret));
	ret = setup(&sec, buf, len, a, t + 1, t);
	CHECK(ret == -EINVAL, "wrapping text: %s", err_str(ret));
	test_mem_reset();
	ret = sframe_section_init(&sec, a, a, a, t, t + 0x10);
	CHECK(ret == -EINVAL, "empty sframe: %s", err_str(ret));
	ret = sframe_section_init(&sec, ~0UL - 4, 4, ~0UL - 4, t,
				  t + 0x10);
	CHECK(ret == -EINVAL, "wrapping sframe: %s", err_str(ret));

	/* The kernel accepts only its own ABI */
	test_mem_reset();
	test_set_abi(SFW_ABI_AMD64_LE);
	test_mem_map(a, buf, len);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x10);
	CHECK(ret == -ENOEXEC && !strcmp(test_last_reject(),
					 "unsupported ABI"),
	      "aarch64 on x86: %s", err_str(ret));
	test_set_abi(SFW_ABI_AARCH64_LE);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x10);
	CHECK(ret == 0, "aarch64 on arm64: %s", err_str(ret));
	s.abi = SFW_ABI_AMD64_LE;
	len = sfw_write(&s, buf, sizeof(buf));
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x10);
	CHECK(ret == -ENOEXEC, "x86 on arm64: %s", err_str(ret));
	test_set_abi(0);
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x10);
	CHECK(ret == -ENOEXEC && !strcmp(test_last_reject(),
					 "bad fixed RA offset for the ABI"),
	      "x86 without fixed RA: %s", err_str(ret));
	s.fixed_ra = -8;
	len = sfw_write(&s, buf, sizeof(buf));
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x10);
	CHECK(ret == 0, "x86: %s", err_str(ret));
	s.abi = SFW_ABI_AARCH64_LE;
	len = sfw_write(&s, buf, sizeof(buf));
	ret = sframe_section_init(&sec, a, a + len, a, t, t + 0x10);
	CHECK(ret == -ENOEXEC, "aarch64 with fixed RA: %s", err_str(ret));

	/* An empty section (no FDEs) is valid and covers nothing */
	s.fixed_ra = 0;
	s.nfdes = 0;
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "no FDEs"))
		expect_err(&sec, t, true, -ENOENT, NULL, "no FDEs");
	/* V2 may have the (meaningless) frame pointer flag */
	s.nfdes = 1;
	s.version = 2;
	s.flags |= SFW_F_FRAME_POINTER;
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "v2 FP flag"))
		expect_ok(&sec, t, true,
			  mkrule(LOC_SP(false, 0),
				 LOC_REG(A64_LR, false, 0), LOC_SAME, 0),
			  "v2 FP flag");
	s.version = 3;
	len = sfw_write(&s, buf, sizeof(buf));
	ret = setup(&sec, buf, len, a, t, t + 0x10);
	CHECK(ret == -ENOEXEC && !strcmp(test_last_reject(),
					 "unknown header flags"),
	      "v3 FP flag: %s", err_str(ret));
	/* Unsorted sections (as in .o files) cannot be searched */
	s.flags = SFW_F_PCREL;
	len = sfw_write(&s, buf, sizeof(buf));
	ret = setup(&sec, buf, len, a, t, t + 0x10);
	CHECK(ret == -ENOEXEC && !strcmp(test_last_reject(),
					 "FDEs not flagged as sorted"),
	      "unsorted: %s", err_str(ret));

	/*
	 * Function starts are added modulo 2^64: an offset that wraps must
	 * not land in the text.  The ranges end below 2^63, as user
	 * addresses do.
	 */
	len = one_fde_v3(&s, SFW_ABI_AMD64_LE, a, &fde, t, &fre, 8);
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "address limit")) {
		/* The start is t - 2^63, outside the text, not t + 2^63 */
		sfw_put(buf + fde.off, t - fde.off - a + top, 8);
		expect_err(&sec, t, true, -EBADMSG,
			   "FDE beyond the user address space",
			   "wrapping start");
		sfw_put(buf + fde.off, t - fde.off - a, 8);
		expect_both(&sec, t, x86_rule(false, 8, false, 0),
			    "address limit");
	}
	ret = setup(&sec, buf, len, a, t, top);
	CHECK(ret == -EINVAL && str_eq(test_last_reject(),
				       "range beyond the user address space"),
	      "text up to 2^63: %s", err_str(ret));
	ret = setup(&sec, buf, len, a, top + t, top + t + 0x10);
	CHECK(ret == -EINVAL, "text above 2^63: %s", err_str(ret));
	ret = setup(&sec, buf, len, top - len, t, t + 0x10);
	CHECK(ret == -EINVAL && str_eq(test_last_reject(),
				       "range beyond the user address space"),
	      "section up to 2^63: %s", err_str(ret));
	/* The last byte below 2^63 */
	sfw_put(buf + fde.off, top - 0x11 - (top - 1 - len) - fde.off, 8);
	if (setup_ok(&sec, buf, len, top - 1 - len, top - 0x11, top - 1,
		     "address limit"))
		expect_both(&sec, top - 2, x86_rule(false, 8, false, 0),
			    "just below 2^63");

	/*
	 * A function after the one looked up that ends past 2^63: no
	 * function does, whatever the text range.
	 */
	sfw_sec_init(&s, 3, SFW_ABI_AMD64_LE, a, fdes, 2);
	sfw_fde_init(&fdes[0], t, 0x10, &fre, 1);
	sfw_fde_init(&fdes[1], top - 0x10, 0x10, &fre, 1);
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "FDE up to 2^63"))
		expect_both(&sec, t, x86_rule(false, 8, false, 0),
			    "FDE up to 2^63");
	fdes[1].size = 0x11;
	len = sfw_write(&s, buf, sizeof(buf));
	if (setup_ok(&sec, buf, len, a, t, t + 0x10, "FDE past 2^63"))
		expect_err(&sec, t, true, -EBADMSG,
			   "FDE beyond the user address space",
			   "FDE past 2^63");
}

/* The rule of the functions of sfw_random_section() and segments_section() */
static struct sframe_rule two_fre_rule(const struct sfw_fde *f,
				       unsigned long ip)
{
	return ip == f->start ? x86_rule(false, 8, false, 0) :
				x86_rule(false, 16, true, -16);
}

/*
 * The text of one object in two executable segments: @n1 then @n2
 * functions of 4 to 16 bytes (one in three followed by a 2-byte gap), the
 * second segment from the page after the next one past the first.  One
 * section describes both, at @a.  Returns its size, with the segments in
 * @ts and @te.
 */
static struct sfw_fde seg_fdes[140000];

static size_t segments_section(struct sfw_sec *s, unsigned int v,
			       unsigned long a, unsigned int n1,
			       unsigned int n2, unsigned long ts[2],
			       unsigned long te[2])
{
	static struct sfw_fre fres[2];
	unsigned long pc = 0x40000000UL;
	unsigned int i;

	fres[0] = sfw_fre(0, false, 1, 8);
	fres[1] = sfw_fre(1, false, 2, 16, -16);
	sfw_sec_init(s, v, SFW_ABI_AMD64_LE, a, seg_fdes, n1 + n2);
	ts[0] = pc;
	for (i = 0; i < n1 + n2; i++) {
		uint32_t size = 4 + i % 5 * 3;

		if (i == n1) {
			te[0] = pc;
			pc = (pc | 0xfff) + 0x1001;
			ts[1] = pc;
		}
		sfw_fde_init(&seg_fdes[i], pc, size, fres, 2);
		pc += size + (i % 3 == 2 && i != n1 - 1 ? 2 : 0);
	}
	te[1] = pc;
	return sfw_write(s, buf, sizeof(buf));
}

/* @ip must have the rule of function @f of two FREs, or none if NULL */
static void expect_fn(const struct sframe_section *sec, unsigned long ip,
		      const struct sfw_fde *f, const char *what)
{
	if (f) {
		expect_both(sec, ip, two_fre_rule(f, ip), what);
	} else {
		expect_err(sec, ip, true, -ENOENT, NULL, what);
		expect_err(sec, ip, false, -ENOENT, NULL, what);
	}
}

/* The same with one lookup, no budget checks: for millions of them */
static void expect_fn_quick(const struct sframe_section *sec,
			    unsigned long ip, const struct sfw_fde *f,
			    const char *what)
{
	uint32_t budget = PLENTY;
	struct sframe_rule got;
	int ret;

	test_reject_clear();
	ret = sframe_find_rule(sec, ip, true, &got, &budget);
	if (f) {
		struct sframe_rule want = two_fre_rule(f, ip);

		CHECK(!ret && rule_eq(&got, &want), "%s: ip %#lx: %s", what,
		      ip, err_str(ret));
	} else {
		CHECK(ret == -ENOENT && !test_last_reject(),
		      "%s: ip %#lx: %s", what, ip, err_str(ret));
	}
}

/*
 * One object with two executable segments: the ELF loader and codectl
 * register its .sframe section once for each, with that segment's text
 * range.  Each PC of both segments and of the gap between them must find
 * its function through the registration of its own segment, and nothing
 * through the other one; and the section is never found corrupt, although
 * the search reads FDEs of the other segment (its interpolation guess lands
 * there, and blocks of 8 straddle the boundary).  Small arrays, and large
 * ones (70,000 FDEs a segment), looked up at every PC once, and in full
 * (both frame kinds, budget checks) at the functions near the boundary and
 * at one in 997.
 */
static void test_segments(void)
{
	static const unsigned int sizes[][2] = {
		{ 1, 1 }, { 3, 9 }, { 9, 3 }, { 20, 20 }, { 70000, 70000 },
	};
	const unsigned long a = 0x10000000UL;
	unsigned long ts[2], te[2], ip, reads, lookups;
	struct sframe_section sec[2];
	unsigned int v, k, r, i, n, n1;
	struct sfw_sec s;
	char what[64];
	size_t len;
	int ret;

	for (v = 2; v <= 3; v++) {
		for (k = 0; k < ARRAY_SIZE(sizes); k++) {
			n1 = sizes[k][0];
			n = n1 + sizes[k][1];
			snprintf(what, sizeof(what), "segments v%u %u+%u", v,
				 n1, sizes[k][1]);
			len = segments_section(&s, v, a, n1, sizes[k][1], ts,
					       te);
			CHECK(len, "%s: does not fit", what);
			if (!len || !setup_ok(&sec[0], buf, len, a, ts[0],
					      te[0], what))
				continue;
			ret = sframe_section_init(&sec[1], a, a + len, a,
						  ts[1], te[1]);
			CHECK(!ret, "%s: segment 2: setup %s", what,
			      err_str(ret));
			reads = 0;
			lookups = 0;
			for (ip = ts[0] - 4, i = 0; ip < te[1] + 4; ip++) {
				const struct sfw_fde *f;
				bool full;

				while (i < n && ip >= seg_fdes[i].start +
							seg_fdes[i].size)
					i++;
				f = i < n && ip >= seg_fdes[i].start ?
				    &seg_fdes[i] : NULL;
				full = n < 1000 || i % 997 == 0 ||
				       (i + 16 > n1 && i < n1 + 16);
				for (r = 0; r < 2; r++) {
					bool mine = ip >= ts[r] && ip < te[r];
					const struct sfw_fde *in = mine ? f : NULL;

					if (full) {
						expect_fn(&sec[r], ip, in, what);
						continue;
					}
					reads -= test_mem_reads();
					expect_fn_quick(&sec[r], ip, in, what);
					reads += test_mem_reads();
					lookups += mine;
				}
			}
			CHECK(lookup_rejects == 0, "%s: %lu rejects", what,
			      lookup_rejects);
			if (n >= 1000)
				printf("# %s: %.2f reads a lookup\n", what,
				       (double)reads / lookups);
		}
	}
}

/* Function @i of a section made by gas: its start and size */
static void real_fde(const uint8_t *b, unsigned long addr, unsigned int i,
		     unsigned long *start, uint32_t *size)
{
	const unsigned int esz = b[2] == 2 ? 20 : 16;
	size_t off = 28 + b[7] + (b[20] | b[21] << 8) + i * esz;
	uint64_t v = 0;
	unsigned int k;

	for (k = 0; k < (esz == 20 ? 4u : 8u); k++)
		v |= (uint64_t)b[off + k] << 8 * k;
	if (esz == 20)
		v = (uint64_t)(int64_t)(int32_t)v;
	*start = (b[3] & SFW_F_PCREL ? addr + off : addr) + v;
	off += esz == 20 ? 4 : 8;
	for (*size = 0, k = 0; k < 4; k++)
		*size |= (uint32_t)b[off + k] << 8 * k;
}

/*
 * The sections gas made, registered as two text ranges split at every
 * byte: each PC finds through the range it is in what it finds through the
 * whole text, or -ENOENT where its function straddles the split.
 */
static void real_split(const char *what, const uint8_t *b, size_t len,
		       unsigned long addr, unsigned long ts, unsigned long size)
{
	struct sframe_rule want[2][256], got;
	struct sframe_section whole, part;
	unsigned long start[64], split, ip;
	const char *why[2][256], *reason;
	unsigned int nfdes = b[8], i, top;
	uint32_t fsize[64], cost;
	int ret[2][256], r;

	if (size > 256 || nfdes > 64 ||
	    !setup_ok(&whole, b, len, addr, ts, ts + size, what))
		return;
	for (i = 0; i < nfdes; i++)
		real_fde(b, addr, i, &start[i], &fsize[i]);
	for (ip = ts; ip < ts + size; ip++)
		for (top = 0; top < 2; top++)
			ret[top][ip - ts] = lookup(&whole, ip, top,
						   &want[top][ip - ts],
						   &why[top][ip - ts], &cost,
						   what);
	for (split = ts + 1; split < ts + size; split++) {
		for (ip = ts; ip < ts + size; ip++) {
			unsigned long ps = ip < split ? ts : split;
			unsigned long pe = ip < split ? split : ts + size;
			bool cut = false;

			/* The function of ip, if any, crosses the split */
			for (i = 0; i < nfdes; i++)
				if (ip - start[i] < fsize[i])
					cut = start[i] < ps ||
					      start[i] + fsize[i] > pe;
			r = sframe_section_init(&part, addr, addr + len, addr,
						ps, pe);
			CHECK(!r, "%s split at %#lx: setup %s", what, split,
			      err_str(r));
			for (top = 0; top < 2; top++) {
				int exp = cut ? -ENOENT : ret[top][ip - ts];

				r = lookup(&part, ip, top, &got, &reason,
					   &cost, what);
				CHECK(r == exp &&
				      str_eq(reason,
					     cut ? NULL : why[top][ip - ts]) &&
				      (r || rule_eq(&got, &want[top][ip - ts])),
				      "%s split at %#lx: ip %#lx%s: %s, want %s",
				      what, split, ip, top ? " (top)" : "",
				      err_str(r), err_str(exp));
			}
		}
	}
}

static void test_real_split(void)
{
	real_split("real v2 split", x86_64_v2_bytes, sizeof(x86_64_v2_bytes),
		   x86_64_v2_addr, x86_64_v2_text_start, x86_64_v2_text_size);
	real_split("real v3 split", x86_64_v3_bytes, sizeof(x86_64_v3_bytes),
		   x86_64_v3_addr, x86_64_v3_text_start, x86_64_v3_text_size);
	real_split("real aarch64 split", aarch64_v3_bytes,
		   sizeof(aarch64_v3_bytes), aarch64_v3_addr,
		   aarch64_v3_text_start, aarch64_v3_text_size);
}

/*
 * gas emits a row at the end of a function for CFI directives that follow
 * its last instruction (gas 2.47 and ld 2.47 keep it; ld 2.44 aborts on
 * it): the last FRE may start at the function's size, and no address has
 * its rule.  Any other FRE there, or one past the size, is corrupt: so are
 * the FREs of a function that all start at its size.
 */
static void test_fre_at_end(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	struct sframe_rule entry = x86_rule(false, 8, false, 0);
	struct sframe_rule body = x86_rule(false, 16, true, -16);
	struct sframe_section sec;
	struct sfw_fre fres[4];
	struct sfw_fde fde;
	struct sfw_sec s;
	unsigned int v, i;
	size_t len;

	for (v = 2; v <= 3; v++) {
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, &fde, 1);
		sfw_fde_init(&fde, t, 0x10, fres, 3);
		fres[0] = sfw_fre(0, false, 1, 8);
		fres[1] = sfw_fre(4, false, 2, 16, -16);
		fres[2] = sfw_fre(0x10, false, 1, 8);
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x20, "FRE at end")) {
			for (i = 0; i < 0x10; i++)
				expect_both(&sec, t + i, i < 4 ? entry : body,
					    "FRE at end");
			expect_err(&sec, t + 0x10, true, -ENOENT, NULL,
				   "FRE at end");
			CHECK(lookup_rejects == 0, "FRE at end: %lu rejects",
			      lookup_rejects);
		}

		/* Past the size, even the last one */
		fres[2].start = 0x11;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x20, "FRE past end")) {
			expect_both(&sec, t + 3, entry, "FRE past end");
			expect_err(&sec, t + 4, true, -EBADMSG, FRE_PAST,
				   "FRE past end");
		}

		/* At the size, but not the last */
		fres[1].start = 0x10;
		fres[2].start = 0x10;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x20, "FREs at end"))
			for (i = 0; i < 0x10; i++)
				expect_err(&sec, t + i, true, -EBADMSG,
					   FRE_PAST, "FREs at end");

		/* Every FRE at the size: the function's rows lie past it */
		fres[0].start = 0x10;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x20, "all at end"))
			for (i = 0; i < 0x10; i++)
				expect_err(&sec, t + i, false, -EBADMSG,
					   FRE_PAST, "all at end");

		/* One FRE, at the size: no address has a rule */
		fde.nfres = 1;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x20, "only at end"))
			for (i = 0; i < 0x10; i++)
				expect_err(&sec, t + i, true, -ENOENT, NULL,
					   "only at end");
	}
}

/*
 * gcc 14 emits an empty FDE for a function whose body is unreachable, at
 * the start of the next function: an FDE may start where an empty one
 * does, wherever the pair lies in the search's blocks.  Two functions that
 * share a start otherwise, or overlap, are corrupt.
 */
static void test_empty_fdes(void)
{
	const unsigned long a = 0x10000UL, t = 0x20000UL;
	static struct sfw_fde fdes[21], fdes2[64];
	static struct sfw_fre fres[2];
	struct sframe_section sec;
	unsigned int v, k, i, j;
	unsigned long ip;
	struct sfw_sec s;
	char what[64];
	size_t len;

	fres[0] = sfw_fre(0, false, 1, 8);
	fres[1] = sfw_fre(1, false, 2, 16, -16);
	for (v = 2; v <= 3; v++) {
		/* 20 functions, and an empty one where function k starts */
		for (k = 0; k < 20; k++) {
			snprintf(what, sizeof(what), "empty FDE v%u %u", v, k);
			sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, fdes, 21);
			for (i = 0, j = 0; i < 20; i++) {
				if (i == k)
					sfw_fde_init(&fdes[j++], t + 0x20 * i,
						     0, fres, 2);
				sfw_fde_init(&fdes[j++], t + 0x20 * i, 0x10,
					     fres, 2);
			}
			len = sfw_write(&s, buf, sizeof(buf));
			if (!setup_ok(&sec, buf, len, a, t, t + 0x280, what))
				continue;
			for (ip = t - 1, j = 0; ip <= t + 0x280; ip++) {
				while (j < 21 && ip >= fdes[j].start +
							fdes[j].size)
					j++;
				expect_fn(&sec, ip, j < 21 &&
					  ip >= fdes[j].start ? &fdes[j] : NULL,
					  what);
			}
			CHECK(lookup_rejects == 0, "%s: %lu rejects", what,
			      lookup_rejects);
		}

		/* The empty one before function 5 not empty: both at t + 0xa0 */
		for (i = 0, j = 0; i < 20; i++) {
			if (i == 5)
				sfw_fde_init(&fdes[j++], t + 0x20 * i, 0, fres,
					     2);
			sfw_fde_init(&fdes[j++], t + 0x20 * i, 0x10, fres, 2);
		}
		fdes[5].size = 1;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x280, "equal starts")) {
			expect_err(&sec, t + 0xa0, true, -EBADMSG, FDE_ORDER,
				   "equal starts");
			expect_err(&sec, t + 0xa5, true, -EBADMSG, FDE_ORDER,
				   "equal starts");
		}
		/* Function 4 runs into function 5, the empty one */
		fdes[5].size = 0;
		fdes[4].size = 0x21;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x280, "overlap")) {
			expect_err(&sec, t + 0x85, true, -EBADMSG, FDE_ORDER,
				   "overlap");
			expect_err(&sec, t + 0xa5, true, -EBADMSG, FDE_ORDER,
				   "overlap");
		}

		/*
		 * Function 54 runs into function 55, which the search read
		 * before: 32 functions spread over 3/4 of the text, 32 packed
		 * in the rest, so that the first block for function 54 lands
		 * past it, on 55 to 62, and the second one ends with 54.
		 */
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, fdes2, 64);
		for (i = 0; i < 64; i++)
			sfw_fde_init(&fdes2[i], i < 32 ? t + 0x60 * i :
					t + 0xc00 + 0x20 * (i - 32), 0x10, fres, 2);
		ip = fdes2[54].start + 1;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x1000, "overlap 54")) {
			expect_both(&sec, ip, two_fre_rule(&fdes2[54], ip),
				    "overlap 54");
			CHECK(last_reads == 3, "overlap 54: %lu reads, not 3",
			      last_reads);
		}
		fdes2[54].size = 0x21;
		len = sfw_write(&s, buf, sizeof(buf));
		if (setup_ok(&sec, buf, len, a, t, t + 0x1000, "overlap 54"))
			expect_err(&sec, ip, true, -EBADMSG, FDE_ORDER,
				   "overlap 54");
	}
}

/*
 * The work budget of a walk: each FDE and each FRE that a lookup reads
 * costs a unit (lookup() checks for every lookup of the tests that a budget
 * of exactly its cost is enough and one less is not).  A lookup that would
 * need more than is left fails with -E2BIG and leaves nothing, so that the
 * next lookups of the walk fail before reading anything.
 */
static void test_budget(void)
{
	const unsigned long a = 0x10000000UL, t = 0x40000000UL;
	static struct sfw_fde walk_fdes[140000];
	static struct sfw_fre fres[0xffff];
	const unsigned int max = 0xffff;
	unsigned long reads, ip, end;
	struct sframe_rule rule;
	struct sframe_section sec;
	struct sfw_fde fdes[2];
	unsigned int v, i, ok, big;
	uint32_t budget, used;
	uint64_t x = 1, e;
	struct sfw_sec s;
	size_t len;
	int ret;

	for (i = 0; i < max; i++)
		fres[i] = sfw_fre(i, false, 1, 8 * (1 + i % 16));
	for (v = 2; v <= 3; v++) {
		/* A function of 65535 FREs, what V3 can count, and a small one */
		sfw_sec_init(&s, v, SFW_ABI_AMD64_LE, a, fdes, 2);
		sfw_fde_init(&fdes[0], t, 0x20000, fres, max);
		sfw_fde_init(&fdes[1], t + 0x20000, 0x10, fres, 1);
		len = sfw_write(&s, buf, sizeof(buf));
		if (!setup_ok(&sec, buf, len, a, t, t + 0x20010, "budget"))
			continue;

		/* The two FDEs, and FREs up to the first past the address */
		expect_ok(&sec, t + 100, true, x86_rule(false, 8 * (1 + 100 % 16),
							false, 0), "budget");
		CHECK(last_cost == 2 + 102, "budget: cost %u, not 104",
		      last_cost);
		expect_ok(&sec, t + 0x1ffff, true,
			  x86_rule(false, 8 * (1 + (max - 1) % 16), false, 0),
			  "budget");
		CHECK(last_cost == 2 + max, "budget: cost %u, not %u",
		      last_cost, 2 + max);

		/* Exhausted in the middle of the scan */
		budget = 1000;
		test_reject_clear();
		ret = sframe_find_rule(&sec, t + 0x1ffff, true, &rule, &budget);
		CHECK(ret == -E2BIG && !budget &&
		      str_eq(test_last_reject(), OVER_BUDGET),
		      "budget mid-scan: %s, %u left", err_str(ret), budget);
		/* Then the next lookup fails at once, even a cheap one */
		reads = test_mem_reads();
		ret = sframe_find_rule(&sec, t + 0x20000, true, &rule, &budget);
		CHECK(ret == -E2BIG && !budget && test_mem_reads() == reads,
		      "budget spent: %s, %lu reads", err_str(ret),
		      test_mem_reads() - reads);
		/* But one that needs no work does not */
		ret = sframe_find_rule(&sec, t - 1, true, &rule, &budget);
		CHECK(ret == -ENOENT && !budget, "budget 0, outside: %s",
		      err_str(ret));

		/* Exactly enough for the longest scan */
		budget = 2 + max;
		ret = sframe_find_rule(&sec, t + 0x1ffff, true, &rule, &budget);
		CHECK(!ret && !budget, "budget exact: %s, %u left",
		      err_str(ret), budget);
		/* Enough for the search, not for the first FRE */
		budget = 2;
		ret = sframe_find_rule(&sec, t + 0x20000, true, &rule, &budget);
		CHECK(ret == -E2BIG && !budget, "budget search only: %s, %u left",
		      err_str(ret), budget);

		/*
		 * A walk through frames of the longest function: a few of
		 * its lookups are done, then every one fails at once.
		 */
		budget = SFRAME_WALK_BUDGET;
		reads = test_mem_reads();
		for (i = 0, ok = 0, big = 0; i < 510; i++) {
			ret = sframe_find_rule(&sec, t + 0x1ffff, false, &rule,
					       &budget);
			if (!ret)
				ok++;
			else if (ret == -E2BIG)
				big++;
			if (ret == -E2BIG && i == ok)
				reads = test_mem_reads();
		}
		CHECK(ok == SFRAME_WALK_BUDGET / (2 + max) && big == 510 - ok &&
		      test_mem_reads() == reads,
		      "budget walk: %u lookups done, %u failed, %lu reads after",
		      ok, big, test_mem_reads() - reads);
	}

	/*
	 * A deep walk of ordinary frames comes nowhere near the budget: 510
	 * lookups in a section of 140,000 functions.
	 */
	len = sfw_random_section(&s, 3, a, walk_fdes, ARRAY_SIZE(walk_fdes), t,
				 &e, &x, buf, sizeof(buf));
	end = e;
	if (!len || !setup_ok(&sec, buf, len, a, t, end, "budget walk"))
		return;
	budget = SFRAME_WALK_BUDGET;
	for (i = 0; i < 510; i++) {
		ip = t + sfw_random(&x) % (end - t);
		ret = sframe_find_rule(&sec, ip, false, &rule, &budget);
		CHECK(ret == 0 || ret == -ENOENT, "budget walk: %s",
		      err_str(ret));
	}
	used = SFRAME_WALK_BUDGET - budget;
	CHECK(used < SFRAME_WALK_BUDGET / 8, "budget walk: %u used", used);
	printf("# a walk of 510 frames in 140,000 FDEs took %u of the budget's %u units\n",
	       used, SFRAME_WALK_BUDGET);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		seed_dir = argv[2];

	test_v3_example();
	test_layouts();
	test_addr2_aux();
	test_pcmask();
	test_outermost();
	test_signal();
	test_aarch64();
	test_fixed_fp();
	test_flex();
	test_flex_regs();
	test_real();
	test_real_split();
	test_many_fdes();
	test_skewed_fdes();
	test_random_fdes();
	test_segments();
	test_faults();
	test_fre_readahead();
	test_changes();
	test_fre_at_end();
	test_empty_fdes();
	test_budget();
	test_header();
	test_relocated();
	test_jit(seed_dir);
	return finish("unit");
}
