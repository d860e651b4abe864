// SPDX-License-Identifier: GPL-2.0
/*
 * codectl(2): every documented error, what the kernel accepts, and the
 * lifetime of a registration.
 *
 * The error table below has one row per row of the error table of
 * Documentation/userspace-api/codectl.rst and of the ERRORS section of
 * codectl.2, with the same condition text: "codectl_errors --list-errors"
 * prints it, and codectl_doc_check.sh compares the three.
 *
 * Registrations use fresh anonymous mappings: executable pages as text, and
 * copies of this program's own .sframe section (it is built with
 * -Wa,--gsframe), unchanged or with one header field changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "codectl_util.h"

/* SFrame header fields (V2 and V3 share the header). */
#define SF_MAGIC	0		/* __u16 0xdee2 */
#define SF_VERSION	2
#define SF_FLAGS	3
#define SF_ABI		4
#define SF_NUM_FDES	8
#define SF_FRE_LEN	16
#define SF_FDES_OFF	20
#define SF_HDR_SIZE	28
#define SF_F_FDE_SORTED	0x1
#define SF_ABI_AARCH64_BE 1
#define SF_ABI_AARCH64_LE 2

/* Exit codes of "--count-codectl", after an exec. */
#define CT_COUNT_NO_EXEC	100	/* no registration made at exec */
#define CT_COUNT_ERROR		101	/* /proc/self/sframe unreadable */

struct fx {
	long page;
	struct ct_object self;		/* this program */
	const unsigned char *sframe;	/* its .sframe section */
	size_t sframe_size;
	void *none;			/* a PROT_NONE page */
	int baseline;			/* registrations made at exec */
};

/**
 * struct errcase - one documented error
 * @err: the errno
 * @name: its name
 * @cond: the condition, as the documentation words it
 * @run: makes the calls that must fail with @err
 */
struct errcase {
	int err;
	const char *name;
	const char *cond;
	bool (*run)(struct fx *fx, const struct errcase *c);
};

static bool expect(const struct errcase *c, int got, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (got == c->err)
		return true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ksft_print_msg("%s: got %s, want %s\n", what,
		       got ? strerrorname_np(got) : "success", c->name);
	return false;
}

static void *map_pages(struct fx *fx, long n, int prot)
{
	void *p = mmap(NULL, n * fx->page, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED) {
		ksft_print_msg("mmap of %ld pages: %s\n", n, strerror(errno));
		return NULL;
	}
	return p;
}

static unsigned long pg(struct fx *fx, void *base, long n)
{
	return (unsigned long)base + n * fx->page;
}

/* Pages of a copy of the section (sframe_copy() unmaps the next one). */
static long copy_pages(struct fx *fx)
{
	return (fx->sframe_size + fx->page - 1) / fx->page;
}

/*
 * A read-only copy of the program's .sframe in a fresh mapping, with
 * @len bytes at offset @off of the header replaced by @val (little-endian),
 * if @len is not 0.  The page after the copy is unmapped.
 */
static unsigned char *sframe_copy(struct fx *fx, size_t off, size_t len,
				  unsigned long val)
{
	long n = copy_pages(fx);
	unsigned char *p = map_pages(fx, n + 1, PROT_READ | PROT_WRITE);
	size_t i;

	if (!p)
		return NULL;
	munmap(p + n * fx->page, fx->page);
	memcpy(p, fx->sframe, fx->sframe_size);
	for (i = 0; i < len; i++)
		p[off + i] = val >> (8 * i);
	if (mprotect(p, n * fx->page, PROT_READ)) {
		ksft_print_msg("mprotect: %s\n", strerror(errno));
		munmap(p, n * fx->page);
		return NULL;
	}
	return p;
}

static void sframe_free(struct fx *fx, unsigned char *p)
{
	if (p)
		munmap(p, copy_pages(fx) * fx->page);
}

/* A registration of [text, text + n pages) with the section at @sf. */
static struct codectl_sframe reg_arg(struct fx *fx, void *text, long n,
				     const unsigned char *sf)
{
	struct codectl_sframe a = {
		.text_start = (unsigned long)text,
		.text_end = pg(fx, text, n),
		.sframe_start = (unsigned long)sf,
		.sframe_end = (unsigned long)sf + fx->sframe_size,
	};

	return a;
}

/* Remove every registration made by codectl. */
static void drop_codectl(void)
{
	struct ct_line l;
	int i;

	for (i = 0; i < CT_MAX_SECTIONS; i++) {
		if (ct_sframe_lines(0, &l, NULL, "codectl") <= 0)
			break;
		ct_unregister(l.text_start);
	}
}

/* A valid registration on fresh text and a fresh copy, for the rows. */
struct scratch {
	void *text;
	long pages;
	unsigned char *sf;
	struct codectl_sframe arg;
};

static bool scratch_get(struct fx *fx, struct scratch *s, long pages)
{
	memset(s, 0, sizeof(*s));
	s->pages = pages;
	s->text = map_pages(fx, pages, PROT_READ | PROT_EXEC);
	s->sf = sframe_copy(fx, 0, 0, 0);
	if (!s->text || !s->sf)
		return false;
	s->arg = reg_arg(fx, s->text, pages, s->sf);
	return true;
}

static void scratch_put(struct fx *fx, struct scratch *s)
{
	if (s->text)
		munmap(s->text, s->pages * fx->page);
	sframe_free(fx, s->sf);
}

/* ---- The error table's rows ---------------------------------------- */

static bool row_flags(struct fx *fx, const struct errcase *c)
{
	struct codectl_unregister u;
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	u.text_start = s.arg.text_start;
	ok = expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &s.arg,
				  sizeof(s.arg), 1), "register, flags 1");
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &s.arg,
				   sizeof(s.arg), 0x80000000),
		     "register, flags 0x80000000");
	ok &= expect(c, ct_codectl(CODECTL_UNREGISTER, &u, sizeof(u), 1),
		     "unregister, flags 1");
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_JIT, &s.arg,
				   sizeof(s.arg), 2), "JIT, flags 2");
	scratch_put(fx, &s);
	return ok;
}

static bool row_option(struct fx *fx, const struct errcase *c)
{
	static const unsigned int opts[] = { 3, 4, 0x7fffffff, 0xffffffff };
	struct scratch s;
	bool ok = true;
	unsigned int i;

	if (!scratch_get(fx, &s, 1))
		return false;
	for (i = 0; i < ARRAY_SIZE(opts); i++)
		ok &= expect(c, ct_codectl(opts[i], &s.arg, sizeof(s.arg), 0),
			     "option %#x", opts[i]);
	scratch_put(fx, &s);
	return ok;
}

static bool row_jit(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	ok = expect(c, ct_codectl(CODECTL_REGISTER_JIT, &s.arg, sizeof(s.arg),
				  0), "CODECTL_REGISTER_JIT, a valid SFrame info");
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_JIT, NULL, 0, 0),
		     "CODECTL_REGISTER_JIT, no info");
	scratch_put(fx, &s);
	return ok;
}

static bool row_size_small(struct fx *fx, const struct errcase *c)
{
	static const size_t reg[] = { 0, 1, CODECTL_SFRAME_SIZE_VER0 - 1 };
	static const size_t unreg[] = { 0, CODECTL_UNREGISTER_SIZE_VER0 - 1 };
	struct codectl_unregister u;
	struct scratch s;
	bool ok = true;
	unsigned int i;

	if (!scratch_get(fx, &s, 1))
		return false;
	u.text_start = s.arg.text_start;
	for (i = 0; i < ARRAY_SIZE(reg); i++)
		ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &s.arg,
					   reg[i], 0),
			     "register, info_size %zu", reg[i]);
	for (i = 0; i < ARRAY_SIZE(unreg); i++)
		ok &= expect(c, ct_codectl(CODECTL_UNREGISTER, &u, unreg[i], 0),
			     "unregister, info_size %zu", unreg[i]);
	scratch_put(fx, &s);
	return ok;
}

