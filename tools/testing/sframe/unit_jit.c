// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the JIT tables (kernel/unwind/sframe_jit.c): tables as a
 * JIT registers them with CODECTL_REGISTER_JIT, built in fake user memory,
 * and what sframe_jit_init() and sframe_jit_find_rule() make of them: the
 * rule of each live entry, the fall backs (-ENOENT) for what no live entry
 * covers, and the verdict on each way a table can break the rules.  Each
 * valid table is also a fuzz seed (FUZZ_JIT) with --seeds.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "common.h"
#include "sfw.h"
#include "../../include/tools/codectl_jit.h"

/* The tables live where the fuzzer maps its input: seeds chain inside it */
#define JA		FUZZ_SEC_ADDR
#define JT		0x7f0000000000UL	/* the code area */
#define JT_SIZE		0x1000UL
#define STRIDE		16
/* The work a lookup may take: each table's header, search and entry */
#define JIT_MAX_COST	(CODECTL_JIT_MAX_TABLES * (1 + 64 + 5))

static uint64_t jbuf[4096 / 8];
static const char *seed_dir;
static unsigned int nr_jit_seeds;
/* The copy_from_user() calls of the last lookup jexpect() checked */
static unsigned long jit_reads;

static struct codectl_jit_table *table_at(unsigned long off)
{
	return (struct codectl_jit_table *)((char *)jbuf + off);
}

static unsigned long table_addr(const struct codectl_jit_table *t)
{
	return JA + (unsigned long)((const char *)t - (const char *)jbuf);
}

static struct codectl_jit_table *table_new(unsigned long off,
					   unsigned int stride,
					   unsigned long reserved)
{
	struct codectl_jit_table *t = table_at(off);

	memset(t, 0, codectl_jit_table_bytes(stride, reserved));
	codectl_jit_table_init(t, stride, reserved);
	return t;
}

/* Append an entry whose FRE has @n 1-byte words, as a JIT does */
static void append(struct codectl_jit_table *t, uint32_t off, uint32_t size,
		   uint8_t base, uint8_t type, unsigned int n, ...)
{
	unsigned char words[8];
	va_list ap;
	unsigned int k;

	va_start(ap, n);
	for (k = 0; k < n; k++)
		words[k] = (unsigned char)va_arg(ap, int);
	va_end(ap);
	CHECK(codectl_jit_append(t, off, size,
				 CODECTL_JIT_INFO(base, n, CODECTL_JIT_WORD_1B),
				 type, words, n) >= 0,
	      "a JIT cannot append [%u, +%u)", off, size);
}

/* Map the tables' bytes at JA, the code area at JT; sframe_jit_init() */
static int jit_setup(struct sframe_section *sec, size_t room,
		     unsigned long text_size)
{
	test_mem_reset();
	test_mem_map(JA, jbuf, sizeof(jbuf));
	/* A chain may lead anywhere: reads are bounded by the budget */
	test_mem_set_window(0, ~0UL);
	return sframe_jit_init(sec, JA, JA + room, JT, JT + text_size);
}

static void jit_seed(size_t room, bool a64)
{
	struct fuzz_hdr h = {
		.mode = FUZZ_TOPMOST | FUZZ_JIT | (a64 ? 2 : 1) << FUZZ_ABI_SHIFT,
		.nr_ips = 15,
		.text_rel = (int64_t)(JT - JA),
		.text_size = JT_SIZE,
		.ip_off = 0,
		.stride = 7,
	};
	char name[64];

	if (!seed_dir)
		return;
	snprintf(name, sizeof(name), "jit-%02u", nr_jit_seeds++);
	write_seed_hdr(seed_dir, name, &h, jbuf, room);
}

/*
 * Look @ip up, checking the budget's contract as lookup() does for
 * sections, and compare with what is expected.
 */
