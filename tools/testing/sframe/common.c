// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the harness's test programs, see common.h. */
#include <errno.h>
#include <string.h>

#include "common.h"

unsigned long nr_checks, nr_failures;

struct sframe_rule x86_rule(bool fp_base, int32_t cfa, bool fp_saved,
			    int32_t fp)
{
	return mkrule(fp_base ? LOC_FP(false, cfa) : LOC_SP(false, cfa),
		      LOC_CFA(true, -8),
		      fp_saved ? LOC_CFA(true, fp) : LOC_SAME, 0);
}

struct sframe_rule outermost_rule(uint32_t flags)
{
	return mkrule(LOC_SP(false, 0), LOC_UNDEF, LOC_SAME,
		      SFRAME_RULE_OUTERMOST | flags);
}

static bool loc_eq(const struct sframe_loc *a, const struct sframe_loc *b)
{
	return a->kind == b->kind && a->reg == b->reg &&
	       a->deref == b->deref && a->offset == b->offset;
}

bool rule_eq(const struct sframe_rule *a, const struct sframe_rule *b)
{
	return loc_eq(&a->cfa, &b->cfa) && loc_eq(&a->ra, &b->ra) &&
	       loc_eq(&a->fp, &b->fp) && a->flags == b->flags;
}

static int loc_str(const struct sframe_loc *l, char *buf, size_t len)
{
	char reg[16];
	const char *base = reg;

	switch (l->kind) {
	case SFRAME_LOC_SAME:
		return snprintf(buf, len, "same");
	case SFRAME_LOC_UNDEFINED:
		return snprintf(buf, len, "undef");
	case SFRAME_LOC_CFA:
		base = "cfa";
		break;
	case SFRAME_LOC_SP:
		base = "sp";
		break;
	case SFRAME_LOC_FP:
		base = "fp";
		break;
	case SFRAME_LOC_REG:
		snprintf(reg, sizeof(reg), "r%u", l->reg);
		break;
	default:
		return snprintf(buf, len, "kind%u?", l->kind);
	}
	return snprintf(buf, len, "%s%s%+d%s", l->deref ? "*(" : "", base,
			l->offset, l->deref ? ")" : "");
}

const char *rule_str(const struct sframe_rule *r, char *buf, size_t len)
{
	char c[40], ra[40], fp[40];

	loc_str(&r->cfa, c, sizeof(c));
	loc_str(&r->ra, ra, sizeof(ra));
	loc_str(&r->fp, fp, sizeof(fp));
	snprintf(buf, len, "{cfa=%s ra=%s fp=%s flags=%#x}", c, ra, fp,
		 r->flags);
	return buf;
}

