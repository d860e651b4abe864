// SPDX-License-Identifier: GPL-2.0
/*
 * codectl(2): every documented error, what the kernel accepts, the lifetime
 * of a registration, and the limit of SFRAME_MAX_SECTIONS (1024) of them:
 *
 * - /proc/<pid>/sframe with 1024 lines of 4 to 16 KiB (paths of 4095 bytes
 *   with characters it escapes), read in pieces of 1 and 100 bytes, after
 *   lseek() back to 0 and into the middle of a line: every line whole, in
 *   order, and as expected;
 * - the memory cgroup: 1024 registrations with 4 KiB paths grow the
 *   caller's memory.current by the paths' bytes, and removing them takes it
 *   back down;
 * - fork() of a process whose 1024 registrations each have a .sframe range
 *   over 256 VMAs: the child gets them all, or all but those MADV_DONTFORK
 *   takes from it; the time of fork() with and without the registrations is
 *   printed (a figure, not a verdict).
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
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "../sframe/sframe_a32.h"
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
#define SF_ABI_AMD64_LE	3
/* The ABI of the other architecture the kernel knows */
#if defined(__aarch64__)
#define SF_ABI_OTHER	SF_ABI_AMD64_LE
#else
#define SF_ABI_OTHER	SF_ABI_AARCH64_LE
#endif

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

/* ---- CODECTL_REGISTER_JIT ------------------------------------------- */

/* A valid JIT registration: a page of code, a page of table, for the rows */
struct jscratch {
	void *text;
	struct codectl_jit_table *table;
	struct codectl_jit arg;
};

static int jit_reg(const struct codectl_jit *a)
{
	return ct_codectl(CODECTL_REGISTER_JIT, a, sizeof(*a), 0);
}

static bool jscratch_get(struct fx *fx, struct jscratch *j)
{
	memset(j, 0, sizeof(*j));
	j->text = map_pages(fx, 1, PROT_READ | PROT_EXEC);
	j->table = map_pages(fx, 1, PROT_READ | PROT_WRITE);
	if (!j->text || !j->table)
		return false;
	j->table->version = CODECTL_JIT_VERSION;
	j->table->entry_size = CODECTL_JIT_ENTRY_MIN;
	j->table->reserved = 4;
	j->arg.text_start = (unsigned long)j->text;
	j->arg.text_end = pg(fx, j->text, 1);
	j->arg.table = (unsigned long)j->table;
	j->arg.table_size = fx->page;
	return true;
}

static void jscratch_put(struct fx *fx, struct jscratch *j)
{
	if (j->text)
		munmap(j->text, fx->page);
	if (j->table)
		munmap(j->table, fx->page);
}

/* The valid registration is accepted, and removed: the rows' baseline */
static bool jit_valid(struct jscratch *j)
{
	int ret = jit_reg(&j->arg);

	if (ret) {
		ksft_print_msg("a valid JIT registration: %s\n", strerror(ret));
		return false;
	}
	return !ct_unregister(j->arg.text_start);
}

/*
 * A readable page mapping an empty file: reading it raises SIGBUS.  NULL,
 * said why, if it cannot be made.
 */
static void *map_past_eof(struct fx *fx)
{
	void *p;
	int fd;

	fd = memfd_create("codectl-empty", MFD_CLOEXEC);
	if (fd < 0) {
		ksft_print_msg("memfd_create: %s\n", strerror(errno));
		return NULL;
	}
	p = mmap(NULL, fx->page, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		ksft_print_msg("mmap of an empty memfd: %s\n", strerror(errno));
		return NULL;
	}
	return p;
}

/* jscratch_get() and jit_valid(): false, with nothing left mapped, if not */
static bool jscratch_ready(struct fx *fx, struct jscratch *j)
{
	if (jscratch_get(fx, j) && jit_valid(j))
		return true;
	jscratch_put(fx, j);
	return false;
}