static void jexpect(const struct sframe_section *sec, unsigned long ip,
		    bool topmost, int err, const struct sframe_rule *want,
		    const char *why, const char *what)
{
	struct sframe_rule rule, again;
	uint32_t budget = PLENTY, cost;
	char b1[128], b2[128];
	int ret;

	test_reject_clear();
	jit_reads = test_mem_reads();
	ret = sframe_jit_find_rule(sec, ip, topmost, &rule, &budget);
	jit_reads = test_mem_reads() - jit_reads;
	CHECK(ret == err, "%s: %s, expected %s", what, err_str(ret),
	      err_str(err));
	CHECK(str_eq(test_last_reject(), why), "%s: rejected for \"%s\"",
	      what, test_last_reject() ?: "-");
	if (!ret && want)
		CHECK(rule_eq(&rule, want), "%s: rule %s, expected %s", what,
		      rule_str(&rule, b1, sizeof(b1)),
		      rule_str(want, b2, sizeof(b2)));
	cost = PLENTY - budget;
	CHECK(cost <= JIT_MAX_COST, "%s: cost %u", what, cost);
	budget = cost;
	CHECK(sframe_jit_find_rule(sec, ip, topmost, &again, &budget) == ret &&
	      !budget, "%s: not the same with the budget it took", what);
	if (cost) {
		budget = cost - 1;
		test_reject_clear();
		CHECK(sframe_jit_find_rule(sec, ip, topmost, &again,
					   &budget) == -E2BIG && !budget &&
		      str_eq(test_last_reject(), OVER_BUDGET),
		      "%s: not over the budget with one unit less", what);
	}
}

static struct sframe_rule volatile_rule(struct sframe_rule r)
{
	r.flags |= SFRAME_RULE_VOLATILE;
	return r;
}

#define JIT_BAD_HDR	"bad JIT table header"
#define JIT_PAST_ROOM	"JIT table entries past its room"
#define JIT_OVERLAP	"JIT entries out of order or overlapping"

static void test_jit_init(void)
{
	struct sframe_section sec;
	struct codectl_jit_table *t;

	t = table_new(0, STRIDE, 4);
	CHECK(jit_setup(&sec, 4096, JT_SIZE) == 0, "init: a valid table");
	CHECK(sec.text_start == JT && sec.text_end == JT + JT_SIZE &&
	      sec.sframe_start == JA && sec.sframe_end == JA + 4096 &&
	      sec.abi_arch == SFW_ABI_AMD64_LE && sec.fixed_ra_offset == -8,
	      "init: the registration as the lookups use it");
	CHECK(jit_setup(&sec, 4096, 1UL << 32) == 0,
	      "init: a code area of 4 GiB");
	CHECK(jit_setup(&sec, 4096, (1UL << 32) + 1) == -EINVAL,
	      "init: a code area of more than 4 GiB");
	CHECK(sframe_jit_init(&sec, JA + 4, JA + 4096, JT, JT + 16) == -EINVAL,
	      "init: a misaligned table");
	CHECK(sframe_jit_init(&sec, JA, JA, JT, JT + 16) == -EINVAL,
	      "init: an empty room");
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT) == -EINVAL,
	      "init: an empty code area");
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, (1UL << 63) - 16,
			      1UL << 63) == -EINVAL,
	      "init: code past the user address space");
	CHECK(sframe_jit_init(&sec, JA, JA + 16, JT, JT + 16) == -ENOEXEC,
	      "init: a room smaller than a header");
	CHECK(sframe_jit_init(&sec, JA + 4096, JA + 8192, JT, JT + 16) ==
	      -EFAULT, "init: a header that is not mapped");

	/* Each bad header: its verdict and why */
	t->entry_size = 15;
	test_reject_clear();
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC &&
	      str_eq(test_last_reject(), JIT_BAD_HDR), "init: stride 15");
	t->entry_size = 260;
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC,
	      "init: stride 260");
	t->entry_size = 18;
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC,
	      "init: stride 18, not a multiple of 4");
	t->entry_size = STRIDE;
	t->version = 2;
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC,
	      "init: version 2");
	t->version = CODECTL_JIT_VERSION;
	t->used = 5;
	test_reject_clear();
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC &&
	      str_eq(test_last_reject(), JIT_PAST_ROOM),
	      "init: more used than reserved");
	t->used = 0;
	t->reserved = (4096 - 32) / STRIDE + 1;
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC,
	      "init: entries past the room");
	t->reserved = 1UL << 60;
	CHECK(sframe_jit_init(&sec, JA, JA + 4096, JT, JT + 16) == -ENOEXEC,
	      "init: a room that overflows");
}

