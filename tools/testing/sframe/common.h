/* SPDX-License-Identifier: GPL-2.0 */
/* What the harness's test programs share: checks, rules, fuzz inputs. */
#ifndef _SFRAME_TEST_COMMON_H
#define _SFRAME_TEST_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/sframe.h>

#include "test_mem.h"

extern unsigned long nr_checks, nr_failures;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Count a check; print it as a KTAP diagnostic line when it fails. */
#define CHECK(cond, ...) do {						\
	nr_checks++;							\
	if (!(cond)) {							\
		nr_failures++;						\
		printf("# FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/* DWARF register numbers, for the flex rules the tests write */
#define X86_RBP		6
#define X86_RSP		7
#define A64_FP		29
#define A64_LR		30
#define A64_SP		31

/* Rule locations: LOC_REG() is for registers other than SP and FP */
#define LOC_REG(r, d, o) ((struct sframe_loc){ SFRAME_LOC_REG, (r), (d), (o) })
#define LOC_SP(d, o)	((struct sframe_loc){ SFRAME_LOC_SP, 0, (d), (o) })
#define LOC_FP(d, o)	((struct sframe_loc){ SFRAME_LOC_FP, 0, (d), (o) })
#define LOC_CFA(d, o)	((struct sframe_loc){ SFRAME_LOC_CFA, 0, (d), (o) })
#define LOC_SAME	((struct sframe_loc){ SFRAME_LOC_SAME, 0, false, 0 })
#define LOC_UNDEF	((struct sframe_loc){ SFRAME_LOC_UNDEFINED, 0, false, 0 })

static inline struct sframe_rule mkrule(struct sframe_loc cfa,
					struct sframe_loc ra,
					struct sframe_loc fp, uint32_t flags)
{
	struct sframe_rule r = { .cfa = cfa, .ra = ra, .fp = fp,
				 .flags = flags };
	return r;
}

/* x86-64 default-FDE rule: CFA = SP/FP + off, RA at CFA - 8, FP if saved */
struct sframe_rule x86_rule(bool fp_base, int32_t cfa, bool fp_saved,
			    int32_t fp);
/* The outermost-frame rule: CFA = SP, RA undefined, FP unchanged */
struct sframe_rule outermost_rule(uint32_t flags);

bool rule_eq(const struct sframe_rule *a, const struct sframe_rule *b);
/* Format a rule into @buf, for diagnostics */
const char *rule_str(const struct sframe_rule *r, char *buf, size_t len);
const char *err_str(int err);
/* Equal strings, or both NULL */
bool str_eq(const char *a, const char *b);

/*
 * Map @len bytes of @buf at @addr as the only readable section, with the
 * window on it, and set it up.  Returns sframe_section_init()'s result.
 */
int setup(struct sframe_section *sec, const void *buf, size_t len,
	  unsigned long addr, unsigned long text_start,
	  unsigned long text_end);
/*
 * The same for a section mapped apart from its object, as a sidecar file
 * is: the bytes at @addr, their offsets relative to @sframe_addr.
 */
int setup_at(struct sframe_section *sec, const void *buf, size_t len,
	     unsigned long addr, unsigned long sframe_addr,
	     unsigned long text_start, unsigned long text_end);

/* A budget that no lookup exhausts, for the tests not about the budget */
#define PLENTY		UINT32_MAX
#define OVER_BUDGET	"work budget of the walk exhausted"

/*
 * Look up @ip with a budget of PLENTY: the result, the reject reason in
 * *@why and the work taken in *@cost.  Then check the budget's contract on
 * the same lookup: with exactly *@cost it gives the same result and leaves
 * nothing, with one unit less it fails with -E2BIG and leaves nothing.
 */
int lookup(const struct sframe_section *sec, unsigned long ip, bool topmost,
	   struct sframe_rule *rule, const char **why, uint32_t *cost,
	   const char *what);

/*
 * The work, and the copy_from_user() calls, that the last lookup() took;
 * the sframe_reject() calls of lookups since the last setup(), not counting
 * those of lookup()'s budget checks.
 */
extern uint32_t last_cost;
extern unsigned long last_reads, lookup_rejects;

/*
 * Look up @ip and check the result: @ret, the rule if 0, and the reject
 * reason (NULL for none) otherwise.  @what names the case in failures.
 */
void expect(const struct sframe_section *sec, unsigned long ip, bool topmost,
	    int ret, const struct sframe_rule *rule, const char *why,
	    const char *what);

/* Print the KTAP-diagnostic summary line that run_tests.sh parses. */
int finish(const char *unit);

/*
 * Fuzz input: a struct fuzz_hdr, then the section bytes.  The section is
 * mapped at FUZZ_SEC_ADDR, the text at FUZZ_SEC_ADDR + text_rel.  With
 * FUZZ_DELTA, the section's offsets are relative to FUZZ_SEC_ADDR +
 * fuzz_delta(delta) (sframe_addr), as a sidecar file's are.  With FUZZ_JIT,
 * the bytes are the room of a JIT registration's first table
 * (CODECTL_REGISTER_JIT), whose chain may lead back into them.
 */
#define FUZZ_SEC_ADDR	0x100000000UL
#define FUZZ_TOPMOST	0x01
#define FUZZ_ABI_SHIFT	1	/* 2 bits: 0 any, 1 AMD64, 2 AArch64 LE, 3 none */
#define FUZZ_HOLE	0x08	/* leave [hole_off, hole_off + hole_len) out */
#define FUZZ_DELTA	0x10	/* sframe_addr is not the section's address */
#define FUZZ_JIT	0x20	/* the bytes are JIT tables, not a section */

/*
 * sframe_addr - FUZZ_SEC_ADDR for a fuzz_hdr's delta: an odd delta in
 * steps of 1 MiB + 1 (up to 32 GiB: out of a V2 offset's reach, or below
 * 0), an even one in steps of 17 bytes (up to 278 KiB).
 */
static inline long fuzz_delta(int16_t delta)
{
	return (delta >> 1) * (delta & 1 ? 0x100001L : 17L);
}

struct fuzz_hdr {
	uint8_t		mode;
	uint8_t		nr_ips;		/* extra lookups, at ip + k * stride */
	uint16_t	hole_off;
	uint16_t	hole_len;
	int16_t		delta;		/* with FUZZ_DELTA */
	int64_t		text_rel;
	uint32_t	text_size;
	uint32_t	ip_off;		/* from the text start */
	uint32_t	stride;
} __packed;

/*
 * Write a seed file for the fuzzer into @dir; with @delta not 0, one whose
 * sframe_addr is fuzz_delta(@delta) away, and the text with it.
 */
int write_seed(const char *dir, const char *name, const void *sec,
	       size_t len, unsigned long addr, unsigned long text_start,
	       unsigned long text_end, unsigned long ip, bool topmost,
	       int16_t delta);
/* Write a seed file for the fuzzer: @h, then @len bytes of @data */
int write_seed_hdr(const char *dir, const char *name,
		   const struct fuzz_hdr *h, const void *data, size_t len);

/* The unit tests of JIT tables (unit_jit.c); seeds into @seeds if set */
void test_jit(const char *seeds);

#endif