const char *err_str(int err)
{
	static char buf[16];

	switch (err) {
	case 0:
		return "0";
	case -ENOENT:
		return "-ENOENT";
	case -EFAULT:
		return "-EFAULT";
	case -EBADMSG:
		return "-EBADMSG";
	case -EOPNOTSUPP:
		return "-EOPNOTSUPP";
	case -ENOEXEC:
		return "-ENOEXEC";
	case -EINVAL:
		return "-EINVAL";
	case -E2BIG:
		return "-E2BIG";
	}
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

int setup_at(struct sframe_section *sec, const void *buf, size_t len,
	     unsigned long addr, unsigned long sframe_addr,
	     unsigned long text_start, unsigned long text_end)
{
	test_mem_reset();
	lookup_rejects = 0;
	if (len && test_mem_map(addr, buf, len)) {
		printf("# %s: cannot map %zu bytes at %#lx\n", __func__, len,
		       addr);
		return -1000;
	}
	test_mem_set_window(addr, addr + len);
	return sframe_section_init(sec, addr, addr + len, sframe_addr,
				   text_start, text_end);
}

int setup(struct sframe_section *sec, const void *buf, size_t len,
	  unsigned long addr, unsigned long text_start,
	  unsigned long text_end)
{
	return setup_at(sec, buf, len, addr, addr, text_start, text_end);
}

bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

uint32_t last_cost;
unsigned long last_reads, lookup_rejects;

int lookup(const struct sframe_section *sec, unsigned long ip, bool topmost,
	   struct sframe_rule *rule, const char **why, uint32_t *cost,
	   const char *what)
{
	unsigned long reads = test_mem_reads(), rejects = test_reject_count();
	uint32_t budget = PLENTY;
	struct sframe_rule again;
	int ret, ret2;

	test_reject_clear();
	ret = sframe_find_rule(sec, ip, topmost, rule, &budget);
	*why = test_last_reject();
	*cost = PLENTY - budget;
	last_cost = *cost;
	last_reads = test_mem_reads() - reads;
	lookup_rejects += test_reject_count() - rejects;

	budget = *cost;
	memset(&again, 0x5a, sizeof(again));
	ret2 = sframe_find_rule(sec, ip, topmost, &again, &budget);
	CHECK(ret2 == ret && !budget && (ret || rule_eq(rule, &again)),
	      "%s: ip %#lx%s: a budget of exactly %u: %s, %u left, want %s",
	      what, ip, topmost ? " (top)" : "", *cost, err_str(ret2),
	      budget, err_str(ret));
	if (*cost) {
		budget = *cost - 1;
		test_reject_clear();
		ret2 = sframe_find_rule(sec, ip, topmost, &again, &budget);
		CHECK(ret2 == -E2BIG && !budget &&
		      str_eq(test_last_reject(), OVER_BUDGET),
		      "%s: ip %#lx%s: a budget of %u, one short: %s \"%s\", %u left",
		      what, ip, topmost ? " (top)" : "", *cost - 1,
		      err_str(ret2), test_last_reject() ?: "", budget);
	}
	return ret;
}

void expect(const struct sframe_section *sec, unsigned long ip, bool topmost,
	    int ret, const struct sframe_rule *rule, const char *why,
	    const char *what)
{
	struct sframe_rule got;
	const char *reason;
	char b1[160], b2[160];
	uint32_t cost;
	int r;

	memset(&got, 0x5a, sizeof(got));
	r = lookup(sec, ip, topmost, &got, &reason, &cost, what);
	CHECK(r == ret, "%s: ip %#lx%s: got %s, want %s", what, ip,
	      topmost ? " (top)" : "", err_str(r), err_str(ret));
	if (r == ret && !r && rule)
		CHECK(rule_eq(&got, rule), "%s: ip %#lx%s: got %s, want %s",
		      what, ip, topmost ? " (top)" : "",
		      rule_str(&got, b1, sizeof(b1)),
		      rule_str(rule, b2, sizeof(b2)));
	if (r == ret && r)
		CHECK(str_eq(reason, why),
		      "%s: ip %#lx%s: reason \"%s\", want \"%s\"", what, ip,
		      topmost ? " (top)" : "", reason ?: "(none)",
		      why ?: "(none)");
}

int finish(const char *unit)
{
	printf("# %s: %lu checks, %lu failed\n", unit, nr_checks,
	       nr_failures);
	return nr_failures ? 1 : 0;
}

int write_seed(const char *dir, const char *name, const void *sec,
	       size_t len, unsigned long addr, unsigned long text_start,
	       unsigned long text_end, unsigned long ip, bool topmost,
	       int16_t delta)
{
	struct fuzz_hdr h = {
		.mode = (topmost ? FUZZ_TOPMOST : 0) | (delta ? FUZZ_DELTA : 0),
		.nr_ips = 8,
		.delta = delta,
		.text_rel = (int64_t)(text_start - addr) + fuzz_delta(delta),
		.text_size = (uint32_t)(text_end - text_start),
		.ip_off = (uint32_t)(ip - text_start),
		.stride = (uint32_t)((text_end - text_start) / 9 + 1),
	};

	return write_seed_hdr(dir, name, &h, sec, len);
}

int write_seed_hdr(const char *dir, const char *name,
		   const struct fuzz_hdr *h, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(h, sizeof(*h), 1, f);
	fwrite(data, len, 1, f);
	return fclose(f);
}