static bool row_null(struct fx *fx, const struct errcase *c)
{
	bool ok;

	(void)fx;
	ok = expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, NULL,
				  sizeof(struct codectl_sframe), 0),
		    "register, info NULL");
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, NULL,
				   CODECTL_SFRAME_SIZE_VER0, 0),
		     "register, info NULL, version 0 size");
	ok &= expect(c, ct_codectl(CODECTL_UNREGISTER, NULL,
				   sizeof(struct codectl_unregister), 0),
		     "unregister, info NULL");
	return ok;
}

static bool row_info_fault(struct fx *fx, const struct errcase *c)
{
	unsigned char *two = map_pages(fx, 2, PROT_READ | PROT_WRITE);
	struct codectl_sframe *half;
	struct scratch s;
	bool ok;

	if (!two || !scratch_get(fx, &s, 1))
		return false;
	/* A structure whose second half lies on a PROT_NONE page. */
	mprotect(two + fx->page, fx->page, PROT_NONE);
	half = (void *)(two + fx->page - sizeof(*half) / 2);
	memcpy(half, &s.arg, sizeof(*half) / 2);

	ok = expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, fx->none,
				  sizeof(struct codectl_sframe), 0),
		    "register, info on a PROT_NONE page");
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, half,
				   sizeof(*half), 0),
		     "register, info half on a PROT_NONE page");
	ok &= expect(c, ct_codectl(CODECTL_UNREGISTER, fx->none,
				   sizeof(struct codectl_unregister), 0),
		     "unregister, info on a PROT_NONE page");
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME,
				   (void *)0x10000000000000UL,
				   sizeof(struct codectl_sframe), 0),
		     "register, info at a non-canonical address");
	munmap(two, 2 * fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool row_e2big(struct fx *fx, const struct errcase *c)
{
	struct {
		struct codectl_sframe arg;
		unsigned char tail[64];
	} big;
	struct {
		struct codectl_unregister arg;
		unsigned char tail[8];
	} ubig;
	unsigned char *page = map_pages(fx, 1, PROT_READ | PROT_WRITE);
	struct scratch s;
	bool ok;

	if (!page || !scratch_get(fx, &s, 1))
		return false;
	memset(&big, 0, sizeof(big));
	big.arg = s.arg;
	big.tail[63] = 1;
	ok = expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &big, sizeof(big),
				  0), "register, last of 64 extra bytes 1");
	big.tail[63] = 0;
	big.tail[0] = 0x80;
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &big, sizeof(big),
				   0), "register, first of 64 extra bytes 0x80");

	/* A whole page of structure, the last byte not zero. */
	memcpy(page, &s.arg, sizeof(s.arg));
	page[fx->page - 1] = 1;
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, page, fx->page, 0),
		     "register, info_size %ld, last byte 1", fx->page);

	memset(&ubig, 0, sizeof(ubig));
	ubig.arg.text_start = s.arg.text_start;
	ubig.tail[3] = 1;
	ok &= expect(c, ct_codectl(CODECTL_UNREGISTER, &ubig, sizeof(ubig), 0),
		     "unregister, an extra byte 1");
	munmap(page, fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool row_size_page(struct fx *fx, const struct errcase *c)
{
	unsigned char *two = map_pages(fx, 2, PROT_READ | PROT_WRITE);
	struct codectl_unregister u;
	struct scratch s;
	bool ok;

	if (!two || !scratch_get(fx, &s, 1))
		return false;
	/* A valid structure, followed by zeros only. */
	memcpy(two, &s.arg, sizeof(s.arg));
	ok = expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, two, fx->page + 1,
				  0), "register, info_size %ld, zero tail",
		    fx->page + 1);
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, two, 2 * fx->page,
				   0), "register, info_size %ld, zero tail",
		     2 * fx->page);
	u.text_start = s.arg.text_start;
	memcpy(two, &u, sizeof(u));
	ok &= expect(c, ct_codectl(CODECTL_UNREGISTER, two, fx->page + 1, 0),
		     "unregister, info_size %ld, zero tail", fx->page + 1);
	munmap(two, 2 * fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool row_text_empty(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.text_end = s.arg.text_start;
	ok = expect(c, ct_register(&s.arg), "text_end == text_start");
	s.arg.text_start = 0;
	s.arg.text_end = 0;
	ok &= expect(c, ct_register(&s.arg), "text range 0-0");
	scratch_put(fx, &s);
	return ok;
}

static bool row_text_wrap(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 2))
		return false;
	s.arg.text_end = s.arg.text_start;
	s.arg.text_start = pg(fx, s.text, 2);
	ok = expect(c, ct_register(&s.arg), "text_end below text_start");
	s.arg.text_end = 1;
	ok &= expect(c, ct_register(&s.arg), "text_end 1");
	scratch_put(fx, &s);
	return ok;
}

static bool row_sframe_empty(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.sframe_end = s.arg.sframe_start;
	ok = expect(c, ct_register(&s.arg), "sframe_end == sframe_start");
	s.arg.sframe_end = s.arg.sframe_start - 4;
	ok &= expect(c, ct_register(&s.arg), "sframe_end below sframe_start");
	scratch_put(fx, &s);
	return ok;
}

static bool row_above_task(struct fx *fx, const struct errcase *c)
{
	struct codectl_sframe a;
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	a = s.arg;
	a.text_end = 1UL << 63;
	ok = expect(c, ct_register(&a), "text_end 1 << 63");
	a = s.arg;
	a.sframe_end = ~0UL;
	ok &= expect(c, ct_register(&a), "sframe_end ~0");
	a = s.arg;
	a.text_start = 0xffffffff81000000UL;
	a.text_end = 0xffffffff82000000UL;
	ok &= expect(c, ct_register(&a), "text in the kernel's half");
	a = s.arg;
	a.sframe_start = 0xffffffff81000000UL;
	a.sframe_end = 0xffffffff81001000UL;
	ok &= expect(c, ct_register(&a), ".sframe in the kernel's half");
	scratch_put(fx, &s);
	return ok;
}

static bool row_unaligned(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok = true;
	int i;

	if (!scratch_get(fx, &s, 1))
		return false;
	for (i = 1; i < 4; i++) {
		struct codectl_sframe a = s.arg;

		a.sframe_start += i;
		ok &= expect(c, ct_register(&a), "sframe_start + %d", i);
	}
	scratch_put(fx, &s);
	return ok;
}

static bool row_text_unmapped(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 3))
		return false;
	/* A hole in the middle of the text. */
	munmap((char *)s.text + fx->page, fx->page);
	ok = expect(c, ct_register(&s.arg), "text with a hole");
	s.arg.text_end = pg(fx, s.text, 2);
	ok &= expect(c, ct_register(&s.arg), "text ending in the hole");
	s.arg.text_start = pg(fx, s.text, 1);
	ok &= expect(c, ct_register(&s.arg), "text in the hole");
	s.arg.text_end = pg(fx, s.text, 3);
	ok &= expect(c, ct_register(&s.arg), "text starting in the hole");
	munmap(s.text, fx->page);
	munmap((char *)s.text + 2 * fx->page, fx->page);
	s.text = NULL;
	scratch_put(fx, &s);
	return ok;
}