static void test_jit_lookups(void)
{
	const struct sframe_rule r16 = volatile_rule(x86_rule(false, 16,
							      false, 0));
	const struct sframe_rule r24 = volatile_rule(x86_rule(false, 24,
							      true, -16));
	const struct sframe_rule rfp = volatile_rule(x86_rule(true, 16,
							      true, -16));
	struct codectl_jit_table *t, *t2;
	struct sframe_section sec;
	unsigned char words[2];

	t = table_new(0, STRIDE, 8);
	append(t, 0, 16, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 1, 16);
	append(t, 16, 24, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 2,
	       24, -16);
	append(t, 64, 16, 0, CODECTL_JIT_TYPE_DEFAULT, 2, 16, -16);
	if (jit_setup(&sec, 4096, JT_SIZE)) {
		CHECK(0, "lookups: the table was refused");
		return;
	}
	jit_seed(32 + 8 * STRIDE, false);
	jexpect(&sec, JT, true, 0, &r16, NULL, "the first byte");
	jexpect(&sec, JT + 15, false, 0, &r16, NULL, "the first entry's end");
	jexpect(&sec, JT + 16, true, 0, &r24, NULL, "the second entry");
	jexpect(&sec, JT + 39, false, 0, &r24, NULL, "its last byte");
	jexpect(&sec, JT + 40, true, -ENOENT, NULL, NULL, "a gap");
	jexpect(&sec, JT + 70, true, 0, &rfp, NULL, "CFA from FP");
	jexpect(&sec, JT + 80, true, -ENOENT, NULL, NULL, "after the last");
	jexpect(&sec, JT - 1, true, -ENOENT, NULL, NULL, "before the area");
	jexpect(&sec, JT + JT_SIZE, true, -ENOENT, NULL, NULL,
		"past the area");

	/* A retired entry covers nothing; its neighbours still count */
	codectl_jit_retire(t, 1);
	jexpect(&sec, JT + 20, true, -ENOENT, NULL, NULL, "a retired entry");
	jexpect(&sec, JT + 70, true, 0, &rfp, NULL, "after a retired entry");

	/* ... and a chained table may describe its range anew */
	t2 = table_new(256, 32, 2);
	append(t2, 16, 8, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 1, 16);
	t->next = table_addr(t2);
	jexpect(&sec, JT + 20, true, 0, &r16, NULL, "a chained table");
	jexpect(&sec, JT + 30, true, -ENOENT, NULL, NULL,
		"past the chained entry");
	jit_seed(256 + 32 + 2 * 32, false);

	/* The chain's end: unmapped, a loop */
	t->next = JA + 8192;
	jexpect(&sec, JT + 20, true, -EFAULT, NULL, NULL,
		"a chained table not mapped");
	t->next = JA + 4;
	jexpect(&sec, JT + 20, true, -EBADMSG, NULL,
		"JIT table address out of range", "a misaligned chained table");
	t->next = JA;
	jexpect(&sec, JT + 20, true, -EBADMSG, NULL,
		"JIT table chain too long", "a table chained to itself");
	/* Each of the 16 tables: its header, two probes, a retired state */
	CHECK(jit_reads == CODECTL_JIT_MAX_TABLES * 4,
	      "a table chained to itself: %lu reads", jit_reads);
	jexpect(&sec, JT, true, 0, &r16, NULL, "found before the loop");
	t->next = 0;
	words[0] = 24;
	words[1] = (unsigned char)-16;
	CHECK(!codectl_jit_rewrite(t, 1, 16, 24,
				   CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 2,
						    CODECTL_JIT_WORD_1B),
				   CODECTL_JIT_TYPE_DEFAULT, words, 2),
	      "rewrite");
	jexpect(&sec, JT + 20, true, 0, &r24, NULL, "live again, rewritten");
}