static bool row_jit_text(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	a = j.arg;
	a.text_end = a.text_start;
	ok = expect(c, jit_reg(&a), "an empty code area");
	a.text_end = a.text_start - 1;
	ok &= expect(c, jit_reg(&a), "a code area that wraps");
	a.text_end = -1UL;
	ok &= expect(c, jit_reg(&a), "a code area that ends at 2^64 - 1");
	a.text_start = 0x100000000000UL;
	a.text_end = a.text_start + (1UL << 32) + fx->page;
	ok &= expect(c, jit_reg(&a), "a code area of 4 GiB and a page");
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_table(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	a = j.arg;
	a.table_size = 0;
	ok = expect(c, jit_reg(&a), "table_size 0");
	a.table_size = -1UL;
	ok &= expect(c, jit_reg(&a), "table_size 2^64 - 1");
	a.table = -4096UL;
	a.table_size = 64;
	ok &= expect(c, jit_reg(&a), "a table at 2^64 - 4096");
	a = j.arg;
	a.table += 4;
	a.table_size -= 4;
	ok &= expect(c, jit_reg(&a), "a table 4 bytes into the page");
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_unmapped(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	void *hole;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	hole = map_pages(fx, 1, PROT_READ);
	if (!hole) {
		jscratch_put(fx, &j);
		return false;
	}
	munmap(hole, fx->page);
	a = j.arg;
	a.text_start = (unsigned long)hole;
	a.text_end = pg(fx, hole, 1);
	ok = expect(c, jit_reg(&a), "the code area unmapped");
	a = j.arg;
	a.table = (unsigned long)hole;
	ok &= expect(c, jit_reg(&a), "the table unmapped");
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_prot(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	a = j.arg;
	a.text_start = (unsigned long)j.table;
	a.text_end = pg(fx, j.table, 1);
	a.table = (unsigned long)j.text;
	ok = expect(c, jit_reg(&a), "the code area RW, not executable");
	mprotect(j.table, fx->page, PROT_NONE);
	ok &= expect(c, jit_reg(&j.arg), "the table PROT_NONE");
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_fault(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	void *beyond;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	beyond = map_past_eof(fx);
	if (!beyond) {
		jscratch_put(fx, &j);
		return false;
	}
	a = j.arg;
	a.table = (unsigned long)beyond;
	ok = expect(c, jit_reg(&a), "a table mapped past the end of its file");
	munmap(beyond, fx->page);
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_short(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	a = j.arg;
	j.table->reserved = 0;
	a.table_size = sizeof(struct codectl_jit_table) - 8;
	ok = expect(c, jit_reg(&a), "table_size 24");
	a.table_size = 1;
	ok &= expect(c, jit_reg(&a), "table_size 1");
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_version(struct fx *fx, const struct errcase *c)
{
	static const __u32 bad[] = { 0, 2, 0x01000000, 0xffffffff };
	struct jscratch j;
	bool ok = true;
	unsigned int i;

	if (!jscratch_ready(fx, &j))
		return false;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		j.table->version = bad[i];
		ok &= expect(c, jit_reg(&j.arg), "version %#x", bad[i]);
	}
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_stride(struct fx *fx, const struct errcase *c)
{
	static const __u32 bad[] = {
		0, 4, 12, CODECTL_JIT_ENTRY_MIN - 4, CODECTL_JIT_ENTRY_MIN + 1,
		CODECTL_JIT_ENTRY_MIN + 2, CODECTL_JIT_ENTRY_MAX + 4,
		0x80000000, 0xfffffffc,
	};
	struct jscratch j;
	bool ok = true;
	unsigned int i;

	if (!jscratch_ready(fx, &j))
		return false;
	/* The bounds themselves are accepted */
	j.table->entry_size = CODECTL_JIT_ENTRY_MAX;
	ok &= jit_valid(&j);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		j.table->entry_size = bad[i];
		ok &= expect(c, jit_reg(&j.arg), "entry_size %u", bad[i]);
	}
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_room(struct fx *fx, const struct errcase *c)
{
	struct jscratch j;
	unsigned long fit;
	bool ok;

	if (!jscratch_ready(fx, &j))
		return false;
	fit = (fx->page - sizeof(struct codectl_jit_table)) /
	      CODECTL_JIT_ENTRY_MIN;
	/* Exactly the room: accepted */
	j.table->reserved = fit;
	j.table->used = fit;
	ok = jit_valid(&j);
	j.table->used = 0;
	j.table->reserved = fit + 1;
	ok &= expect(c, jit_reg(&j.arg), "one entry more than the room");
	j.table->reserved = 1UL << 60;
	ok &= expect(c, jit_reg(&j.arg), "2^60 entries: the size overflows");
	j.table->reserved = 4;
	j.table->used = 5;
	ok &= expect(c, jit_reg(&j.arg), "used 5 of 4 reserved");
	jscratch_put(fx, &j);
	return ok;
}

static bool row_jit_overlap(struct fx *fx, const struct errcase *c)
{
	struct codectl_jit a;
	struct jscratch j;
	struct scratch s;
	bool ok;
	int ret;

	if (!jscratch_get(fx, &j) || !scratch_get(fx, &s, 1)) {
		jscratch_put(fx, &j);
		return false;
	}
	ret = jit_reg(&j.arg);
	if (ret) {
		ksft_print_msg("a valid JIT registration: %s\n", strerror(ret));
		jscratch_put(fx, &j);
		scratch_put(fx, &s);
		return false;
	}
	ok = expect(c, jit_reg(&j.arg), "the same code area again");
	/* An SFrame registration of the JIT's code area */
	s.arg.text_start = j.arg.text_start;
	s.arg.text_end = j.arg.text_end;
	ok &= expect(c, ct_register(&s.arg), "SFrame for the JIT's code area");
	ct_unregister(j.arg.text_start);
	/* A JIT code area over the program's own text */
	a = j.arg;
	a.text_start = fx->self.text_start[0];
	a.text_end = fx->self.text_end[0];
	ok &= expect(c, jit_reg(&a), "the program's text registered at exec");
	jscratch_put(fx, &j);
	scratch_put(fx, &s);
	return ok;
}

#if defined(__x86_64__)
/*
 * codectl() as the i386 system call, through int $0x80 from this 64-bit
 * process: a compat system call.  The arguments are cut to 32 bits.
 * Returns 0, or the errno.
 */
static int compat_codectl(unsigned int option, const void *info,
			  unsigned int size, unsigned int flags)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "0" ((unsigned long)CT_NR_CODECTL_I386), "b" (option),
		       "c" ((unsigned long)info), "d" (size), "S" (flags)
		     : "memory", "r8", "r9", "r10", "r11");
	ret = (int)ret;
	if (ret < 0)
		return -ret;
	if (ret)
		ksft_print_msg("int $0x80 codectl() returned %ld\n", ret);
	return ret ? EPROTO : 0;
}

/* i386 getpid, to see that int $0x80 works at all */
static long compat_getpid(void)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "0" (20UL)
		     : "memory", "r8", "r9", "r10", "r11");
	return (int)ret;
}

/* The compat calls, in a child of the test. */
static bool compat_calls(struct fx *fx, const struct errcase *c)
{
	static const unsigned int opts[] = { 3, 0x7fffffff, 0xffffffff };
	struct codectl_unregister *u;
	struct codectl_sframe *arg;
	struct scratch s;
	bool ok = true;
	unsigned int i;
	void *low;
	int n;

	if (compat_getpid() != getpid()) {
		ksft_print_msg("int $0x80 getpid() returned %ld, not %d\n",
			       compat_getpid(), getpid());
		return false;
	}
	/* The structures where a 32-bit pointer reaches them */
	low = mmap(NULL, fx->page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED) {
		ksft_print_msg("mmap(MAP_32BIT): %s\n", strerror(errno));
		return false;
	}
	if (!scratch_get(fx, &s, 1)) {
		munmap(low, fx->page);
		return false;
	}
	arg = low;
	*arg = s.arg;
	u = (void *)(arg + 1);
	u->text_start = s.arg.text_start;

	/* A registration that a 64-bit call makes: refused, none made */
	ok &= expect(c, compat_codectl(CODECTL_REGISTER_SFRAME, arg,
				       sizeof(*arg), 0),
		     "int $0x80, CODECTL_REGISTER_SFRAME of valid ranges");
	ct_sframe_lines(s.arg.text_start, NULL, &n, NULL);
	if (n) {
		ksft_print_msg("int $0x80 registered the text\n");
		ct_unregister(s.arg.text_start);
		ok = false;
	}
	/* A registration that a 64-bit call made: not removed */
	n = ct_register(&s.arg);
	if (n) {
		ksft_print_msg("register: %s\n", strerror(n));
		ok = false;
	} else {
		ok &= expect(c, compat_codectl(CODECTL_UNREGISTER, u,
					       sizeof(*u), 0),
			     "int $0x80, CODECTL_UNREGISTER of a registration");
		ct_sframe_lines(s.arg.text_start, NULL, &n, NULL);
		if (n != 1) {
			ksft_print_msg("int $0x80 unregistered the text\n");
			ok = false;
		}
		ct_unregister(s.arg.text_start);
	}
	ok &= expect(c, compat_codectl(CODECTL_REGISTER_JIT, arg, sizeof(*arg),
				       0), "int $0x80, CODECTL_REGISTER_JIT");
	for (i = 0; i < ARRAY_SIZE(opts); i++)
		ok &= expect(c, compat_codectl(opts[i], arg, sizeof(*arg), 0),
			     "int $0x80, option %#x", opts[i]);
	/* Whatever the info */
	for (i = CODECTL_UNREGISTER; i <= CODECTL_REGISTER_JIT; i++)
		ok &= expect(c, compat_codectl(i, NULL, 0, 0),
			     "int $0x80, option %u, info NULL, info_size 0", i);
	scratch_put(fx, &s);
	munmap(low, fx->page);
	return ok;
}

static bool row_compat(struct fx *fx, const struct errcase *c)
{
	int status;
	pid_t pid;

	/* In a child: without IA32 emulation, int $0x80 kills the caller. */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		return false;
	}
	if (!pid)
		_exit(compat_calls(fx, c) ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid) {
		ksft_print_msg("waitpid: %s\n", strerror(errno));
		return false;
	}
	if (WIFSIGNALED(status)) {
		ksft_print_msg("int $0x80 killed the child (signal %d)\n",
			       WTERMSIG(status));
		ksft_print_msg("%s\n", "it needs CONFIG_IA32_EMULATION=y");
		return false;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status);
}
#elif defined(__aarch64__)
/*
 * codectl() as an AArch32 system call, from an AArch32 program the test
 * writes (../sframe/sframe_a32.c): it makes the calls, with its arguments
 * in its own memory, and reports their results.  An AArch32 process has no
 * 64-bit registrations to unregister: its unregistration is of a text
 * range it could have registered.  Its /proc/<pid>/sframe must stay empty.
 */
enum {
	A32_GETPID,
	A32_REGISTER,
	A32_UNREGISTER,
	A32_JIT,
	A32_OPTS,			/* three unknown options */
	A32_NULL = A32_OPTS + 3,	/* three options, no info */
	A32_CALLS = A32_NULL + 3,
};

static bool row_compat(struct fx *fx, const struct errcase *c)
{
	static const unsigned int opts[] = { 3, 0x7fffffff, 0xffffffff };
	struct {
		struct codectl_sframe arg;
		struct codectl_unregister u;
	} data = { 0 };
	struct sft_a32_call calls[A32_CALLS] = { 0 };
	__u32 arg = SFT_A32_DATA, u = SFT_A32_DATA + sizeof(data.arg);
	__s32 res[A32_CALLS];
	char path[64], line[256];
	bool ok = true;
	unsigned int i;
	pid_t pid;
	FILE *f;
	int ret;

	(void)fx;
	data.arg.text_start = SFT_A32_BASE;
	data.arg.text_end = sft_a32_loop(A32_CALLS) + 4;
	data.arg.sframe_start = sft_a32_sframe();
	data.arg.sframe_end = sft_a32_sframe() + 64;
	data.u.text_start = SFT_A32_BASE;
	calls[A32_GETPID].nr = SFT_A32_NR_GETPID;
	for (i = A32_REGISTER; i < A32_CALLS; i++)
		calls[i].nr = SFT_A32_NR_CODECTL;
	calls[A32_REGISTER].args[0] = CODECTL_REGISTER_SFRAME;
	calls[A32_REGISTER].args[1] = arg;
	calls[A32_REGISTER].args[2] = CODECTL_SFRAME_SIZE_VER0;
	calls[A32_UNREGISTER].args[0] = CODECTL_UNREGISTER;
	calls[A32_UNREGISTER].args[1] = u;
	calls[A32_UNREGISTER].args[2] = CODECTL_UNREGISTER_SIZE_VER0;
	calls[A32_JIT].args[0] = CODECTL_REGISTER_JIT;
	calls[A32_JIT].args[1] = arg;
	calls[A32_JIT].args[2] = CODECTL_SFRAME_SIZE_VER0;
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		calls[A32_OPTS + i].args[0] = opts[i];
		calls[A32_OPTS + i].args[1] = arg;
		calls[A32_OPTS + i].args[2] = CODECTL_SFRAME_SIZE_VER0;
	}
	/* Whatever the info */
	for (i = 0; i < 3; i++)
		calls[A32_NULL + i].args[0] = CODECTL_UNREGISTER + i;

	snprintf(path, sizeof(path), "/tmp/codectl-a32-%d", getpid());
	ret = sft_a32_write(path, calls, A32_CALLS, &data, sizeof(data));
	if (!ret)
		ret = sft_a32_start(path, A32_CALLS, res, &pid);
	unlink(path);
	if (ret) {
		ksft_print_msg("the AArch32 program: %s\n", strerror(-ret));
		return false;
	}
	if (res[A32_GETPID] != pid) {
		ksft_print_msg("AArch32 getpid() returned %d, not %d\n",
			       res[A32_GETPID], pid);
		ok = false;
	}
	ok &= expect(c, -res[A32_REGISTER],
		     "AArch32, CODECTL_REGISTER_SFRAME of its text and section");
	ok &= expect(c, -res[A32_UNREGISTER], "AArch32, CODECTL_UNREGISTER");
	ok &= expect(c, -res[A32_JIT], "AArch32, CODECTL_REGISTER_JIT");
	for (i = 0; i < ARRAY_SIZE(opts); i++)
		ok &= expect(c, -res[A32_OPTS + i], "AArch32, option %#x",
			     opts[i]);
	for (i = 0; i < 3; i++)
		ok &= expect(c, -res[A32_NULL + i],
			     "AArch32, option %u, info NULL, info_size 0", i);

	snprintf(path, sizeof(path), "/proc/%d/sframe", pid);
	f = fopen(path, "re");
	if (!f) {
		ksft_print_msg("%s: %s\n", path, strerror(errno));
		ok = false;
	} else {
		while (fgets(line, sizeof(line), f)) {
			ksft_print_msg("the AArch32 program has a registration: %s",
				       line);
			ok = false;
		}
		fclose(f);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ok;
}
#else
static bool row_compat(struct fx *fx, const struct errcase *c)
{
	(void)fx;
	(void)c;
	ksft_print_msg("%s\n",
		       "no compat system call here: the test knows int $0x80 of x86-64 and AArch32 programs on arm64 only");
	return false;
}
#endif

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

/*
 * The 80-byte layout of the RFC series, which had the object's mapping,
 * pathname, build ID and debug link after the four ranges: a caller built
 * against it passes info_size 80 with the build ID length, debug link or
 * CRC in the bytes past the 64 of struct codectl_sframe, and gets E2BIG
 * rather than a registration that misreads its fields.
 */
struct old_sframe80 {
	__u64 text_start, text_end, sframe_start, sframe_end;
	__u64 file_start, file_end, pathname, build_id, debug_link;
	__u32 build_id_len, debug_link_crc;
};

static bool old_layout(struct fx *fx, const struct errcase *c,
		       const struct scratch *s)
{
	static const unsigned char id[20] = { 0xb1, 0x1d };
	struct old_sframe80 o;
	bool ok;

	(void)fx;
	memset(&o, 0, sizeof(o));
	o.text_start = s->arg.text_start;
	o.text_end = s->arg.text_end;
	o.sframe_start = s->arg.sframe_start;
	o.sframe_end = s->arg.sframe_end;
	o.file_start = s->arg.text_start;
	o.file_end = s->arg.text_end;
	o.pathname = (unsigned long)"/old/layout.so";
	o.build_id = (unsigned long)id;
	o.build_id_len = sizeof(id);
	ok = expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &o, sizeof(o), 0),
		    "register, the old 80-byte layout, as its audit module filled it");
	memset(&o, 0, sizeof(o));
	o.text_start = s->arg.text_start;
	o.text_end = s->arg.text_end;
	o.sframe_start = s->arg.sframe_start;
	o.sframe_end = s->arg.sframe_end;
	o.debug_link_crc = 0x12345678;
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &o, sizeof(o), 0),
		     "register, the old 80-byte layout, debug_link_crc only");
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
	ok &= old_layout(fx, c, &s);
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