static bool row_sframe_unmapped(struct fx *fx, const struct errcase *c)
{
	struct codectl_sframe a;
	struct scratch s;
	unsigned long after;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	/* sframe_copy() leaves the page after the copy unmapped. */
	after = pg(fx, s.sf, copy_pages(fx));
	a = s.arg;
	a.sframe_end = after + 8;
	ok = expect(c, ct_register(&a), ".sframe running into an unmapped page");
	a.sframe_start = after;
	ok &= expect(c, ct_register(&a), ".sframe on an unmapped page");
	scratch_put(fx, &s);
	return ok;
}

static bool row_text_noexec(struct fx *fx, const struct errcase *c)
{
	struct codectl_sframe a;
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 2))
		return false;
	/* Two VMAs: executable, then readable only. */
	mprotect((char *)s.text + fx->page, fx->page, PROT_READ);
	a = s.arg;
	ok = expect(c, ct_register(&a), "text executable, then not");
	a.text_start = pg(fx, s.text, 1);
	ok &= expect(c, ct_register(&a), "text readable, not executable");
	mprotect((char *)s.text + fx->page, fx->page, PROT_NONE);
	ok &= expect(c, ct_register(&a), "text PROT_NONE");
	scratch_put(fx, &s);
	return ok;
}

static bool row_sframe_noread(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	mprotect(s.sf, copy_pages(fx) * fx->page, PROT_NONE);
	ok = expect(c, ct_register(&s.arg), ".sframe PROT_NONE");
	s.arg.sframe_start = (unsigned long)fx->none;
	s.arg.sframe_end = pg(fx, fx->none, 1);
	ok &= expect(c, ct_register(&s.arg), ".sframe on another PROT_NONE page");
	scratch_put(fx, &s);
	return ok;
}