static void test_jit_hostile(void)
{
	const struct sframe_rule r16 = volatile_rule(x86_rule(false, 16,
							      false, 0));
	const struct sframe_rule outer = volatile_rule(outermost_rule(0));
	struct codectl_jit_table *t;
	struct codectl_jit_entry *e;
	struct sframe_section sec;

	t = table_new(0, STRIDE, 8);
	append(t, 0, 16, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 1, 16);
	append(t, 16, 24, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 1, 24);
	append(t, 64, 16, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 1, 32);
	if (jit_setup(&sec, 4096, JT_SIZE)) {
		CHECK(0, "hostile: the table was refused");
		return;
	}
	codectl_jit_entry(t, 1)->off = 8;
	jexpect(&sec, JT + 20, true, -EBADMSG, NULL, JIT_OVERLAP,
		"overlapping the previous entry");
	codectl_jit_entry(t, 1)->off = 16;
	codectl_jit_entry(t, 1)->size = 49;
	jexpect(&sec, JT + 20, true, -EBADMSG, NULL, JIT_OVERLAP,
		"overlapping the next entry");
	codectl_jit_entry(t, 1)->size = 24;
	codectl_jit_entry(t, 2)->off = 12;
	/* Only the entry a lookup lands on is checked, with its neighbours */
	jexpect(&sec, JT + 12, true, 0, &r16, NULL,
		"before entries out of order");
	jexpect(&sec, JT + 20, true, -EBADMSG, NULL, JIT_OVERLAP,
		"entries out of order");
	codectl_jit_entry(t, 2)->off = 64;

	e = codectl_jit_entry(t, 2);
	e->size = JT_SIZE;
	jexpect(&sec, JT + 70, true, -EBADMSG, NULL, "JIT entry out of place",
		"past the code area");
	e->size = 0;
	jexpect(&sec, JT + 64, true, -EBADMSG, NULL, "JIT entry out of place",
		"an empty entry");
	e->size = 16;
	e->type = 0x20;
	jexpect(&sec, JT + 64, true, -EOPNOTSUPP, NULL,
		"unknown JIT entry type", "a type with unknown bits");
	e->type = 7;
	jexpect(&sec, JT + 64, true, -EOPNOTSUPP, NULL, "unknown FDE type",
		"an unknown FDE type");
	e->type = CODECTL_JIT_TYPE_DEFAULT;
	/* 15 words of 4 bytes do not fit a 16-byte entry */
	e->info = CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 15, CODECTL_JIT_WORD_4B);
	jexpect(&sec, JT + 64, true, -EBADMSG, NULL,
		"JIT entry words past its stride", "words past the stride");
	e->info = CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 1, 3);
	jexpect(&sec, JT + 64, true, -EBADMSG, NULL,
		"JIT entry words past its stride", "a bad word size");
	/* No words: the outermost frame, as an FRE without offsets is */
	e->info = CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 0, CODECTL_JIT_WORD_1B);
	jexpect(&sec, JT + 64, false, 0, &outer, NULL, "no words");
	/*
	 * Entries published before they were written are zeros: not live.
	 * The search, which trusts the order, lands on them and falls back.
	 */
	t->used = 8;
	e->info = CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 1, CODECTL_JIT_WORD_1B);
	jexpect(&sec, JT + 70, true, -ENOENT, NULL, NULL,
		"published entries that were never written");
}

/* arm64's rules, as sframe_jit_init() makes the registration there */
static void test_jit_aarch64(void)
{
	const struct sframe_rule leaf_top =
		mkrule(LOC_SP(false, 0), LOC_REG(A64_LR, false, 0), LOC_SAME,
		       SFRAME_RULE_VOLATILE);
	const struct sframe_rule framed =
		mkrule(LOC_SP(false, 32), LOC_CFA(true, -8),
		       LOC_CFA(true, -16), SFRAME_RULE_VOLATILE);
	struct codectl_jit_table *t;
	struct sframe_section sec;

	t = table_new(0, STRIDE, 4);
	append(t, 0, 4, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 1, 0);
	append(t, 4, 28, CODECTL_JIT_CFA_SP, CODECTL_JIT_TYPE_DEFAULT, 3,
	       32, -8, -16);
	if (jit_setup(&sec, 4096, JT_SIZE)) {
		CHECK(0, "aarch64: the table was refused");
		return;
	}
	sec.abi_arch = SFW_ABI_AARCH64_LE;
	sec.fixed_ra_offset = 0;
	jit_seed(32 + 4 * STRIDE, true);
	jexpect(&sec, JT, true, 0, &leaf_top, NULL, "aarch64: RA in LR");
	jexpect(&sec, JT, false, -EOPNOTSUPP, NULL,
		"register rule in a non-topmost frame",
		"aarch64: LR in a caller's frame");
	jexpect(&sec, JT + 8, false, 0, &framed, NULL,
		"aarch64: RA and FP saved");
}

void test_jit(const char *seeds)
{
	seed_dir = seeds;
	test_jit_init();
	test_jit_lookups();
	test_jit_hostile();
	test_jit_aarch64();
}