/*
 * sframe_addr where a section of the SFrame range's size would not fit in
 * user space: above 2^56 (no TASK_SIZE is that large), in the kernel's
 * half, wrapping around.  Untagging (arm64 TBI) leaves them all out of
 * user space.
 */
static bool row_sframe_addr(struct fx *fx, const struct errcase *c)
{
	const unsigned long top = (1UL << 56) - fx->page;
	struct codectl_sframe a;
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	a = s.arg;
	a.sframe_addr = top - fx->sframe_size / 2;
	ok = expect(c, ct_register(&a),
		    "the section at sframe_addr ends above 2^56 - page");
	a.sframe_addr = 0xffffffff81000000UL;
	ok &= expect(c, ct_register(&a), "sframe_addr in the kernel's half");
	a.sframe_addr = ~0UL - fx->sframe_size / 2;
	ok &= expect(c, ct_register(&a),
		     "the section at sframe_addr wraps around");
#ifndef __aarch64__
	/* On arm64 bit 63 is in the ignored top byte: a tagged 0. */
	a.sframe_addr = 1UL << 63;
	ok &= expect(c, ct_register(&a), "sframe_addr 1 << 63");
#endif
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

	if (!scratch_get(fx, &s, 1))
		return false;
	beyond = map_past_eof(fx);
	if (!beyond) {
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
	ok &= try_field(fx, c, SF_ABI, 1, SF_ABI_OTHER, "ABI");
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
	/* Readable well past any length tried: only the length is wrong. */
	static const unsigned char id[4096] = { 1, 2, 3 };
	static const __u64 lens[] = {
		CT_BUILD_ID_MAX + 1, 32, 64, 0xffffffff,
		/* A kernel that read a __u32 would see 20, or 0 */
		(1ULL << 32) | CT_BUILD_ID_MAX, 1ULL << 32, ~0ULL,
	};
	struct scratch s;
	unsigned int i;
	bool ok = true;

	if (!scratch_get(fx, &s, 1))
		return false;
	s.arg.build_id = (unsigned long)id;
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		s.arg.build_id_len = lens[i];
		ok &= expect(c, ct_register(&s.arg), "build_id_len %#llx",
			     (unsigned long long)lens[i]);
	}
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
	/* A structure that ends before build_id_len: it reads as 0. */
	s.arg.build_id = (unsigned long)id;
	ok &= expect(c, ct_codectl(CODECTL_REGISTER_SFRAME, &s.arg,
				   offsetof(struct codectl_sframe, build_id_len),
				   0),
		     "build_id set, info_size %zu: no build_id_len",
		     offsetof(struct codectl_sframe, build_id_len));
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
	a.pathname = 0x10000000000000UL;
	ok &= expect(c, ct_register(&a), "pathname at a non-canonical address");
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
	ROW(EOPNOTSUPP,
	    "the call is a compat system call (from a 32-bit or x32 program, or through int $0x80), whatever the option",
	    row_compat),
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
	ROW(EINVAL,
	    "sframe_addr is not 0, and a section of the SFrame range's size at sframe_addr would wrap around or end above the highest user address",
	    row_sframe_addr),
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
	ROW(EINVAL,
	    "JIT: the code area is empty, wraps around, ends above the highest user address, or is larger than 4 GiB",
	    row_jit_text),
	ROW(EINVAL,
	    "JIT: table_size is 0, the table ends above the highest user address, or table is not a multiple of 8",
	    row_jit_table),
	ROW(ENOMEM, "JIT: the code area or the table is not wholly mapped",
	    row_jit_unmapped),
	ROW(EACCES,
	    "JIT: the code area is not wholly executable, or the table is not wholly readable",
	    row_jit_prot),
	ROW(EFAULT, "JIT: the table's header cannot be read", row_jit_fault),
	ROW(ENOEXEC, "JIT: table_size is smaller than the table's header",
	    row_jit_short),
	ROW(ENOEXEC,
	    "JIT: the table's version is not CODECTL_JIT_VERSION (1)",
	    row_jit_version),
	ROW(ENOEXEC,
	    "JIT: entry_size is not a multiple of 4 from CODECTL_JIT_ENTRY_MIN (16) to CODECTL_JIT_ENTRY_MAX (256)",
	    row_jit_stride),
	ROW(ENOEXEC,
	    "JIT: the table's reserved entries do not fit in table_size, or used is larger than reserved",
	    row_jit_room),
	ROW(EEXIST,
	    "JIT: the code area overlaps a text range registered before (with codectl() or at exec)",
	    row_jit_overlap),
	ROW(EEXIST, "the text range overlaps a text range registered with codectl()",
	    row_overlap),
	ROW(EEXIST, "the text range overlaps a text range the kernel registered at exec",
	    row_overlap_exec),
	ROW(ENOSPC, "the process already holds SFRAME_MAX_SECTIONS (1024) registrations",
	    row_enospc),
	ROW(EINVAL, "build_id_len is larger than CODECTL_BUILD_ID_MAX (20)",
	    row_build_id_len),
	ROW(EINVAL, "only one of build_id and build_id_len is set",
	    row_build_id_half),
	ROW(ENAMETOOLONG,
	    "the string at pathname has PATH_MAX (4096) or more bytes before its null byte",
	    row_path_long),
	ROW(EFAULT, "pathname or build_id points to memory that cannot be read",
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
	/* sframe-addr= is shown unless it is sframe_start, as 0 means */
	if (l.text_end != a->text_end || l.sframe_start != a->sframe_start ||
	    l.sframe_end != a->sframe_end || strcmp(l.source, "codectl") ||
	    strcmp(l.state, "ok") || strcmp(l.build_id, build_id) ||
	    l.sframe_addr != (a->sframe_addr == a->sframe_start ? 0 :
			      a->sframe_addr) ||
	    strcmp(l.path, path) || (l.version != 2 && l.version != 3)) {
		ksft_print_msg("line: %lx-%lx %lx-%lx v%u %s %s at %lx id '%s' '%.60s'\n",
			       l.text_start, l.text_end, l.sframe_start,
			       l.sframe_end, l.version, l.source, l.state,
			       l.sframe_addr, l.build_id, l.path);
		ksft_print_msg("want: %llx-%llx %llx-%llx codectl ok at %llx id '%s' '%.60s'\n",
			       a->text_start, a->text_end, a->sframe_start,
			       a->sframe_end, a->sframe_addr, build_id, path);
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
	s.arg.pathname = (unsigned long)"/opt/codectl test/lib.so";
	s.arg.build_id = (unsigned long)id;
	s.arg.build_id_len = sizeof(id);
	ct_hex(hex, id, sizeof(id));
	/* The path is escaped: a space is shown as \040. */
	ok = accept_one(&s.arg, CT_SFRAME_SIZE_VER1, &s.arg, hex,
			"/opt/codectl\\040test/lib.so");
	scratch_put(fx, &s);
	return ok;
}

/* Put @v at byte @off of @buf */
static void put64(unsigned char *buf, size_t off, __u64 v)
{
	memcpy(buf + off, &v, sizeof(v));
}

/*
 * The documented layout, byte by byte rather than through the header's
 * structure: the four ranges at 0, 8, 16 and 24, pathname at 32, build_id
 * at 40, build_id_len (8 bytes) at 48; 56 bytes in all.  A structure cut
 * after pathname (40 bytes) is a valid smaller version.
 */
static bool acc_layout(struct fx *fx)
{
	static const unsigned char id[5] = { 0x0b, 0x1d, 0x5e, 0xc0, 0x01 };
	unsigned char raw[CT_SFRAME_SIZE_VER1];
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	memset(raw, 0, sizeof(raw));
	put64(raw, 0, s.arg.text_start);
	put64(raw, 8, s.arg.text_end);
	put64(raw, 16, s.arg.sframe_start);
	put64(raw, 24, s.arg.sframe_end);
	put64(raw, 32, (unsigned long)"/layout/56");
	put64(raw, 40, (unsigned long)id);
	put64(raw, 48, sizeof(id));
	ok = accept_one(raw, sizeof(raw), &s.arg, "0b1d5ec001", "/layout/56");
	put64(raw, 32, (unsigned long)"/layout/40");
	ok &= accept_one(raw, 40, &s.arg, "", "/layout/40");
	scratch_put(fx, &s);
	return ok;
}

static bool acc_limits(struct fx *fx)
{
	unsigned char id[CT_BUILD_ID_MAX];
	char hex[2 * CT_BUILD_ID_MAX + 1];
	char *path = long_string(PATH_MAX - 1, 'p');
	struct scratch s;
	bool ok = false;
	int i;

	for (i = 0; i < CT_BUILD_ID_MAX; i++)
		id[i] = i * 7;
	ct_hex(hex, id, sizeof(id));
	if (path && scratch_get(fx, &s, 1)) {
		s.arg.pathname = (unsigned long)path;
		s.arg.build_id = (unsigned long)id;
		s.arg.build_id_len = sizeof(id);
		ok = accept_one(&s.arg, sizeof(s.arg), &s.arg, hex, path);
		/* Every shorter build ID too */
		for (i = 1; i < CT_BUILD_ID_MAX; i++) {
			s.arg.build_id_len = i;
			ct_hex(hex, id, i);
			ok &= accept_one(&s.arg, sizeof(s.arg), &s.arg, hex,
					 path);
		}
		scratch_put(fx, &s);
	}
	free(path);
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

/*
 * sframe_addr, the address a sidecar's offsets are relative to: shown as
 * sframe-addr= unless it is 0 or sframe_start; ignored with info_size 56,
 * which ends before it; accepted up to where the section would end at the
 * top of a 47-bit address space, and in the layout at byte 56.
 */
static bool acc_sframe_addr(struct fx *fx)
{
	const unsigned long top47 = (1UL << 47) - fx->page;
	unsigned char raw[CT_SFRAME_SIZE_VER2];
	struct codectl_sframe a, shown;
	struct scratch s;
	bool ok;

	if (!scratch_get(fx, &s, 1))
		return false;
	a = s.arg;
	a.sframe_addr = a.text_end + 0x12340;
	ok = accept_one(&a, sizeof(a), &a, "", "");
	/* info_size 56: the kernel does not read it */
	shown = a;
	shown.sframe_addr = 0;
	ok &= accept_one(&a, CT_SFRAME_SIZE_VER1, &shown, "", "");
	a.sframe_addr = a.sframe_start;
	ok &= accept_one(&a, sizeof(a), &a, "", "");
	a.sframe_addr = top47 - fx->sframe_size;
	ok &= accept_one(&a, sizeof(a), &a, "", "");
	/* An odd one: the offsets need no alignment */
	a.sframe_addr = a.text_start + 1;
	ok &= accept_one(&a, sizeof(a), &a, "", "");

	memset(raw, 0, sizeof(raw));
	put64(raw, 0, s.arg.text_start);
	put64(raw, 8, s.arg.text_end);
	put64(raw, 16, s.arg.sframe_start);
	put64(raw, 24, s.arg.sframe_end);
	put64(raw, 56, s.arg.text_start - 0x5000);
	a = s.arg;
	a.sframe_addr = s.arg.text_start - 0x5000;
	ok &= accept_one(raw, sizeof(raw), &a, "", "");
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
	{ "accepted: info_size 56 with pathname and build ID, shown escaped",
	  acc_described },
	{ "accepted: the documented layout, byte by byte, and one cut after pathname",
	  acc_layout },
	{ "accepted: the longest pathname, build IDs of 1 to 20 bytes", acc_limits },
	{ "accepted: one SFrame section for two text ranges, unregistered one by one",
	  acc_two_ranges },
	{ "accepted: sframe_addr at byte 56, shown as sframe-addr=, not with info_size 56",
	  acc_sframe_addr },
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

/* Unregister and free the scratch @s, as much of it as was made */
static void lt_put(struct fx *fx, struct scratch *s)
{
	ct_unregister(s->arg.text_start);
	scratch_put(fx, s);
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
 * Move the .sframe copy of @s, @len bytes, 1 to 8 GiB away from its text.
 * Return: its new address, or NULL (printed).
 */
static void *move_sframe_far(struct scratch *s, size_t len)
{
	void *far = reserve_far(s->text, len);

	if (!far)
		return NULL;
	if (mremap(s->sf, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, far) ==
	    MAP_FAILED) {
		ksft_print_msg("mremap of the .sframe copy: %s\n",
			       strerror(errno));
		munmap(far, len);
		return NULL;
	}
	s->sf = far;
	return far;
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
	far = move_sframe_far(&s, len);
	if (!far)
		goto out;
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

/* Move the @len bytes at *@p to @at, which must be free; false if not */
static bool move_to(void **p, size_t len, unsigned long at)
{
	void *q = mmap((void *)at, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (q != (void *)at) {
		if (q != MAP_FAILED)
			munmap(q, len);
		ksft_print_msg("no room at %#lx\n", at);
		return false;
	}
	if (mremap(*p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, q) == MAP_FAILED) {
		ksft_print_msg("mremap to %#lx: %s\n", at, strerror(errno));
		munmap(q, len);
		return false;
	}
	*p = q;
	return true;
}

/*
 * The unmap hooks' bounds after registrations went.  A registration whose
 * .sframe lies 1 to 8 GiB below the program's text, below every text, and
 * the registry's lowest entry, a text and its .sframe just below that; the
 * lowest goes (the hooks' bounds are then made again from what is left).
 * A munmap of the far .sframe, below every text left, must still remove
 * its registration; and once that went (the reach made again), a munmap
 * of a near .sframe its own.
 */
static bool lt_bounds_after_unregister(struct fx *fx)
{
	size_t len = copy_pages(fx) * fx->page;
	struct scratch near = { 0 }, s = { 0 }, low = { 0 };
	unsigned long at;
	bool ok = false;
	int ret, i;
	void *sf;

	if (!lt_register(fx, &near, 1) || !scratch_get(fx, &s, 1))
		goto out;
	/* Below every text, the program's own (registered at exec) too */
	for (i = 1; i <= 8; i++) {
		at = ((unsigned long)lt_bounds_after_unregister & ~(fx->page - 1)) -
		     i * (1UL << 30);
		sf = s.sf;
		if (at < (1UL << 30) || move_to(&sf, len, at))
			break;
	}
	if (sf == (void *)s.sf) {
		ksft_print_msg("no room for a .sframe below the program\n");
		goto out;
	}
	s.sf = sf;
	s.arg = reg_arg(fx, s.text, 1, s.sf);
	if (!lt_register_scratch(&s) || !scratch_get(fx, &low, 1))
		goto out;
	at = (unsigned long)s.sf - 2 * len;
	sf = low.sf;
	if (!move_to(&sf, len, at))
		goto out;
	low.sf = sf;
	if (!move_to(&low.text, fx->page, at - fx->page))
		goto out;
	low.arg = reg_arg(fx, low.text, 1, low.sf);
	if (!lt_register_scratch(&low))
		goto out;
	ret = ct_unregister(low.arg.text_start);
	if (ret) {
		ksft_print_msg("unregister of the lowest: %s\n", strerror(ret));
		goto out;
	}
	sframe_free(fx, s.sf);
	s.sf = NULL;
	if (!gone(s.arg.text_start, "munmap of the far .sframe, the lowest gone"))
		goto out;
	sframe_free(fx, near.sf);
	near.sf = NULL;
	ok = gone(near.arg.text_start, "munmap of a near .sframe, the far one gone");
out:
	lt_put(fx, &low);
	lt_put(fx, &s);
	lt_put(fx, &near);
	return ok;
}

/* Is the registration of @text_start listed, with @sframe_addr? */
static bool listed_at(unsigned long text_start, unsigned long sframe_addr,
		      const char *who)
{
	struct ct_line l;
	int n = 0;

	if (ct_sframe_lines(text_start, &l, &n, "codectl") < 0)
		return false;
	if (n == 1 && l.sframe_addr == sframe_addr)
		return true;
	ksft_print_msg("%s: %d registrations of %#lx, sframe-addr %#lx, want one with %#lx\n",
		       who, n, text_start, n ? l.sframe_addr : 0, sframe_addr);
	ct_sframe_dump();
	return false;
}

/*
 * A sidecar: a section mapped 1 to 8 GiB from its text, its offsets
 * relative to sframe_addr, just past the text as in an object.  The
 * registration lives with the sidecar's mapping, not with anything at
 * sframe_addr: fork copies it with its sframe_addr; MADV_DONTFORK on the
 * sidecar keeps it from the child; munmap of a page between the text and
 * the sidecar, and of one at sframe_addr, keeps it; munmap of the sidecar
 * removes it, and it alone.
 */
static bool lt_sidecar(struct fx *fx)
{
	size_t len = copy_pages(fx) * fx->page;
	struct scratch near = { 0 }, s = { 0 };
	unsigned long addr, mid;
	bool ok = false;
	int status, i;
	void *far, *p;
	pid_t pid;

	if (!lt_register(fx, &near, 1) || !scratch_get(fx, &s, 1))
		goto out;
	far = move_sframe_far(&s, len);
	if (!far)
		goto out;
	s.arg = reg_arg(fx, s.text, 1, s.sf);
	addr = s.arg.text_end + 0x1000;
	s.arg.sframe_addr = addr;
	if (!lt_register_scratch(&s) ||
	    !listed_at(s.arg.text_start, addr, "registered"))
		goto out;

	for (i = 0; i < 2; i++) {
		fflush(stdout);
		if (i && madvise(s.sf, len, MADV_DONTFORK)) {
			ksft_print_msg("madvise(MADV_DONTFORK): %s\n",
				       strerror(errno));
			goto out;
		}
		pid = fork();
		if (pid < 0) {
			ksft_print_msg("fork: %s\n", strerror(errno));
			goto out;
		}
		if (!pid) {
			int n = 0;

			if (!i)
				_exit(listed_at(s.arg.text_start, addr,
						"child") ? 0 : 1);
			ct_sframe_lines(s.arg.text_start, NULL, &n, NULL);
			if (n) {
				ksft_print_msg("child: has a MADV_DONTFORK sidecar\n");
				_exit(1);
			}
			_exit(listed(near.arg.text_start) ? 0 : 2);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			ksft_print_msg("child %d failed (status %#x)\n", i,
				       status);
			goto out;
		}
	}
	madvise(s.sf, len, MADV_DOFORK);

	/* A page between the text and the sidecar, and one at sframe_addr */
	mid = (unsigned long)s.text / 2 + (unsigned long)far / 2;
	mid &= ~(fx->page - 1);
	for (i = 0; i < 2; i++) {
		unsigned long at = i ? addr & ~(fx->page - 1) : mid;

		p = mmap((void *)at, fx->page, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
		if (p != MAP_FAILED)
			munmap(p, fx->page);
		if (!listed_at(s.arg.text_start, addr,
			       i ? "munmap at sframe_addr" :
				   "munmap between text and sidecar"))
			goto out;
	}

	sframe_free(fx, s.sf);
	s.sf = NULL;
	ok = gone(s.arg.text_start, "munmap of the sidecar");
	if (!listed(near.arg.text_start)) {
		ksft_print_msg("munmap of the sidecar removed another registration\n");
		ok = false;
	}
out:
	ct_unregister(s.arg.text_start);
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

/* The registration of @s is there, as it was made. */
static bool intact(const struct scratch *s, const char *after)
{
	struct ct_line l;
	int n = 0;

	if (ct_sframe_lines(s->arg.text_start, &l, &n, "codectl") < 0)
		return false;
	if (n == 1 && l.text_end == s->arg.text_end &&
	    l.sframe_start == s->arg.sframe_start &&
	    l.sframe_end == s->arg.sframe_end && !strcmp(l.state, "ok") &&
	    !strcmp(l.path, "/lifetime/test"))
		return true;
	ksft_print_msg("after %s: %d lines for the text, want the one registered\n",
		       after, n);
	ct_sframe_dump();
	return false;
}

/*
 * A change of protection keeps a registration: a W^X cycle (RX, RW, RX) as
 * JITs and ld.so applying text relocations do, PROT_READ, PROT_NONE, of
 * the whole text or one page of it, and of the .sframe.  munmap() still
 * removes it afterwards.
 */
static bool lt_mprotect(struct fx *fx)
{
	static const struct {
		int prot;
		bool sframe;	/* of the .sframe, not of the text */
		bool one;	/* of one page only */
		const char *what;
	} steps[] = {
		{ PROT_READ | PROT_WRITE, false, false, "mprotect(RW) of the text" },
		{ PROT_READ | PROT_EXEC, false, false, "mprotect(RX) of the text" },
		{ PROT_READ | PROT_WRITE, false, true, "mprotect(RW) of a text page" },
		{ PROT_READ | PROT_EXEC, false, true, "mprotect(RX) of the page" },
		{ PROT_READ, false, false, "mprotect(PROT_READ) of the text" },
		{ PROT_NONE, false, false, "mprotect(PROT_NONE) of the text" },
		{ PROT_READ | PROT_WRITE, true, false, "mprotect(RW) of the .sframe" },
		{ PROT_NONE, true, false, "mprotect(PROT_NONE) of the .sframe" },
		{ PROT_READ, true, false, "mprotect(PROT_READ) of the .sframe" },
		{ PROT_READ | PROT_EXEC, false, false, "mprotect(RX) of the text" },
	};
	unsigned int i;
	struct scratch s;
	bool ok = false;
	void *at;
	size_t len;

	if (!lt_register(fx, &s, 2))
		goto out;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		at = steps[i].sframe ? (void *)s.sf : s.text;
		len = steps[i].sframe ? copy_pages(fx) * fx->page :
		      steps[i].one ? fx->page : 2 * fx->page;
		if (steps[i].one)
			at = (char *)at + fx->page;
		if (mprotect(at, len, steps[i].prot)) {
			ksft_print_msg("%s: %s\n", steps[i].what,
				       strerror(errno));
			goto out;
		}
		if (!intact(&s, steps[i].what))
			goto out;
	}
	munmap(s.text, fx->page);
	ok = gone(s.arg.text_start, "the changes of protection and munmap of a text page");
out:
	ct_unregister(s.arg.text_start);
	scratch_put(fx, &s);
	return ok;
}

/*
 * mremap(MREMAP_DONTUNMAP) leaves the old range mapped: the registration
 * stays, for the old addresses; the new range is not registered.
 */
static bool lt_mremap_dontunmap(struct fx *fx)
{
	struct scratch s;
	bool ok = false;
	void *moved;

	if (!lt_register(fx, &s, 2))
		goto out;
	/* The new address is a hint, as with mmap(): none */
	moved = mremap(s.text, 2 * fx->page, 2 * fx->page,
		       MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	if (moved == MAP_FAILED) {
		ksft_print_msg("mremap(MREMAP_DONTUNMAP): %s\n", strerror(errno));
		goto out;
	}
	ok = intact(&s, "mremap(MREMAP_DONTUNMAP) of the text");
	if (listed((unsigned long)moved)) {
		ksft_print_msg("the text is registered at its new address too\n");
		ok = false;
	}
	munmap(moved, 2 * fx->page);
	/* Unmapping the old range is what removes it. */
	munmap(s.text, 2 * fx->page);
	s.text = NULL;
	ok &= gone(s.arg.text_start, "munmap of the old range");
out:
	ct_unregister(s.arg.text_start);
	scratch_put(fx, &s);
	return ok;
}

/* mremap() growing the text in place keeps it; shrinking it removes it. */
static bool lt_mremap_size(struct fx *fx)
{
	struct scratch s;
	bool ok = false;
	void *p;

	if (!scratch_get(fx, &s, 3))
		goto out;
	/* Two pages of text, and room to grow in place: the third page */
	munmap((char *)s.text + 2 * fx->page, fx->page);
	s.arg.text_end = pg(fx, s.text, 2);
	if (!lt_register_scratch(&s))
		goto out;
	p = mremap(s.text, 2 * fx->page, 3 * fx->page, 0);
	if (p == MAP_FAILED) {
		ksft_print_msg("mremap growing the text in place: %s\n",
			       strerror(errno));
		goto out;
	}
	if (!intact(&s, "mremap growing the text in place"))
		goto out;
	p = mremap(s.text, 3 * fx->page, fx->page, 0);
	if (p == MAP_FAILED) {
		ksft_print_msg("mremap shrinking the text: %s\n",
			       strerror(errno));
		goto out;
	}
	s.pages = 1;
	ok = gone(s.arg.text_start, "mremap shrinking the text to one page");
out:
	ct_unregister(s.arg.text_start);
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

/*
 * fork() drops, in the child, the registrations whose text or .sframe lies
 * in part in memory the child does not get (MADV_DONTFORK); the parent
 * keeps them all, and the child the others.
 */
static bool lt_dontfork(struct fx *fx)
{
	struct scratch text = { 0 }, sf = { 0 }, kept = { 0 };
	bool ok = false;
	int status;
	pid_t pid;

	if (!lt_register(fx, &text, 2) || !lt_register(fx, &sf, 1) ||
	    !lt_register(fx, &kept, 1))
		goto out;
	if (madvise((char *)text.text + fx->page, fx->page, MADV_DONTFORK) ||
	    madvise(sf.sf, fx->page, MADV_DONTFORK)) {
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

		if (n != 1 || !listed(kept.arg.text_start)) {
			ksft_print_msg("child: %d registrations, want 1: the one it has\n",
				       n);
			ct_sframe_dump();
			_exit(1);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		ksft_print_msg("child failed (status %#x)\n", status);
		goto out;
	}
	ok = listed(text.arg.text_start) && listed(sf.arg.text_start) &&
	     listed(kept.arg.text_start);
	if (!ok)
		ksft_print_msg("the parent lost a registration\n");
out:
	lt_put(fx, &text);
	lt_put(fx, &sf);
	lt_put(fx, &kept);
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

#if defined(__aarch64__)
/*
 * The unwinder walks SFrame stacks of 64-bit tasks only: the kernel does
 * not register the PT_GNU_SFRAME of an AArch32 program at exec.  The test
 * writes one (../sframe/sframe_a32.c), whose section is a valid AArch64
 * one that describes its code; it makes a getpid system call, reports it,
 * and spins until killed.
 */
static bool lt_exec32(struct fx *fx)
{
	struct sft_a32_call call = { .nr = SFT_A32_NR_GETPID };
	struct ct_line l;
	char path[64];
	bool ok = false;
	__s32 res;
	pid_t pid;
	int n;

	(void)fx;
	snprintf(path, sizeof(path), "/tmp/codectl-a32-%d", getpid());
	n = sft_a32_write(path, &call, 1, NULL, 0);
	if (!n)
		n = sft_a32_start(path, 1, &res, &pid);
	unlink(path);
	if (n) {
		ksft_print_msg("the AArch32 program: %s\n", strerror(-n));
		return false;
	}
	n = ct_sframe_lines_of(pid, 0, &l, NULL, NULL);
	if (res != pid)
		ksft_print_msg("AArch32 getpid() returned %d, not %d\n", res,
			       pid);
	else if (!n)
		ok = true;
	else if (n > 0)
		ksft_print_msg("%d registrations of the AArch32 program, one: %lx-%lx %lx-%lx %s\n",
			       n, l.text_start, l.text_end, l.sframe_start,
			       l.sframe_end, l.source);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ok;
}
#else
/*
 * A 32-bit (ELFCLASS32, EM_386) program with a PT_GNU_SFRAME segment: a
 * copy of this program's own .sframe, whose header is valid.  Its code
 * writes one byte to standard output, then pauses for ever.
 */
#define E32_BASE	0x08048000UL	/* where it is loaded */
#define E32_CODE	0x80		/* file offset of the code */
#define E32_MSG		0xc0		/* of the byte it writes */
#define E32_SFRAME	0x100		/* of the SFrame section */

static const unsigned char e32_code[] = {
	0xb8, 0x04, 0x00, 0x00, 0x00,	/* mov $4, %eax: write */
	0xbb, 0x01, 0x00, 0x00, 0x00,	/* mov $1, %ebx */
	0xb9, 0xc0, 0x80, 0x04, 0x08,	/* mov $E32_BASE + E32_MSG, %ecx */
	0xba, 0x01, 0x00, 0x00, 0x00,	/* mov $1, %edx */
	0xcd, 0x80,			/* int $0x80 */
	0xb8, 0x1d, 0x00, 0x00, 0x00,	/* 1: mov $29, %eax: pause */
	0xcd, 0x80,			/* int $0x80 */
	0xeb, 0xf7,			/* jmp 1b */
};

/* The ELF32 file header and program header, as <elf.h> has them */
struct e32_ehdr {
	unsigned char e_ident[EI_NIDENT];
	__u16 e_type, e_machine;
	__u32 e_version, e_entry, e_phoff, e_shoff, e_flags;
	__u16 e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct e32_phdr {
	__u32 p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags;
	__u32 p_align;
};

static_assert(sizeof(struct e32_ehdr) == 52 && sizeof(struct e32_phdr) == 32,
	      "ELF32 headers are 52 and 32 bytes");
static_assert(sizeof(struct e32_ehdr) + 2 * sizeof(struct e32_phdr) <= E32_CODE &&
	      E32_CODE + sizeof(e32_code) <= E32_MSG,
	      "the 32-bit program's parts overlap");

static bool write_elf32(struct fx *fx, const char *path)
{
	size_t size = E32_SFRAME + fx->sframe_size;
	unsigned char *img = calloc(1, size);
	struct e32_ehdr *eh = (struct e32_ehdr *)img;
	struct e32_phdr *ph = (struct e32_phdr *)(img + sizeof(*eh));
	bool ok = false;
	int fd;

	if (!img)
		return false;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS32;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_386;
	eh->e_version = EV_CURRENT;
	eh->e_entry = E32_BASE + E32_CODE;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	ph[0].p_type = PT_LOAD;
	ph[0].p_vaddr = E32_BASE;
	ph[0].p_paddr = E32_BASE;
	ph[0].p_filesz = size;
	ph[0].p_memsz = size;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_align = 0x1000;
	ph[1].p_type = PT_GNU_SFRAME;
	ph[1].p_offset = E32_SFRAME;
	ph[1].p_vaddr = E32_BASE + E32_SFRAME;
	ph[1].p_paddr = E32_BASE + E32_SFRAME;
	ph[1].p_filesz = fx->sframe_size;
	ph[1].p_memsz = fx->sframe_size;
	ph[1].p_flags = PF_R;
	ph[1].p_align = 4;
	memcpy(img + E32_CODE, e32_code, sizeof(e32_code));
	img[E32_MSG] = 'x';
	memcpy(img + E32_SFRAME, fx->sframe, fx->sframe_size);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		ksft_print_msg("%s: %s\n", path, strerror(errno));
	else if (write(fd, img, size) != (ssize_t)size)
		ksft_print_msg("write %s: %s\n", path, strerror(errno));
	else
		ok = true;
	if (fd >= 0)
		close(fd);
	free(img);
	return ok;
}

/*
 * The unwinder walks SFrame stacks of 64-bit tasks only: the kernel does
 * not register the PT_GNU_SFRAME of a 32-bit program at exec.
 */
static bool lt_exec32(struct fx *fx)
{
	struct pollfd pfd = { .events = POLLIN };
	int pipefd[2], status, n;
	char path[64], byte = 0;
	bool ok = false;
	struct ct_line l;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/codectl-elf32-%d", getpid());
	if (!write_elf32(fx, path))
		return false;
	if (pipe2(pipefd, O_CLOEXEC)) {
		ksft_print_msg("pipe2: %s\n", strerror(errno));
		unlink(path);
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		goto out;
	}
	if (!pid) {
		char *const argv[] = { path, NULL };

		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(126);
		execve(path, argv, environ);
		_exit(127);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	pfd.fd = pipefd[0];
	if (poll(&pfd, 1, 30000) != 1 || read(pipefd[0], &byte, 1) != 1 ||
	    byte != 'x') {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ksft_print_msg("the 32-bit program did not run (status %#x)\n",
			       status);
		ksft_print_msg("%s\n", "it needs CONFIG_IA32_EMULATION=y");
		pid = 0;
		goto out;
	}
	n = ct_sframe_lines_of(pid, 0, &l, NULL, NULL);
	if (!n)
		ok = true;
	else if (n > 0)
		ksft_print_msg("%d registrations of the 32-bit program, one: %lx-%lx %lx-%lx %s\n",
			       n, l.text_start, l.text_end, l.sframe_start,
			       l.sframe_end, l.source);
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	unlink(path);
	return ok;
}
#endif

static const struct check ltcases[] = {
	{ "lifetime: munmap of a page of the text removes it", lt_munmap_text },
	{ "lifetime: munmap of the .sframe removes it", lt_munmap_sframe },
	{ "lifetime: munmap of a .sframe far from its text removes it",
	  lt_munmap_far_sframe },
	{ "lifetime: a sidecar 1 GiB away: fork copies it, not if MADV_DONTFORK; munmap removes it",
	  lt_sidecar },
	{ "lifetime: munmap still removes them after the lowest and a far one went",
	  lt_bounds_after_unregister },
	{ "lifetime: munmap of another mapping keeps it", lt_munmap_other },
	{ "lifetime: mremap of the text removes it", lt_mremap },
	{ "lifetime: mremap(MREMAP_DONTUNMAP) of the text keeps it, at the old address",
	  lt_mremap_dontunmap },
	{ "lifetime: mremap growing the text in place keeps it, shrinking it removes it",
	  lt_mremap_size },
	{ "lifetime: mmap(MAP_FIXED) over the text removes it", lt_map_fixed },
	{ "lifetime: mprotect keeps it: RX, RW, RX (W^X), PROT_READ, PROT_NONE; munmap removes it",
	  lt_mprotect },
	{ "lifetime: fork copies it, the copies are independent", lt_fork },
	{ "lifetime: fork drops it in the child when its text or .sframe is MADV_DONTFORK",
	  lt_dontfork },
	{ "lifetime: a registration made at exec can be unregistered", lt_unreg_exec },
	{ "lifetime: exec clears it", lt_exec },
	{ "exec: a 32-bit program's PT_GNU_SFRAME is not registered", lt_exec32 },
	{ "/proc/<pid>/sframe: access is checked at open, as for maps",
	  lt_proc_access },
};

/* ---- At the limit of SFRAME_MAX_SECTIONS registrations ------------------ */

#define NREG		CT_MAX_SECTIONS
#define PATH_LEN	(PATH_MAX - 1)	/* the longest path: 4095 bytes */

/* .sframe pages of the fork case, each page its own VMA */
#define FORK_SFRAME_PAGES	256
#define FORK_RUNS		5

/* What memory.current may lag: a batch of pages charged ahead, per CPU */
#define MEMCG_CHARGE_BATCH	64

#define CG_ROOT		"/sys/fs/cgroup"
#define CGROUP2_MAGIC	0x63677270

/* @pages fresh pages, this program's .sframe at their start */
static unsigned char *sframe_spread(struct fx *fx, long pages, int prot)
{
	unsigned char *p = map_pages(fx, pages, PROT_READ | PROT_WRITE);

	if (!p)
		return NULL;
	memcpy(p, fx->sframe, fx->sframe_size);
	if (mprotect(p, pages * fx->page, prot)) {
		ksft_print_msg("mprotect: %s\n", strerror(errno));
		munmap(p, pages * fx->page);
		return NULL;
	}
	return p;
}

/* Registration @i: text page @i of @text, the section [@sf, @sf + @sf_len) */
static struct codectl_sframe limit_arg(struct fx *fx, void *text, long i,
				       const unsigned char *sf, size_t sf_len)
{
	struct codectl_sframe a = {
		.text_start = (unsigned long)text + i * fx->page,
		.text_end = (unsigned long)text + (i + 1) * fx->page,
		.sframe_start = (unsigned long)sf,
		.sframe_end = (unsigned long)sf + sf_len,
	};

	return a;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Run @fn in a child process; true if it exited with 0. */
static bool run_in_child(struct fx *fx, bool (*fn)(struct fx *fx))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		return false;
	}
	if (!pid)
		_exit(fn(fx) ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid) {
		ksft_print_msg("waitpid: %s\n", strerror(errno));
		return false;
	}
	if (WIFSIGNALED(status))
		ksft_print_msg("the child was killed by signal %d\n",
			       WTERMSIG(status));
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/* Free every slot: unregister what the kernel registered at exec. */
static bool all_slots(void)
{
	int n = ct_drop_exec();

	if (n < 0)
		return false;
	n = ct_sframe_lines(0, NULL, NULL, NULL);
	if (n) {
		ksft_print_msg("%d registrations left after dropping those made at exec\n",
			       n);
		return false;
	}
	return true;
}

/* ---- /proc/<pid>/sframe with many long lines -------------------------- */

/*
 * Path @i: 4095 bytes, its number first, then plain characters with one in
 * eight of those /proc/<pid>/sframe escapes (space, tab, newline,
 * backslash) and now and then a byte it shows as it is (0xe9); every 64th
 * path has nothing but characters to escape after its number.
 */
static void make_path(char *p, unsigned int i)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz0123456789._-/";
	static const char special[] = " \t\n\\";
	unsigned int x = i * 2654435761u + 1;
	int k;

	k = snprintf(p, PATH_LEN + 1, "/%u:", i);
	for (; k < PATH_LEN; k++) {
		x = x * 1103515245u + 12345u;
		if (i % 64 == 63 || (x >> 16) % 8 == 0)
			p[k] = special[(x >> 20) % 4];
		else if ((x >> 16) % 251 == 1)
			p[k] = (char)0xe9;
		else
			p[k] = plain[(x >> 20) % (sizeof(plain) - 1)];
	}
	p[PATH_LEN] = '\0';
}

/* Build ID of registration @i: @i % 21 bytes, 0 to 20 */
static unsigned int make_build_id(unsigned char *id, unsigned int i)
{
	unsigned int len = i % (CT_BUILD_ID_MAX + 1), j;

	for (j = 0; j < len; j++)
		id[j] = i * 7 + j * 37;
	return len;
}

/* Append the line registration @a must have to @buf at @len; new length. */
static size_t expect_line(char *buf, size_t len, struct fx *fx,
			  const struct codectl_sframe *a,
			  const unsigned char *id, unsigned int id_len,
			  const char *path)
{
	char hex[2 * CT_BUILD_ID_MAX + 1];

	len += sprintf(buf + len, "%08llx-%08llx %08llx-%08llx v%u codectl ok",
		       a->text_start, a->text_end, a->sframe_start,
		       a->sframe_end, (unsigned int)fx->sframe[SF_VERSION]);
	if (id_len) {
		ct_hex(hex, id, id_len);
		len += sprintf(buf + len, " build-id=%s", hex);
	}
	buf[len++] = ' ';
	ct_escape(buf + len, CT_PATH_SHOWN_MAX + 1, path);
	len += strlen(buf + len);
	buf[len++] = '\n';
	return len;
}

/* Say where @got and @want first differ, by line. */
static void show_diff(const char *what, const char *got, size_t got_len,
		      const char *want, size_t want_len, size_t base)
{
	size_t i, n = got_len < want_len ? got_len : want_len, line = 1, bol = 0;

	for (i = 0; i < n && got[i] == want[i]; i++) {
		if (want[i] == '\n') {
			line++;
			bol = i + 1;
		}
	}
	if (i == n && got_len == want_len)
		return;
	ksft_print_msg("%s: %zu bytes, want %zu\n", what, got_len, want_len);
	ksft_print_msg("they differ at byte %zu, column %zu of line %zu (from byte %zu)\n",
		       i, i - bol + 1, line, base);
	ksft_print_msg("  got:  '%.*s'\n", (int)(got_len - bol < 80 ? got_len - bol : 80),
		       got + bol);
	ksft_print_msg("  want: '%.*s'\n", (int)(want_len - bol < 80 ? want_len - bol : 80),
		       want + bol);
}

/*
 * Read @fd to its end, or @max bytes, in pieces of the sizes of @sizes in
 * turn, the first @ones bytes one at a time.  Returns the length, or -1.
 */
static ssize_t read_pieces(int fd, char *buf, size_t max, size_t ones,
			   const size_t *sizes, unsigned int nsizes)
{
	size_t len = 0, want;
	unsigned int k = 0;
	ssize_t n;

	while (len < max) {
		want = len < ones ? 1 : sizes[k++ % nsizes];
		if (want > max - len)
			want = max - len;
		n = read(fd, buf + len, want);
		if (n < 0) {
			ksft_print_msg("read of %zu bytes at %zu: %s\n", want,
				       len, strerror(errno));
			return -1;
		}
		if (!n)
			break;
		if ((size_t)n > want) {
			ksft_print_msg("read of %zu bytes returned %zd\n", want,
				       n);
			return -1;
		}
		len += n;
	}
	return len;
}

static bool proc_lines(struct fx *fx)
{
	static const size_t hundred[] = { 100 };
	static const size_t mixed[] = { 4096, 1, 100, 65536, 7, 16387, 333 };
	unsigned char *sf = NULL, id[CT_BUILD_ID_MAX];
	size_t want_len = 0, cap, mid, ones;
	char *paths = NULL, *want = NULL, *got = NULL;
	struct codectl_sframe a;
	unsigned int id_len;
	void *text = NULL;
	bool ok = false;
	ssize_t len;
	int fd = -1, ret;
	long i;

	if (!all_slots())
		return false;
	text = map_pages(fx, NREG, PROT_READ | PROT_EXEC);
	sf = sframe_spread(fx, copy_pages(fx), PROT_READ);
	paths = malloc((size_t)NREG * (PATH_LEN + 1));
	cap = (size_t)NREG * (CT_PATH_SHOWN_MAX + 256);
	want = malloc(cap);
	got = malloc(cap + 1);
	if (!text || !sf || !paths || !want || !got) {
		ksft_print_msg("out of memory\n");
		goto out;
	}

	/* In address order, as the file lists them */
	for (i = 0; i < NREG; i++) {
		char *path = paths + i * (PATH_LEN + 1);

		make_path(path, i);
		id_len = make_build_id(id, i);
		a = limit_arg(fx, text, i, sf, fx->sframe_size);
		a.pathname = (unsigned long)path;
		a.build_id = id_len ? (unsigned long)id : 0;
		a.build_id_len = id_len;
		ret = ct_register(&a);
		if (ret) {
			ksft_print_msg("registration %ld: %s\n", i + 1,
				       strerror(ret));
			goto out;
		}
		want_len = expect_line(want, want_len, fx, &a, id, id_len,
				       path);
	}
	ksft_print_msg("%d registrations: /proc/self/sframe should be %zu bytes\n",
		       NREG, want_len);

	fd = open("/proc/self/sframe", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ksft_print_msg("/proc/self/sframe: %s\n", strerror(errno));
		goto out;
	}
	/* The first three lines and a bit one byte at a time, then 100 */
	ones = 0;
	for (i = 0; i < 3; i++)
		ones = (char *)memchr(want + ones, '\n', want_len - ones) -
		       want + 1;
	ones += 100;
	len = read_pieces(fd, got, cap + 1, ones, hundred, 1);
	if (len < 0)
		goto out;
	ok = (size_t)len == want_len && !memcmp(got, want, len);
	show_diff("read by 1 byte, then by 100", got, len, want, want_len, 0);

	/* Again, from the start, in pieces of every size */
	if (lseek(fd, 0, SEEK_SET)) {
		ksft_print_msg("lseek to 0: %s\n", strerror(errno));
		goto fail;
	}
	len = read_pieces(fd, got, cap + 1, 0, mixed, ARRAY_SIZE(mixed));
	if (len < 0)
		goto fail;
	ok &= (size_t)len == want_len && !memcmp(got, want, len);
	show_diff("after lseek to 0, read in mixed pieces", got, len, want,
		  want_len, 0);

	/* From the middle of a line in the middle of the file */
	mid = (char *)memchr(want + want_len / 2, '\n', want_len / 2) - want +
	      1 + 17;
	if (lseek(fd, mid, SEEK_SET) != (off_t)mid) {
		ksft_print_msg("lseek to %zu: %s\n", mid, strerror(errno));
		goto fail;
	}
	len = read_pieces(fd, got, 3 * CT_PATH_SHOWN_MAX, 0, hundred, 1);
	if (len < 0)
		goto fail;
	ok &= (size_t)len == 3 * CT_PATH_SHOWN_MAX &&
	      !memcmp(got, want + mid, len);
	show_diff("after lseek into a line, read by 100", got, len, want + mid,
		  3 * CT_PATH_SHOWN_MAX, mid);
	goto out;
fail:
	ok = false;
out:
	if (fd >= 0)
		close(fd);
	free(paths);
	free(want);
	free(got);
	return ok;
}

/* ---- The memory cgroup ---------------------------------------------- */

/* The cgroup of the test, and what it changed to make it */
struct cg {
	char dir[64];
	bool mounted;		/* it mounted cgroup2 at CG_ROOT */
	bool enabled;		/* it enabled the memory controller */
};

static bool write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, s, strlen(s));
		close(fd);
	}
	if (n != (ssize_t)strlen(s)) {
		ksft_print_msg("write '%s' to %s: %s\n", s, path,
			       strerror(errno));
		return false;
	}
	return true;
}

static bool read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (n < 0) {
		ksft_print_msg("%s: %s\n", path, strerror(errno));
		return false;
	}
	buf[n] = '\0';
	return true;
}

/* The memory.current of @cg, or -1 */
static long long cg_current(const struct cg *cg)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), "%s/memory.current", cg->dir);
	if (!read_file(path, buf, sizeof(buf)))
		return -1;
	return atoll(buf);
}

/* Is @word one of the words of @list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/*
 * A child cgroup with the memory controller: cgroup2 mounted at
 * /sys/fs/cgroup (mounted here if it is not), its memory controller
 * enabled for the children.  What is missing is a failure, said.
 */
static bool cg_make(struct cg *cg)
{
	char buf[512];
	struct statfs st;

	memset(cg, 0, sizeof(*cg));
	if (statfs(CG_ROOT, &st) || st.f_type != CGROUP2_MAGIC) {
		if (mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL)) {
			ksft_print_msg("no cgroup2 at %s, and mounting it failed: %s\n",
				       CG_ROOT, strerror(errno));
			ksft_print_msg("%s\n", "it needs CONFIG_CGROUPS=y");
			return false;
		}
		cg->mounted = true;
	}
	if (!read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)))
		return false;
	if (!has_word(buf, "memory")) {
		ksft_print_msg("no memory controller in %s/cgroup.controllers ('%s')\n",
			       CG_ROOT, strtok(buf, "\n") ?: "");
		ksft_print_msg("%s\n", "it needs CONFIG_MEMCG=y");
		return false;
	}
	if (!read_file(CG_ROOT "/cgroup.subtree_control", buf, sizeof(buf)))
		return false;
	if (!has_word(buf, "memory")) {
		if (!write_file(CG_ROOT "/cgroup.subtree_control", "+memory"))
			return false;
		cg->enabled = true;
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s/codectl-%d", CG_ROOT, getpid());
	if (mkdir(cg->dir, 0755)) {
		ksft_print_msg("mkdir %s: %s\n", cg->dir, strerror(errno));
		cg->dir[0] = '\0';
		return false;
	}
	return true;
}

/* Undo cg_make(), once nothing runs in the cgroup. */
static void cg_remove(struct cg *cg)
{
	if (cg->dir[0] && rmdir(cg->dir))
		ksft_print_msg("rmdir %s: %s\n", cg->dir, strerror(errno));
	if (cg->enabled)
		write_file(CG_ROOT "/cgroup.subtree_control", "-memory");
	if (cg->mounted && umount(CG_ROOT))
		ksft_print_msg("umount %s: %s\n", CG_ROOT, strerror(errno));
}

static struct cg memcg;

/*
 * In the child cgroup, on one CPU: memory.current charges ahead in batches
 * of MEMCG_CHARGE_BATCH pages, per CPU, so on one CPU it may lag the
 * growth by up to one batch, whatever the number of CPUs.
 */
static bool memcg_charge(struct fx *fx)
{
	long long base, peak, now, batch = MEMCG_CHARGE_BATCH * fx->page;
	long long paths_len = (long long)NREG * (PATH_LEN + 1);
	unsigned char *sf = NULL;
	struct codectl_sframe a;
	char path[128], *paths;
	double t0;
	void *text;
	cpu_set_t cpus;
	int ret;
	long i;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		ksft_print_msg("sched_setaffinity: %s\n", strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", memcg.dir);
	if (!write_file(path, "0") || !all_slots())
		return false;
	/* Everything user space needs, touched before the first figure */
	text = map_pages(fx, NREG, PROT_READ | PROT_EXEC);
	sf = sframe_spread(fx, copy_pages(fx), PROT_READ);
	paths = malloc(paths_len);
	if (!text || !sf || !paths)
		return false;
	for (i = 0; i < NREG; i++)
		make_path(paths + i * (PATH_LEN + 1), i);

	base = cg_current(&memcg);
	for (i = 0; i < NREG; i++) {
		a = limit_arg(fx, text, i, sf, fx->sframe_size);
		a.pathname = (unsigned long)(paths + i * (PATH_LEN + 1));
		ret = ct_register(&a);
		if (ret) {
			ksft_print_msg("registration %ld: %s\n", i + 1,
				       strerror(ret));
			return false;
		}
	}
	peak = cg_current(&memcg);
	for (i = 0; i < NREG; i++)
		ct_unregister((unsigned long)text + i * fx->page);
	/* The memory is freed after an RCU grace period. */
	t0 = now_us();
	do {
		usleep(100 * 1000);
		now = cg_current(&memcg);
	} while (now - base > paths_len / 4 && now_us() - t0 < 30e6);
	if (base < 0 || peak < 0 || now < 0)
		return false;
	ksft_print_msg("memory.current: %lld before, %lld with %d registrations\n",
		       base, peak, NREG);
	ksft_print_msg("(%+lld; their paths: %lld bytes), %lld after their removal\n",
		       peak - base, paths_len, now);
	if (peak - base < paths_len - batch) {
		ksft_print_msg("it grew by %lld bytes, less than the paths (%lld)\n",
			       peak - base, paths_len);
		ksft_print_msg("(less a batch of %lld bytes charged ahead)\n",
			       batch);
		return false;
	}
	if (now - base > paths_len / 4) {
		ksft_print_msg("30 s after the removal it is still %lld bytes above where it was\n",
			       now - base);
		return false;
	}
	return true;
}

static bool memcg_case(struct fx *fx)
{
	bool ok;

	if (!cg_make(&memcg)) {
		cg_remove(&memcg);
		return false;
	}
	ok = run_in_child(fx, memcg_charge);
	cg_remove(&memcg);
	return ok;
}

/* ---- fork() ----------------------------------------------------------- */

/*
 * 1024 text pages, and a .sframe range of FORK_SFRAME_PAGES pages whose
 * protection alternates between read-only and read-write, so that each
 * page is its own VMA.
 */
struct forkset {
	void *text;
	unsigned char *sf;
	size_t sf_len;
};

/* The VMAs of [start, end) in /proc/self/maps */
static int vmas_in(unsigned long start, unsigned long end)
{
	unsigned long lo, hi;
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo >= start &&
		    hi <= end)
			n++;
	fclose(f);
	return n;
}

static bool fork_setup(struct fx *fx, struct forkset *fs)
{
	long i;
	int n;

	if (!all_slots())
		return false;
	fs->text = map_pages(fx, NREG, PROT_READ | PROT_EXEC);
	fs->sf = sframe_spread(fx, FORK_SFRAME_PAGES, PROT_READ);
	fs->sf_len = FORK_SFRAME_PAGES * fx->page;
	if (!fs->text || !fs->sf)
		return false;
	for (i = 1; i < FORK_SFRAME_PAGES; i += 2) {
		if (mprotect(fs->sf + i * fx->page, fx->page,
			     PROT_READ | PROT_WRITE)) {
			ksft_print_msg("mprotect: %s\n", strerror(errno));
			return false;
		}
	}
	n = vmas_in((unsigned long)fs->sf, (unsigned long)fs->sf + fs->sf_len);
	if (n != FORK_SFRAME_PAGES) {
		ksft_print_msg("the .sframe range has %d VMAs, not %d\n", n,
			       FORK_SFRAME_PAGES);
		return false;
	}
	return true;
}

static bool fork_register(struct fx *fx, struct forkset *fs)
{
	struct codectl_sframe a;
	int ret;
	long i;

	for (i = 0; i < NREG; i++) {
		a = limit_arg(fx, fs->text, i, fs->sf, fs->sf_len);
		ret = ct_register(&a);
		if (ret) {
			ksft_print_msg("registration %ld: %s\n", i + 1,
				       strerror(ret));
			return false;
		}
	}
	return true;
}

/*
 * In a child: are the registrations those of @fs, but for the text pages
 * @skip[0..@nskip)?  Exits with 0 if so.
 */
static void child_check(struct fx *fx, const struct forkset *fs,
			const long *skip, int nskip)
{
	struct ct_line *lines = calloc(NREG, sizeof(*lines)), *l;
	int n, bad = 0, j, k = 0;
	long i;

	/* Read once: the lines are in address order, as the text pages. */
	n = lines ? ct_sframe_all(lines, NREG) : -1;
	if (n != NREG - nskip) {
		ksft_print_msg("child: %d registrations, want %d\n", n,
			       NREG - nskip);
		_exit(1);
	}
	for (i = 0, j = 0; i < NREG; i++) {
		unsigned long t = (unsigned long)fs->text + i * fx->page;

		if (j < nskip && skip[j] == i) {
			j++;
			if (k < n && lines[k].text_start == t && bad++ < 5)
				ksft_print_msg("child: text page %ld is registered\n",
					       i);
			continue;
		}
		l = k < n ? &lines[k++] : NULL;
		if (!l || l->text_start != t || l->text_end != t + fx->page ||
		    l->sframe_start != (unsigned long)fs->sf ||
		    l->sframe_end != (unsigned long)fs->sf + fs->sf_len) {
			if (bad++ < 5)
				ksft_print_msg("child: text page %ld: not its registration\n",
					       i);
		}
	}
	_exit(bad ? 1 : 0);
}

/* Fork @runs times, children that exit at once; the median time of fork() */
static double fork_time(int runs)
{
	double t[FORK_RUNS], t0, x;
	int i, j, status;
	pid_t pid;

	for (i = 0; i < runs; i++) {
		t0 = now_us();
		pid = fork();
		if (!pid)
			_exit(0);
		t[i] = now_us() - t0;
		if (pid < 0)
			return -1;
		waitpid(pid, &status, 0);
	}
	for (i = 1; i < runs; i++)
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	return t[runs / 2];
}

/* Fork, check the child with child_check(); true if it passed. */
static bool fork_check(struct fx *fx, const struct forkset *fs,
		       const long *skip, int nskip)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		return false;
	}
	if (!pid)
		child_check(fx, fs, skip, nskip);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

static bool fork_many(struct fx *fx)
{
	struct forkset fs;
	double none, many;

	if (!fork_setup(fx, &fs))
		return false;
	fflush(stdout);
	none = fork_time(FORK_RUNS);
	if (!fork_register(fx, &fs))
		return false;
	many = fork_time(FORK_RUNS);
	ksft_print_msg("fork(), median of %d: %.0f us without registrations\n",
		       FORK_RUNS, none);
	ksft_print_msg("fork(), median of %d: %.0f us with %d, .sframe over %d VMAs\n",
		       FORK_RUNS, many, NREG, FORK_SFRAME_PAGES);
	if (none < 0 || many < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		return false;
	}
	return fork_check(fx, &fs, NULL, 0);
}

static bool fork_dontfork(struct fx *fx)
{
	static const long skip[] = { 0, NREG / 2 - 1, NREG - 1 };
	struct forkset fs;
	unsigned int i;

	if (!fork_setup(fx, &fs) || !fork_register(fx, &fs))
		return false;
	for (i = 0; i < ARRAY_SIZE(skip); i++) {
		if (madvise((char *)fs.text + skip[i] * fx->page, fx->page,
			    MADV_DONTFORK)) {
			ksft_print_msg("madvise(MADV_DONTFORK): %s\n",
				       strerror(errno));
			return false;
		}
	}
	return fork_check(fx, &fs, skip, ARRAY_SIZE(skip));
}

static bool lim_proc(struct fx *fx)
{
	return run_in_child(fx, proc_lines);
}

static bool lim_fork(struct fx *fx)
{
	return run_in_child(fx, fork_many);
}

static bool lim_dontfork(struct fx *fx)
{
	return run_in_child(fx, fork_dontfork);
}

/*
 * Each in a child process, which first unregisters what the kernel
 * registered at exec, so that all 1024 slots are its own.
 */
static const struct check limcases[] = {
	{ "limit: /proc/<pid>/sframe, 1024 lines of 4095-byte paths, read in pieces",
	  lim_proc },
	{ "limit: 1024 registrations with 4 KiB paths are charged to memory.current",
	  memcg_case },
	{ "limit: fork copies 1024 registrations, their .sframe over 256 VMAs",
	  lim_fork },
	{ "limit: fork with 1024 registrations drops only the MADV_DONTFORK ones",
	  lim_dontfork },
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
		      ARRAY_SIZE(ltcases) + ARRAY_SIZE(limcases));
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
	run_checks(&fx, limcases, ARRAY_SIZE(limcases));
	ksft_finished();
}