static bool row_header_fault(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	void *beyond;
	bool ok;
	int fd;

	if (!scratch_get(fx, &s, 1))
		return false;
	/* A readable mapping of an empty file: reading it raises SIGBUS. */
	fd = memfd_create("codectl-empty", MFD_CLOEXEC);
	if (fd < 0) {
		ksft_print_msg("memfd_create: %s\n", strerror(errno));
		scratch_put(fx, &s);
		return false;
	}
	beyond = mmap(NULL, fx->page, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (beyond == MAP_FAILED) {
		ksft_print_msg("mmap of an empty memfd: %s\n", strerror(errno));
		scratch_put(fx, &s);
		return false;
	}
	s.arg.sframe_start = (unsigned long)beyond;
	s.arg.sframe_end = pg(fx, beyond, 1);
	ok = expect(c, ct_register(&s.arg),
		    ".sframe mapped past the end of its file");
	munmap(beyond, fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool row_short(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.sframe_end = s.arg.sframe_start + SF_HDR_SIZE - 1;
	ok = expect(c, ct_register(&s.arg), ".sframe of %d bytes",
		    SF_HDR_SIZE - 1);
	s.arg.sframe_end = s.arg.sframe_start + 4;
	ok &= expect(c, ct_register(&s.arg), ".sframe of 4 bytes");
	scratch_put(fx, &s);
	return ok;
}

/* Register a copy with one header field changed; the errno. */
static bool try_field(struct fx *fx, const struct errcase *c, size_t off,
		      size_t len, unsigned long val, const char *what)
{
	unsigned char *sf = sframe_copy(fx, off, len, val);
	void *text = map_pages(fx, 1, PROT_READ | PROT_EXEC);
	struct codectl_sframe a;
	bool ok = false;

	if (sf && text) {
		a = reg_arg(fx, text, 1, sf);
		ok = expect(c, ct_register(&a), "%s %#lx", what, val);
	}
	if (text)
		munmap(text, fx->page);
	sframe_free(fx, sf);
	return ok;
}

static bool row_magic(struct fx *fx, const struct errcase *c)
{
	bool ok;

	ok = try_field(fx, c, SF_MAGIC, 2, 0xdee3, "magic");
	ok &= try_field(fx, c, SF_MAGIC, 2, 0xe2de, "magic");
	ok &= try_field(fx, c, SF_MAGIC, 2, 0, "magic");
	return ok;
}

static bool row_version(struct fx *fx, const struct errcase *c)
{
	bool ok;

	ok = try_field(fx, c, SF_VERSION, 1, 0, "version");
	ok &= try_field(fx, c, SF_VERSION, 1, 1, "version");
	ok &= try_field(fx, c, SF_VERSION, 1, 4, "version");
	ok &= try_field(fx, c, SF_VERSION, 1, 0xff, "version");
	return ok;
}

static bool row_abi(struct fx *fx, const struct errcase *c)
{
	bool ok;

	ok = try_field(fx, c, SF_ABI, 1, 0, "ABI");
	ok &= try_field(fx, c, SF_ABI, 1, SF_ABI_AARCH64_BE, "ABI");
	ok &= try_field(fx, c, SF_ABI, 1, SF_ABI_AARCH64_LE, "ABI");
	ok &= try_field(fx, c, SF_ABI, 1, 4, "ABI");
	ok &= try_field(fx, c, SF_ABI, 1, 0xff, "ABI");
	return ok;
}

static bool row_hdr_flags(struct fx *fx, const struct errcase *c)
{
	unsigned int flags = fx->sframe[SF_FLAGS];
	bool ok;

	ok = try_field(fx, c, SF_FLAGS, 1, flags | 0x80, "flags");
	ok &= try_field(fx, c, SF_FLAGS, 1, flags | 0x08, "flags");
	ok &= try_field(fx, c, SF_FLAGS, 1, flags & ~SF_F_FDE_SORTED, "flags");
	return ok;
}

static bool row_bounds(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;

	ok = try_field(fx, c, SF_NUM_FDES, 4, 0x7fffffff, "num_fdes");
	ok &= try_field(fx, c, SF_FRE_LEN, 4, 0xfffffff0, "fre_len");
	ok &= try_field(fx, c, SF_FDES_OFF, 4, fx->sframe_size, "fdes_off");
	/* The section cut short: its sub-sections no longer fit. */
	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.sframe_end = s.arg.sframe_start + SF_HDR_SIZE + 4;
	ok &= expect(c, ct_register(&s.arg), ".sframe cut to %d bytes",
		     SF_HDR_SIZE + 4);
	scratch_put(fx, &s);
	return ok;
}

static bool row_overlap(struct fx *fx, const struct errcase *c)
{
	struct codectl_sframe a;
	struct scratch s;
	bool ok;
	int ret;

	if (!scratch_get(fx, &s, 4))
		return false;
	a = s.arg;
	a.text_start = pg(fx, s.text, 1);
	a.text_end = pg(fx, s.text, 3);
	ret = ct_register(&a);
	if (ret) {
		ksft_print_msg("registering text pages 1-2: %s\n",
			       strerror(ret));
		scratch_put(fx, &s);
		return false;
	}
	ok = expect(c, ct_register(&a), "the same text again");
	a.text_start = pg(fx, s.text, 0);
	a.text_end = pg(fx, s.text, 2);
	ok &= expect(c, ct_register(&a), "text pages 0-1");
	a.text_start = pg(fx, s.text, 2);
	a.text_end = pg(fx, s.text, 4);
	ok &= expect(c, ct_register(&a), "text pages 2-3");
	a.text_start = pg(fx, s.text, 1) + 16;
	a.text_end = a.text_start + 16;
	ok &= expect(c, ct_register(&a), "16 bytes inside");
	ok &= expect(c, ct_register(&s.arg), "text pages 0-3, around it");
	ct_unregister(pg(fx, s.text, 1));
	scratch_put(fx, &s);
	return ok;
}

static bool row_overlap_exec(struct fx *fx, const struct errcase *c)
{
	struct codectl_sframe a;
	struct ct_line l;
	int n = 0;
	bool ok;

	ct_sframe_lines(fx->self.text_start[0], &l, &n, "exec");
	if (n != 1) {
		ksft_print_msg("no registration at exec for this program's text %#lx-%#lx\n",
			       fx->self.text_start[0], fx->self.text_end[0]);
		ct_sframe_dump();
		return false;
	}
	a = (struct codectl_sframe){
		.text_start = fx->self.text_start[0],
		.text_end = fx->self.text_end[0],
		.sframe_start = fx->self.sframe_start,
		.sframe_end = fx->self.sframe_end,
	};
	ok = expect(c, ct_register(&a), "this program's own text and .sframe");
	a.text_start += 64;
	a.text_end = a.text_start + 64;
	ok &= expect(c, ct_register(&a), "64 bytes inside this program's text");
	return ok;
}

static bool row_enospc(struct fx *fx, const struct errcase *c)
{
	long pages = CT_MAX_SECTIONS + 16, i, done = 0;
	unsigned char *sf = sframe_copy(fx, 0, 0, 0);
	void *text = map_pages(fx, pages, PROT_READ | PROT_EXEC);
	struct codectl_sframe a;
	int ret = 0, base, after;
	bool ok = false;

	base = ct_sframe_lines(0, NULL, NULL, NULL);
	if (!sf || !text || base < 0)
		goto out;
	for (i = 0; i < pages; i++) {
		a = reg_arg(fx, (void *)pg(fx, text, i), 1, sf);
		ret = ct_register(&a);
		if (ret)
			break;
		done++;
	}
	ksft_print_msg("limit: %ld registrations by codectl + %d at exec = %ld (documented: %d)\n",
		       done, base, done + base, CT_MAX_SECTIONS);
	ok = expect(c, ret, "registration %ld", done + 1);
	if (done + base != CT_MAX_SECTIONS) {
		ksft_print_msg("the limit is %ld, not the documented %d\n",
			       done + base, CT_MAX_SECTIONS);
		ok = false;
	}
	if (done && ok) {
		struct codectl_sframe first = reg_arg(fx, text, 1, sf);

		/* A slot freed is a slot usable again, once. */
		ret = ct_unregister(first.text_start);
		if (!ret)
			ret = ct_register(&first);
		if (ret) {
			ksft_print_msg("re-registering a freed slot: %s\n",
				       strerror(ret));
			ok = false;
		}
		ok &= expect(c, ct_register(&a), "one more after the re-registration");
	}
out:
	if (text)
		munmap(text, pages * fx->page);
	/* Unmapping the text dropped all of them. */
	after = ct_sframe_lines(0, NULL, NULL, NULL);
	if (base >= 0 && after != base) {
		ksft_print_msg("%d registrations after munmap of their text, %d before\n",
			       after, base);
		ok = false;
	}
	sframe_free(fx, sf);
	return ok;
}

static bool row_build_id_len(struct fx *fx, const struct errcase *c)
{
	unsigned char id[CODECTL_BUILD_ID_MAX + 1] = { 1, 2, 3 };
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.build_id = (unsigned long)id;
	s.arg.build_id_len = CODECTL_BUILD_ID_MAX + 1;
	ok = expect(c, ct_register(&s.arg), "build_id_len %d",
		    CODECTL_BUILD_ID_MAX + 1);
	s.arg.build_id_len = 0xffffffff;
	ok &= expect(c, ct_register(&s.arg), "build_id_len 0xffffffff");
	scratch_put(fx, &s);
	return ok;
}

static bool row_build_id_half(struct fx *fx, const struct errcase *c)
{
	unsigned char id[20] = { 1, 2, 3 };
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.build_id = (unsigned long)id;
	ok = expect(c, ct_register(&s.arg), "build_id set, build_id_len 0");
	s.arg.build_id = 0;
	s.arg.build_id_len = sizeof(id);
	ok &= expect(c, ct_register(&s.arg), "build_id 0, build_id_len 20");
	scratch_put(fx, &s);
	return ok;
}

static bool row_file_range(struct fx *fx, const struct errcase *c)
{
	struct codectl_sframe a;
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 2))
		return false;
	a = s.arg;
	a.file_start = a.text_start + 1;
	a.file_end = a.text_end;
	ok = expect(c, ct_register(&a), "file_start after text_start");
	a.file_start = a.text_start;
	a.file_end = a.text_end - 1;
	ok &= expect(c, ct_register(&a), "file_end before text_end");
	a.file_start = a.text_start;
	a.file_end = 0;
	ok &= expect(c, ct_register(&a), "file_start only");
	a.file_start = a.text_end;
	a.file_end = a.text_start;
	ok &= expect(c, ct_register(&a), "file range reversed");
	scratch_put(fx, &s);
	return ok;
}

static char *long_string(size_t len, char ch)
{
	char *s = malloc(len + 1);

	if (s) {
		memset(s, ch, len);
		s[0] = '/';
		s[len] = '\0';
	}
	return s;
}

static bool row_path_long(struct fx *fx, const struct errcase *c)
{
	char *p4096 = long_string(PATH_MAX, 'p');
	char *p10000 = long_string(10000, 'p');
	struct scratch s;
	bool ok = false;

	if (p4096 && p10000 && scratch_get(fx, &s, 1)) {
		s.arg.pathname = (unsigned long)p4096;
		ok = expect(c, ct_register(&s.arg), "pathname of %d bytes",
			    PATH_MAX);
		s.arg.pathname = (unsigned long)p10000;
		ok &= expect(c, ct_register(&s.arg),
			     "pathname of 10000 bytes");
		scratch_put(fx, &s);
	}
	free(p4096);
	free(p10000);
	return ok;
}

static bool row_debuglink_long(struct fx *fx, const struct errcase *c)
{
	char *d256 = long_string(NAME_MAX + 1, 'd');
	struct scratch s;
	bool ok = false;

	if (d256 && scratch_get(fx, &s, 1)) {
		s.arg.debug_link = (unsigned long)d256;
		ok = expect(c, ct_register(&s.arg), "debug_link of %d bytes",
			    NAME_MAX + 1);
		scratch_put(fx, &s);
	}
	free(d256);
	return ok;
}

static bool row_string_fault(struct fx *fx, const struct errcase *c)
{
	unsigned char *two = map_pages(fx, 2, PROT_READ | PROT_WRITE);
	unsigned char id[20] = { 1 };
	struct codectl_sframe a;
	struct scratch s;
	char *tail;
	bool ok;

	if (!two || !scratch_get(fx, &s, 1))
		return false;
	/* A string that runs, without its NUL, into a PROT_NONE page. */
	mprotect(two + fx->page, fx->page, PROT_NONE);
	tail = (char *)two + fx->page - 100;
	memset(tail, 'x', 100);

	a = s.arg;
	a.pathname = (unsigned long)fx->none;
	ok = expect(c, ct_register(&a), "pathname on a PROT_NONE page");
	a.pathname = (unsigned long)tail;
	ok &= expect(c, ct_register(&a), "pathname running into a PROT_NONE page");
	a = s.arg;
	a.debug_link = (unsigned long)fx->none;
	ok &= expect(c, ct_register(&a), "debug_link on a PROT_NONE page");
	a = s.arg;
	a.build_id = (unsigned long)fx->none;
	a.build_id_len = sizeof(id);
	ok &= expect(c, ct_register(&a), "build_id on a PROT_NONE page");
	a.build_id = (unsigned long)two + fx->page - 10;
	ok &= expect(c, ct_register(&a), "build_id running into a PROT_NONE page");
	munmap(two, 2 * fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool row_unreg_unknown(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok;
	int ret;

	if (!scratch_get(fx, &s, 2))
		return false;
	ok = expect(c, ct_unregister(s.arg.text_start), "never registered");
	ok &= expect(c, ct_unregister(0), "text_start 0");
	ok &= expect(c, ct_unregister(fx->self.text_start[0] + 16),
		     "inside this program's text");
	ret = ct_register(&s.arg);
	if (ret) {
		ksft_print_msg("register: %s\n", strerror(ret));
		ok = false;
	} else {
		ok &= expect(c, ct_unregister(pg(fx, s.text, 1)),
			     "inside a registered range");
		ok &= expect(c, ct_unregister(s.arg.text_start + 1),
			     "one byte after its start");
		if (ct_unregister(s.arg.text_start)) {
			ksft_print_msg("the registration did not survive\n");
			ok = false;
		}
	}
	scratch_put(fx, &s);
	return ok;
}

static bool row_unreg_twice(struct fx *fx, const struct errcase *c)
{
	struct scratch s;
	bool ok = true;
	int ret;

	if (!scratch_get(fx, &s, 2))
		return false;
	ret = ct_register(&s.arg);
	if (!ret)
		ret = ct_unregister(s.arg.text_start);
	if (ret) {
		ksft_print_msg("register, unregister: %s\n", strerror(ret));
		ok = false;
	}
	ok &= expect(c, ct_unregister(s.arg.text_start), "a second unregister");
	/* Removed with its text. */
	ret = ct_register(&s.arg);
	if (ret) {
		ksft_print_msg("register again: %s\n", strerror(ret));
		ok = false;
	}
	munmap(s.text, s.pages * fx->page);
	ok &= expect(c, ct_unregister(s.arg.text_start),
		     "unregister after munmap of the text");
	s.text = NULL;
	scratch_put(fx, &s);
	return ok;
}

#define ROW(e, cond, fn)	{ e, #e, cond, fn }

/* The error table of Documentation/userspace-api/codectl.rst. */
static const struct errcase errcases[] = {
	ROW(EINVAL, "flags is not 0", row_flags),
	ROW(EINVAL, "option is not a known option", row_option),
	ROW(EOPNOTSUPP, "option is CODECTL_REGISTER_JIT, which is reserved",
	    row_jit),
	ROW(EINVAL, "info_size is smaller than the first version of the option's structure",
	    row_size_small),
	ROW(EFAULT, "info is NULL", row_null),
	ROW(EFAULT, "info points to memory that cannot be read",
	    row_info_fault),
	ROW(E2BIG,
	    "info_size is larger than the structure this kernel knows, and the extra bytes are not all zero",
	    row_e2big),
	ROW(E2BIG, "info_size is larger than the page size", row_size_page),
	ROW(EINVAL, "the text range is empty", row_text_empty),
	ROW(EINVAL, "the text range wraps around (text_end is below text_start)",
	    row_text_wrap),
	ROW(EINVAL, "the SFrame range is empty or wraps around",
	    row_sframe_empty),
	ROW(EINVAL, "a range ends above the highest user address",
	    row_above_task),
	ROW(EINVAL, "sframe_start is not a multiple of 4", row_unaligned),
	ROW(ENOMEM, "the text range is not wholly mapped", row_text_unmapped),
	ROW(ENOMEM, "the SFrame range is not wholly mapped",
	    row_sframe_unmapped),
	ROW(EACCES, "the text range is not wholly executable",
	    row_text_noexec),
	ROW(EACCES, "the SFrame range is not wholly readable",
	    row_sframe_noread),
	ROW(EFAULT,
	    "the SFrame header cannot be read (for example, a mapping past the end of its file)",
	    row_header_fault),
	ROW(ENOEXEC, "the SFrame range is shorter than the SFrame header",
	    row_short),
	ROW(ENOEXEC, "the header's magic number is not the SFrame magic",
	    row_magic),
	ROW(ENOEXEC, "the SFrame version is not one this kernel supports (2 or 3)",
	    row_version),
	ROW(ENOEXEC, "the header's ABI is not the caller's architecture",
	    row_abi),
	ROW(ENOEXEC, "the header has unknown flags, or does not flag its FDEs as sorted",
	    row_hdr_flags),
	ROW(ENOEXEC, "the FDE or FRE sub-section lies outside the SFrame range",
	    row_bounds),
	ROW(EEXIST, "the text range overlaps a text range registered with codectl()",
	    row_overlap),
	ROW(EEXIST, "the text range overlaps a text range the kernel registered at exec",
	    row_overlap_exec),
	ROW(ENOSPC, "the process already holds SFRAME_MAX_SECTIONS (1024) registrations",
	    row_enospc),
	ROW(EINVAL, "build_id_len is larger than CODECTL_BUILD_ID_MAX (64)",
	    row_build_id_len),
	ROW(EINVAL, "only one of build_id and build_id_len is set",
	    row_build_id_half),
	ROW(EINVAL,
	    "file_start or file_end is set, and [file_start, file_end) does not hold the text range",
	    row_file_range),
	ROW(ENAMETOOLONG,
	    "the string at pathname has PATH_MAX (4096) or more bytes before its null byte",
	    row_path_long),
	ROW(ENAMETOOLONG,
	    "the string at debug_link has more than NAME_MAX (255) bytes before its null byte",
	    row_debuglink_long),
	ROW(EFAULT, "pathname, build_id or debug_link points to memory that cannot be read",
	    row_string_fault),
	ROW(ENOENT, "unregister: no registration starts at text_start",
	    row_unreg_unknown),
	ROW(ENOENT,
	    "unregister: the registration was removed already (by an earlier unregister, or with its mapping)",
	    row_unreg_twice),
};

/* ---- What must be accepted ------------------------------------------ */

/* Check the /proc/self/sframe line of a registration. */
static bool check_line(const struct codectl_sframe *a, const char *build_id,
		       const char *path)
{
	struct ct_line l;
	int n;

	if (ct_sframe_lines(a->text_start, &l, &n, NULL) < 0)
		return false;
	if (n != 1) {
		ksft_print_msg("%d lines for text %#llx in /proc/self/sframe\n",
			       n, a->text_start);
		ct_sframe_dump();
		return false;
	}
	if (l.text_end != a->text_end || l.sframe_start != a->sframe_start ||
	    l.sframe_end != a->sframe_end || strcmp(l.source, "codectl") ||
	    strcmp(l.state, "ok") || strcmp(l.build_id, build_id) ||
	    strcmp(l.path, path) || (l.version != 2 && l.version != 3)) {
		ksft_print_msg("line: %lx-%lx %lx-%lx v%u %s %s build-id '%s' path '%.60s'\n",
			       l.text_start, l.text_end, l.sframe_start,
			       l.sframe_end, l.version, l.source, l.state,
			       l.build_id, l.path);
		ksft_print_msg("want: %llx-%llx %llx-%llx v2|v3 codectl ok build-id '%s' '%.60s'\n",
			       a->text_start, a->text_end, a->sframe_start,
			       a->sframe_end, build_id, path);
		return false;
	}
	return true;
}

/* Register with @size bytes at @info, check the line, unregister. */
static bool accept_one(const void *info, size_t size,
		       const struct codectl_sframe *a, const char *build_id,
		       const char *path)
{
	int ret = ct_codectl(CODECTL_REGISTER_SFRAME, info, size, 0);
	bool ok;

	if (ret) {
		ksft_print_msg("register (info_size %zu): %s\n", size,
			       strerror(ret));
		return false;
	}
	ok = check_line(a, build_id, path);
	ret = ct_unregister(a->text_start);
	if (ret) {
		ksft_print_msg("unregister: %s\n", strerror(ret));
		ok = false;
	}
	if (ct_sframe_lines(a->text_start, NULL, &ret, NULL) < 0 || ret) {
		ksft_print_msg("still listed after unregister\n");
		ok = false;
	}
	return ok;
}

static bool acc_ver0(struct fx *fx)
{
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	/* The first version: the four addresses only. */
	ok = accept_one(&s.arg, CODECTL_SFRAME_SIZE_VER0, &s.arg, "", "");
	scratch_put(fx, &s);
	return ok;
}

static bool acc_zero_tail(struct fx *fx)
{
	struct {
		struct codectl_sframe arg;
		unsigned char tail[64];
	} big;
	struct {
		struct codectl_unregister arg;
		unsigned char tail[56];
	} ubig;
	struct scratch s;
	bool ok = true;
	int ret;

	if (!scratch_get(fx, &s, 1))
		return false;
	memset(&big, 0, sizeof(big));
	big.arg = s.arg;
	ret = ct_codectl(CODECTL_REGISTER_SFRAME, &big, sizeof(big), 0);
	if (ret) {
		ksft_print_msg("register, 64 zero bytes more: %s\n",
			       strerror(ret));
		ok = false;
	}
	ok &= check_line(&s.arg, "", "");
	memset(&ubig, 0, sizeof(ubig));
	ubig.arg.text_start = s.arg.text_start;
	ret = ct_codectl(CODECTL_UNREGISTER, &ubig, sizeof(ubig), 0);
	if (ret) {
		ksft_print_msg("unregister, 56 zero bytes more: %s\n",
			       strerror(ret));
		ok = false;
	}
	scratch_put(fx, &s);
	return ok;
}

static bool acc_described(struct fx *fx)
{
	static const unsigned char id[20] = {
		0xc0, 0xde, 0xc7, 0x10, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
		0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0xff,
	};
	struct scratch s;
	char hex[41];
	bool ok;

	if (!scratch_get(fx, &s, 2))
		return false;
	s.arg.file_start = s.arg.text_start;
	s.arg.file_end = s.arg.text_end;
	s.arg.pathname = (unsigned long)"/opt/codectl test/lib.so";
	s.arg.debug_link = (unsigned long)"lib.so.debug";
	s.arg.debug_link_crc = 0x12345678;
	s.arg.build_id = (unsigned long)id;
	s.arg.build_id_len = sizeof(id);
	ct_hex(hex, id, sizeof(id));
	/* The path is escaped: a space is shown as \040. */
	ok = accept_one(&s.arg, sizeof(s.arg), &s.arg, hex,
			"/opt/codectl\\040test/lib.so");
	scratch_put(fx, &s);
	return ok;
}

static bool acc_limits(struct fx *fx)
{
	unsigned char id[CODECTL_BUILD_ID_MAX];
	char hex[2 * CODECTL_BUILD_ID_MAX + 1];
	char *path = long_string(PATH_MAX - 1, 'p');
	char *link = long_string(NAME_MAX, 'd');
	struct scratch s;
	bool ok = false;
	int i;

	for (i = 0; i < CODECTL_BUILD_ID_MAX; i++)
		id[i] = i * 7;
	ct_hex(hex, id, sizeof(id));
	if (path && link && scratch_get(fx, &s, 1)) {
		s.arg.pathname = (unsigned long)path;
		s.arg.debug_link = (unsigned long)link;
		s.arg.build_id = (unsigned long)id;
		s.arg.build_id_len = sizeof(id);
		ok = accept_one(&s.arg, sizeof(s.arg), &s.arg, hex, path);
		scratch_put(fx, &s);
	}
	free(path);
	free(link);
	return ok;
}

static bool acc_two_ranges(struct fx *fx)
{
	struct codectl_sframe a, b;
	struct scratch s;
	bool ok = true;
	int ret, n;

	/* One section for two text ranges, as for two PF_X segments. */
	if (!scratch_get(fx, &s, 3))
		return false;
	a = s.arg;
	a.text_end = pg(fx, s.text, 1);
	b = s.arg;
	b.text_start = pg(fx, s.text, 2);
	ret = ct_register(&a);
	if (!ret)
		ret = ct_register(&b);
	if (ret) {
		ksft_print_msg("register two ranges: %s\n", strerror(ret));
		ok = false;
	}
	ok &= check_line(&a, "", "") && check_line(&b, "", "");
	ret = ct_unregister(a.text_start);
	if (ret) {
		ksft_print_msg("unregister the first: %s\n", strerror(ret));
		ok = false;
	}
	ct_sframe_lines(b.text_start, NULL, &n, NULL);
	if (n != 1) {
		ksft_print_msg("unregistering the first range removed the second\n");
		ok = false;
	}
	ret = ct_unregister(b.text_start);
	if (ret) {
		ksft_print_msg("unregister the second: %s\n", strerror(ret));
		ok = false;
	}
	scratch_put(fx, &s);
	return ok;
}

/* A check that is not a row of the error table: its KTAP name, its code. */
struct check {
	const char *what;
	bool (*run)(struct fx *fx);
};

static const struct check acccases[] = {
	{ "accepted: the first version of the structure (32 bytes)", acc_ver0 },
	{ "accepted: a larger structure whose extra bytes are zero", acc_zero_tail },
	{ "accepted: pathname, build ID, debug link and file range, shown escaped", acc_described },
	{ "accepted: the longest pathname and debug_link, a 64-byte build ID", acc_limits },
	{ "accepted: one SFrame section for two text ranges, unregistered one by one",
	  acc_two_ranges },
};

/* ---- Lifetime -------------------------------------------------------- */

static bool listed(unsigned long text_start)
{
	int n = 0;

	if (ct_sframe_lines(text_start, NULL, &n, "codectl") < 0)
		return false;
	return n == 1;
}

/* Register the scratch @s, and see it listed. */
static bool lt_register_scratch(struct scratch *s)
{
	int ret;

	s->arg.pathname = (unsigned long)"/lifetime/test";
	ret = ct_register(&s->arg);
	if (ret) {
		ksft_print_msg("register: %s\n", strerror(ret));
		return false;
	}
	if (!listed(s->arg.text_start)) {
		ksft_print_msg("not listed after registration\n");
		return false;
	}
	return true;
}

static bool lt_register(struct fx *fx, struct scratch *s, long pages)
{
	return scratch_get(fx, s, pages) && lt_register_scratch(s);
}

/* Gone from /proc/self/sframe, and unregister says so. */
static bool gone(unsigned long text_start, const char *after)
{
	int ret;

	if (listed(text_start)) {
		ksft_print_msg("still listed after %s\n", after);
		ct_unregister(text_start);
		return false;
	}
	ret = ct_unregister(text_start);
	if (ret != ENOENT) {
		ksft_print_msg("unregister after %s: %s, want ENOENT\n", after,
			       ret ? strerrorname_np(ret) : "success");
		return false;
	}
	return true;
}

static bool lt_munmap_text(struct fx *fx)
{
	struct scratch s;
	bool ok = false;

	if (lt_register(fx, &s, 3)) {
		/* One page in the middle of the text. */
		munmap((char *)s.text + fx->page, fx->page);
		ok = gone(s.arg.text_start, "munmap of a text page");
	}
	scratch_put(fx, &s);
	return ok;
}

static bool lt_munmap_sframe(struct fx *fx)
{
	struct scratch s;
	bool ok = false;

	if (lt_register(fx, &s, 1)) {
		sframe_free(fx, s.sf);
		s.sf = NULL;
		ok = gone(s.arg.text_start, "munmap of the .sframe copy");
	}
	scratch_put(fx, &s);
	return ok;
}

/* @len bytes of address space, 1 to 8 GiB away from @near; NULL if none */
static void *reserve_far(void *near, size_t len)
{
	const unsigned long gib = 1UL << 30, base = (unsigned long)near;
	unsigned long at;
	void *p;
	int i;

	for (i = 1; i <= 16; i++) {
		at = i & 1 ? base - (i + 1) / 2 * gib : base + i / 2 * gib;
		p = mmap((void *)at, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
		if (p == (void *)at)
			return p;
		if (p != MAP_FAILED)
			munmap(p, len);
	}
	ksft_print_msg("no room 1 to 8 GiB away from %p\n", near);
	return NULL;
}

/*
 * A .sframe far from its text (codectl allows it): the munmap hook, which
 * only looks as far from the range as a text and its .sframe lie apart,
 * still finds it, and drops only that registration.
 */
static bool lt_munmap_far_sframe(struct fx *fx)
{
	size_t len = copy_pages(fx) * fx->page;
	struct scratch near = { 0 }, s = { 0 };
	bool ok = false;
	void *far;

	if (!lt_register(fx, &near, 1) || !scratch_get(fx, &s, 1))
		goto out;
	far = reserve_far(s.text, len);
	if (!far)
		goto out;
	if (mremap(s.sf, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, far) ==
	    MAP_FAILED) {
		ksft_print_msg("mremap of the .sframe copy: %s\n",
			       strerror(errno));
		munmap(far, len);
		goto out;
	}
	s.sf = far;
	s.arg = reg_arg(fx, s.text, 1, s.sf);
	if (!lt_register_scratch(&s))
		goto out;
	sframe_free(fx, s.sf);
	s.sf = NULL;
	ok = gone(s.arg.text_start, "munmap of a .sframe copy 1 GiB away");
	if (!listed(near.arg.text_start)) {
		ksft_print_msg("munmap of a far .sframe removed another registration\n");
		ok = false;
	}
out:
	ct_unregister(near.arg.text_start);
	scratch_put(fx, &near);
	scratch_put(fx, &s);
	return ok;
}

static bool lt_munmap_other(struct fx *fx)
{
	void *other = map_pages(fx, 1, PROT_READ | PROT_EXEC);
	struct scratch s;
	bool ok = false;

	if (other && lt_register(fx, &s, 1)) {
		munmap(other, fx->page);
		other = NULL;
		ok = listed(s.arg.text_start);
		if (!ok)
			ksft_print_msg("munmap of another mapping removed it\n");
		ct_unregister(s.arg.text_start);
	}
	if (other)
		munmap(other, fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool lt_mremap(struct fx *fx)
{
	struct scratch s;
	bool ok = false;
	void *to, *moved;

	to = map_pages(fx, 2, PROT_NONE);
	if (to && lt_register(fx, &s, 2)) {
		moved = mremap(s.text, 2 * fx->page, 2 * fx->page,
			       MREMAP_MAYMOVE | MREMAP_FIXED, to);
		if (moved == MAP_FAILED) {
			ksft_print_msg("mremap: %s\n", strerror(errno));
		} else {
			s.text = moved;
			to = NULL;
			ok = gone(s.arg.text_start, "mremap of the text");
		}
	}
	if (to)
		munmap(to, 2 * fx->page);
	scratch_put(fx, &s);
	return ok;
}

static bool lt_map_fixed(struct fx *fx)
{
	struct scratch s;
	bool ok = false;
	void *p;

	if (lt_register(fx, &s, 2)) {
		/* New executable memory in place of the old. */
		p = mmap(s.text, fx->page, PROT_READ | PROT_EXEC,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			ksft_print_msg("mmap(MAP_FIXED): %s\n", strerror(errno));
		else
			ok = gone(s.arg.text_start, "mmap(MAP_FIXED) over the text");
	}
	scratch_put(fx, &s);
	return ok;
}

static bool lt_mprotect(struct fx *fx)
{
	struct scratch s;
	bool ok = false;

	if (lt_register(fx, &s, 2)) {
		/* Keeping exec keeps it. */
		mprotect(s.text, 2 * fx->page, PROT_READ | PROT_WRITE |
			 PROT_EXEC);
		mprotect(s.text, 2 * fx->page, PROT_READ | PROT_EXEC);
		ok = listed(s.arg.text_start);
		if (!ok)
			ksft_print_msg("mprotect keeping PROT_EXEC removed it\n");
		/* Removing exec from one page removes it. */
		mprotect((char *)s.text + fx->page, fx->page, PROT_READ);
		ok &= gone(s.arg.text_start, "mprotect(PROT_READ) of a text page");
	}
	scratch_put(fx, &s);
	return ok;
}

static bool lt_fork(struct fx *fx)
{
	struct scratch s;
	bool ok = false;
	int status;
	pid_t pid;

	if (!lt_register(fx, &s, 1))
		goto out;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		goto out;
	}
	if (!pid) {
		struct ct_line l;
		int n = 0;

		ct_sframe_lines(s.arg.text_start, &l, &n, "codectl");
		if (n != 1 || l.text_end != s.arg.text_end ||
		    l.sframe_start != s.arg.sframe_start ||
		    strcmp(l.path, "/lifetime/test")) {
			ksft_print_msg("child: the registration is not inherited\n");
			ct_sframe_dump();
			_exit(1);
		}
		/* The child's copy is its own. */
		if (ct_unregister(s.arg.text_start))
			_exit(2);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		ksft_print_msg("child failed (status %#x)\n", status);
		goto out;
	}
	ok = listed(s.arg.text_start);
	if (!ok)
		ksft_print_msg("the child's unregister removed the parent's registration\n");
	ct_unregister(s.arg.text_start);
out:
	scratch_put(fx, &s);
	return ok;
}

static bool lt_dontfork(struct fx *fx)
{
	struct scratch s;
	bool ok = false;
	int status;
	pid_t pid;

	if (!lt_register(fx, &s, 1))
		goto out;
	if (madvise(s.text, fx->page, MADV_DONTFORK)) {
		ksft_print_msg("madvise(MADV_DONTFORK): %s (it needs CONFIG_ADVISE_SYSCALLS=y)\n",
			       strerror(errno));
		goto out;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		goto out;
	}
	if (!pid) {
		int n = ct_sframe_lines(0, NULL, NULL, "codectl");

		if (n) {
			ksft_print_msg("child: %d registrations for text it has not\n",
				       n);
			ct_sframe_dump();
		}
		_exit(n ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		ksft_print_msg("child failed (status %#x)\n", status);
		goto out;
	}
	ok = listed(s.arg.text_start);
	if (!ok)
		ksft_print_msg("the parent lost its registration\n");
	ct_unregister(s.arg.text_start);
out:
	scratch_put(fx, &s);
	return ok;
}

static bool lt_unreg_exec(struct fx *fx)
{
	unsigned long text = fx->self.text_start[0];
	int status, n = 0;
	pid_t pid;

	/* In a child: the test keeps its own registration. */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		return false;
	}
	if (!pid) {
		int ret = ct_unregister(text);

		if (ret) {
			ksft_print_msg("child: unregister of the program's text: %s\n",
				       strerror(ret));
			_exit(1);
		}
		ct_sframe_lines(text, NULL, &n, NULL);
		_exit(n ? 2 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		ksft_print_msg("child failed (status %#x)\n", status);
		return false;
	}
	ct_sframe_lines(text, NULL, &n, "exec");
	if (n != 1) {
		ksft_print_msg("the parent lost its registration made at exec\n");
		return false;
	}
	return true;
}

static bool lt_exec(struct fx *fx)
{
	char *const argv[] = { "codectl_errors", "--count-codectl", NULL };
	struct scratch s;
	bool ok = false;
	int ret;

	if (lt_register(fx, &s, 1)) {
		ret = ct_run_self(argv, NULL, 30, NULL);
		if (ret == 0)
			ok = true;
		else if (ret == CT_COUNT_NO_EXEC)
			ksft_print_msg("after exec: no registration made at exec\n");
		else if (ret > 0 && ret < CT_COUNT_NO_EXEC)
			ksft_print_msg("after exec: %d registrations by codectl survived\n",
				       ret);
		else
			ksft_print_msg("after exec: the child failed (%d)\n",
				       ret);
		ct_unregister(s.arg.text_start);
	}
	scratch_put(fx, &s);
	return ok;
}

/* Why the child of lt_proc_access() failed, by its exit status */
static const char * const proc_access_fail[] = {
	[1] = "root could not open /proc/1/sframe",
	[2] = "could not drop to uid and gid 65534",
	[3] = "the file opened as root was not readable after the drop",
	[4] = "uid 65534 could open /proc/1/sframe",
	[5] = "uid 65534 opening /proc/1/sframe failed, but not with EACCES",
};

/*
 * /proc/<pid>/sframe checks access at open, with the opener's credentials,
 * as /proc/<pid>/maps does: a file opened with the right to read it stays
 * readable, and one who may not read it cannot even open it (a check at
 * read time would let a privileged reader of an unprivileged opener's file
 * leak the layout of any process).  Needs root, to change uid.
 */
static bool lt_proc_access(struct fx *fx)
{
	char buf[256];
	int status, fd;
	pid_t pid;

	(void)fx;
	if (geteuid()) {
		ksft_print_msg("needs root, to open /proc/1/sframe and drop to another uid\n");
		return false;
	}
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		fd = open("/proc/1/sframe", O_RDONLY);
		if (fd < 0)
			_exit(1);
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		if (read(fd, buf, sizeof(buf)) < 0)
			_exit(3);
		close(fd);
		fd = open("/proc/1/sframe", O_RDONLY);
		if (fd >= 0)
			_exit(4);
		_exit(errno == EACCES ? 0 : 5);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		ksft_print_msg("the child did not exit\n");
		return false;
	}
	status = WEXITSTATUS(status);
	if (status) {
		ksft_print_msg("%s\n", status < (int)ARRAY_SIZE(proc_access_fail) ?
			       proc_access_fail[status] : "unknown failure");
		return false;
	}
	return true;
}

static const struct check ltcases[] = {
	{ "lifetime: munmap of a page of the text removes it", lt_munmap_text },
	{ "lifetime: munmap of the .sframe removes it", lt_munmap_sframe },
	{ "lifetime: munmap of a .sframe far from its text removes it",
	  lt_munmap_far_sframe },
	{ "lifetime: munmap of another mapping keeps it", lt_munmap_other },
	{ "lifetime: mremap of the text removes it", lt_mremap },
	{ "lifetime: mmap(MAP_FIXED) over the text removes it", lt_map_fixed },
	{ "lifetime: mprotect keeping exec keeps it, removing exec removes it", lt_mprotect },
	{ "lifetime: fork copies it, the copies are independent", lt_fork },
	{ "lifetime: fork does not copy it for text the child does not get", lt_dontfork },
	{ "lifetime: a registration made at exec can be unregistered", lt_unreg_exec },
	{ "lifetime: exec clears it", lt_exec },
	{ "/proc/<pid>/sframe: access is checked at open, as for maps",
	  lt_proc_access },
};

/* After exec: how many registrations by codectl are there? */
static int count_codectl(void)
{
	int exec_lines = ct_sframe_lines(0, NULL, NULL, "exec");
	int user = ct_sframe_lines(0, NULL, NULL, "codectl");

	if (exec_lines < 0 || user < 0)
		return CT_COUNT_ERROR;
	if (!exec_lines)
		return CT_COUNT_NO_EXEC;
	return user < CT_COUNT_NO_EXEC ? user : CT_COUNT_NO_EXEC - 1;
}

static void list_errors(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errcases); i++)
		printf("%s\t%s\n", errcases[i].name, errcases[i].cond);
}

static void setup(struct fx *fx)
{
	int ret;

	fx->page = sysconf(_SC_PAGESIZE);
	if (ct_self_object(&fx->self))
		ksft_exit_fail_msg("cannot read this program's headers\n");
	if (!fx->self.sframe_start)
		ksft_exit_fail_msg("%s\n",
				   "this program has no PT_GNU_SFRAME: it must be built with -Wa,--gsframe");
	fx->sframe = (const unsigned char *)fx->self.sframe_start;
	fx->sframe_size = fx->self.sframe_end - fx->self.sframe_start;
	if (fx->sframe_size < SF_HDR_SIZE || fx->sframe[SF_MAGIC] != 0xe2 ||
	    fx->sframe[SF_MAGIC + 1] != 0xde)
		ksft_exit_fail_msg("this program's .sframe is not an SFrame section\n");
	fx->none = mmap(NULL, fx->page, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fx->none == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	fx->baseline = ct_sframe_lines(0, NULL, NULL, NULL);
	if (fx->baseline < 0)
		ksft_exit_fail_msg("%s\n",
				   "/proc/self/sframe is needed: is CONFIG_UNWIND_USER_SFRAME set?");
	ret = ct_codectl(CODECTL_UNREGISTER, NULL, 0, 0);
	if (ret != EINVAL)
		ksft_exit_fail_msg("codectl(%d), info_size 0: %s, not EINVAL: no codectl(2)?\n",
				   __NR_codectl, strerrorname_np(ret));
}

/* Nothing a row registered may stay behind. */
static bool no_leftovers(void)
{
	int n = ct_sframe_lines(0, NULL, NULL, "codectl");

	if (n == 0)
		return true;
	ksft_print_msg("%d registrations left behind (removed now)\n", n);
	ct_sframe_dump();
	drop_codectl();
	return false;
}

static void run_checks(struct fx *fx, const struct check *checks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bool ok = checks[i].run(fx);

		ok &= no_leftovers();
		ksft_test_result(ok, "%s\n", checks[i].what);
	}
}

int main(int argc, char **argv)
{
	static struct fx fx;
	unsigned int i;
	bool ok;

	if (argc > 1 && !strcmp(argv[1], "--list-errors")) {
		list_errors();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--count-codectl"))
		return count_codectl();

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(errcases) + ARRAY_SIZE(acccases) +
		      ARRAY_SIZE(ltcases));
	setup(&fx);
	ksft_print_msg("%d registrations made at exec\n", fx.baseline);

	for (i = 0; i < ARRAY_SIZE(errcases); i++) {
		const struct errcase *c = &errcases[i];

		ok = c->run(&fx, c);
		ok &= no_leftovers();
		ksft_test_result(ok, "%s: %s\n", c->name, c->cond);
	}
	run_checks(&fx, acccases, ARRAY_SIZE(acccases));
	run_checks(&fx, ltcases, ARRAY_SIZE(ltcases));
	ksft_finished();
}
