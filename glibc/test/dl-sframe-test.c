// SPDX-License-Identifier: GPL-2.0
/*
 * dl-sframe-test: the series' sysdeps/unix/sysv/linux/dl-sframe.c, built
 * on the host against mock glibc internals (mock/) and a fake codectl(2),
 * run on objects this program has loaded:
 *
 *	dl-sframe-test SIDECARS LIBSF LIBNOID LIBLONGID WORKDIR
 *
 * SIDECARS is a sidecar directory with a good sidecar of the C library
 * this program runs with (sframe-gen's), LIBSF a library with
 * PT_GNU_SFRAME, LIBNOID one with neither PT_GNU_SFRAME nor a build ID,
 * LIBLONGID one with PT_GNU_SFRAME and a build ID of 32 bytes,
 * WORKDIR an empty directory for the hostile sidecars made from the good
 * one.  Each case runs in a child of its own (dl-sframe.c's probe is once
 * per process) and prints a TAP line; the last line is "N passed, N
 * failed".
 *
 * The fake kernel checks what the real one checks of a registration that
 * matters here (flags, sizes, the SFrame magic, overlaps, the key of an
 * unregistration) and records it; the cases compare the records with what
 * the objects' program headers say, and count the system calls and the
 * files opened.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "mock/ldsodefs.h"
#include "mock/dl-tunables.h"
#include "dl-codectl.h"
#include "dl-sframe.h"

#define SFRAME_MAGIC	0xdee2
#if defined(__x86_64__)
#define HOST_MACHINE	EM_X86_64
#else
#define HOST_MACHINE	EM_AARCH64
#endif
#define MAX_REGS	64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* What dl-sframe.c's mocks need */
struct sft_rtld_global_ro sft_glro;
int32_t sft_tunable_sframe = 1;
struct tunable_str_t sft_tunable_sframe_prefix;

/* The fake kernel's registrations and counters */
struct reg {
	struct codectl_sframe s;
	char path[PATH_MAX];
	unsigned char build_id[CODECTL_BUILD_ID_MAX];
};
static struct reg regs[MAX_REGS];
static int nregs;
static int nsyscalls, nopens;
static int fail_with;		/* every call fails with it */
static char debug_log[16384];

static const char *sidecars, *libsf_path, *libnoid_path, *liblongid_path;
static const char *workdir;

long sft_syscall(long nr, unsigned int option, const void *info, size_t size,
		 unsigned int flags)
{
	nsyscalls++;
	if (nr != 473 || flags)
		return -EINVAL;
	if (fail_with)
		return -fail_with;
	if (option == CODECTL_UNREGISTER) {
		const struct codectl_unregister *u = info;
		int i;

		if (size < CODECTL_UNREGISTER_SIZE_VER0)
			return -EINVAL;
		for (i = 0; i < nregs; i++) {
			if (regs[i].s.text_start == u->text_start) {
				regs[i] = regs[--nregs];
				return 0;
			}
		}
		return -ENOENT;
	}
	if (option == CODECTL_REGISTER_SFRAME) {
		const struct codectl_sframe *s = info;
		uint16_t magic;
		int i;

		if (size != CODECTL_SFRAME_SIZE_VER2)
			return -EINVAL;
		if (s->text_end <= s->text_start ||
		    s->sframe_end <= s->sframe_start || s->sframe_start % 4)
			return -EINVAL;
		if (s->build_id_len > CODECTL_BUILD_ID_MAX ||
		    !s->build_id != !s->build_id_len)
			return -EINVAL;
		memcpy(&magic, (const void *)(uintptr_t)s->sframe_start, 2);
		if (magic != SFRAME_MAGIC)
			return -ENOEXEC;
		for (i = 0; i < nregs; i++)
			if (s->text_start < regs[i].s.text_end &&
			    regs[i].s.text_start < s->text_end)
				return -EEXIST;
		if (nregs == MAX_REGS)
			return -ENOSPC;
		memset(&regs[nregs], 0, sizeof(regs[nregs]));
		regs[nregs].s = *s;
		if (s->pathname)
			snprintf(regs[nregs].path, PATH_MAX, "%s",
				 (const char *)(uintptr_t)s->pathname);
		if (s->build_id)
			memcpy(regs[nregs].build_id,
			       (const void *)(uintptr_t)s->build_id,
			       s->build_id_len);
		nregs++;
		return 0;
	}
	return -EINVAL;
}

void _dl_debug_printf(const char *fmt, ...)
{
	size_t n = strlen(debug_log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(debug_log + n, sizeof(debug_log) - n, fmt, ap);
	va_end(ap);
}

void *__mempcpy(void *dst, const void *src, size_t n)
{
	return mempcpy(dst, src, n);
}

void *__mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int __munmap(void *addr, size_t len)
{
	return munmap(addr, len);
}

int __mprotect(void *addr, size_t len, int prot)
{
	return mprotect(addr, len, prot);
}

int __fstat64_time64(int fd, struct stat *st)
{
	return fstat(fd, st);
}

int __open64_nocancel(const char *path, int flags, ...)
{
	nopens++;
	return open(path, flags);
}

void __close_nocancel_nostatus(int fd)
{
	close(fd);
}

ssize_t __pread64_nocancel(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

/* ---- the objects ---- */

struct obj {
	struct sft_link_map lm;
	const unsigned char *build_id;
	size_t build_id_len;
	unsigned int ntext;
	ElfW(Addr) text_start[16], text_end[16];
	const ElfW(Phdr) *sframe;
	ElfW(Addr) v;		/* the sidecar's section address (gen/README) */
};

/*
 * The public head of glibc's struct link_map (<link.h>), which the mock's
 * struct link_map hides here
 */
struct pub_link_map {
	ElfW(Addr) l_addr;
	char *l_name;
};

static bool get_obj(const char *name, struct obj *o)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
	ElfW(Addr) end = 0, align = 4096;
	struct pub_link_map *l;
	int phnum, i;

	if (!h)
		h = dlopen(name, RTLD_NOW);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &l)) {
		printf("# dlopen %s: %s\n", name, dlerror());
		return false;
	}
	memset(o, 0, sizeof(*o));
	phnum = dlinfo(h, RTLD_DI_PHDR, &o->lm.l_phdr);
	if (phnum <= 0)
		return false;
	o->lm.l_phnum = phnum;
	o->lm.l_addr = l->l_addr;
	o->lm.l_name = l->l_name;
	for (i = 0; i < phnum; i++) {
		const ElfW(Phdr) *ph = &o->lm.l_phdr[i];

		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr + ph->p_memsz > end)
				end = ph->p_vaddr + ph->p_memsz;
			if (ph->p_align > align)
				align = ph->p_align;
			if ((ph->p_flags & PF_X) && o->ntext < 16) {
				o->text_start[o->ntext] = l->l_addr + ph->p_vaddr;
				o->text_end[o->ntext++] = l->l_addr + ph->p_vaddr +
							  ph->p_memsz;
			}
		} else if (ph->p_type == PT_GNU_SFRAME) {
			o->sframe = ph;
		} else if (ph->p_type == PT_NOTE) {
			const unsigned char *p = (const void *)(l->l_addr + ph->p_vaddr);
			const ElfW(Nhdr) *n = (const void *)p;

			/* The build ID note comes first in its segment. */
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4)) {
				o->build_id = p + sizeof(*n) + 4;
				o->build_id_len = n->n_descsz;
			}
		}
	}
	o->v = (end + align - 1) & ~(align - 1);
	return true;
}

/* ---- checks ---- */

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		failures++;						\
	}								\
} while (0)

/* The permissions of the mapping at @addr in /proc/self/maps, or "" */
static void perms_at(uintptr_t addr, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char p[5], line[512];

	perms[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 &&
		    addr >= lo && addr < hi) {
			memcpy(perms, p, 5);
			break;
		}
	}
	if (f)
		fclose(f);
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static int count_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!access(path, F_OK))
			n++;
	}
	return n;
}

static void set_prefix(const char *dir)
{
	sft_tunable_sframe_prefix.str = dir;
	sft_tunable_sframe_prefix.len = dir ? strlen(dir) : 0;
}

/* The registrations of @o are those of its text, with @sframe_addr */
static void check_regs(const struct obj *o, bool sidecar)
{
	unsigned int i;
	int j;

	CHECK(nregs == (int)o->ntext, "%d registrations, %u text segments",
	      nregs, o->ntext);
	for (i = 0; i < o->ntext; i++) {
		const struct reg *r = NULL;

		for (j = 0; j < nregs; j++)
			if (regs[j].s.text_start == o->text_start[i])
				r = &regs[j];
		CHECK(r, "text %#lx not registered",
		      (unsigned long)o->text_start[i]);
		if (!r)
			continue;
		CHECK(r->s.text_end == o->text_end[i], "text end %#llx, not %#lx",
		      (unsigned long long)r->s.text_end,
		      (unsigned long)o->text_end[i]);
		CHECK(!strcmp(r->path, o->lm.l_name), "path '%s', not '%s'",
		      r->path, o->lm.l_name);
		CHECK(r->s.build_id_len == o->build_id_len &&
		      !memcmp(r->build_id, o->build_id, o->build_id_len),
		      "not the object's build ID");
		if (sidecar) {
			char perms[5];

			CHECK(r->s.sframe_addr == o->lm.l_addr + o->v,
			      "sframe_addr %#llx, not l_addr + V = %#lx",
			      (unsigned long long)r->s.sframe_addr,
			      (unsigned long)(o->lm.l_addr + o->v));
			perms_at(r->s.sframe_start, perms);
			CHECK(!strcmp(perms, "r--p"),
			      "the sidecar's copy is '%s', not read-only private",
			      perms);
			CHECK((uintptr_t)o->lm.l_sframe_copy <= r->s.sframe_start &&
			      r->s.sframe_end <= (uintptr_t)o->lm.l_sframe_copy +
						o->lm.l_sframe_copy_size,
			      "the section is not in the copy");
		} else {
			CHECK(r->s.sframe_addr == 0, "sframe_addr %#llx",
			      (unsigned long long)r->s.sframe_addr);
			CHECK(r->s.sframe_start == o->lm.l_addr + o->sframe->p_vaddr &&
			      r->s.sframe_end == r->s.sframe_start +
						 o->sframe->p_memsz,
			      "not the PT_GNU_SFRAME segment");
		}
	}
}

/* ---- cases ---- */

static struct obj libc_obj, sf_obj, noid_obj, longid_obj;

static void case_sidecar(void)
{
	int maps = count_lines("/proc/self/maps"), fds = count_fds();
	void *copy;

	set_prefix(sidecars);
	_dl_sframe_register(&libc_obj.lm);
	check_regs(&libc_obj, true);
	CHECK(libc_obj.lm.l_sframe_copy, "no copy kept");
	copy = libc_obj.lm.l_sframe_copy;
	_dl_sframe_unregister(&libc_obj.lm);
	CHECK(nregs == 0, "%d registrations left after unregister", nregs);
	CHECK(!libc_obj.lm.l_sframe_copy && !libc_obj.lm.l_sframe_registered,
	      "the link map still says registered");
	if (copy) {
		char perms[5];

		perms_at((uintptr_t)copy, perms);
		CHECK(!perms[0], "the copy is still mapped (%s)", perms);
	}
	CHECK(count_lines("/proc/self/maps") == maps, "mappings leaked");
	CHECK(count_fds() == fds, "descriptors leaked");
}

static void case_sframe(void)
{
	set_prefix(sidecars);
	_dl_sframe_register(&sf_obj.lm);
	check_regs(&sf_obj, false);
	CHECK(!sf_obj.lm.l_sframe_copy, "a copy for PT_GNU_SFRAME");
	CHECK(nopens == 0, "%d files opened for an object with PT_GNU_SFRAME",
	      nopens);
	_dl_sframe_unregister(&sf_obj.lm);
	CHECK(nregs == 0, "%d registrations left", nregs);
}

static void case_exec(void)
{
	_dl_sframe_register_exec(&sf_obj.lm, sf_obj.lm.l_phdr,
				 sf_obj.lm.l_phnum);
	CHECK(nsyscalls == 0 && nregs == 0,
	      "%d system calls for what the kernel registered at exec",
	      nsyscalls);
}

static void case_unavailable(int err)
{
	set_prefix(sidecars);
	fail_with = err;
	_dl_sframe_register(&libc_obj.lm);
	_dl_sframe_register(&sf_obj.lm);
	_dl_sframe_register(&libc_obj.lm);
	CHECK(nsyscalls == 1, "%d system calls, not one probe", nsyscalls);
	CHECK(nopens == 0, "%d files opened", nopens);
	CHECK(!libc_obj.lm.l_sframe_registered && !sf_obj.lm.l_sframe_registered,
	      "registered");
}

/*
 * After a refusal: one system call since N was counted (the refused one),
 * nothing registered, /proc/self/maps back to MAPS lines (the sidecar's
 * copy freed), and LD_DEBUG's word of it.
 */
static void check_refused(int n, int maps)
{
	CHECK(nsyscalls == n + 1, "%d system calls after the refusal, not one",
	      nsyscalls - n);
	CHECK(!libc_obj.lm.l_sframe_registered && !sf_obj.lm.l_sframe_registered,
	      "registered");
	CHECK(count_lines("/proc/self/maps") == maps, "the copy leaked");
	CHECK(strstr(debug_log, "codectl refused"),
	      "no word of the refusal: '%s'", debug_log);
}

/*
 * A seccomp filter installed after the probe: the first registration it
 * refuses turns codectl off, the copy of the sidecar is freed, and no
 * later object costs a system call.
 */
static void case_refused_later(int err)
{
	int maps, n;

	set_prefix(sidecars);
	_dl_sframe_register(&sf_obj.lm);	/* probes */
	_dl_sframe_unregister(&sf_obj.lm);
	maps = count_lines("/proc/self/maps");
	n = nsyscalls;
	fail_with = err;
	_dl_sframe_register(&libc_obj.lm);
	_dl_sframe_register(&sf_obj.lm);
	_dl_sframe_register(&libc_obj.lm);
	check_refused(n, maps);
}

/*
 * The same filter met first by dlclose(): the first refused
 * unregistration turns codectl off, the other objects' are not tried
 * (the kernel drops them with the text's mapping), and the sidecar's copy
 * is freed all the same.
 */
static void case_refused_unregister(int err)
{
	int maps, n;

	set_prefix(sidecars);
	maps = count_lines("/proc/self/maps");
	_dl_sframe_register(&libc_obj.lm);	/* probes, copies the sidecar */
	_dl_sframe_register(&sf_obj.lm);
	CHECK(libc_obj.lm.l_sframe_registered && sf_obj.lm.l_sframe_registered,
	      "not registered before the filter");
	n = nsyscalls;
	fail_with = err;
	_dl_sframe_unregister(&libc_obj.lm);
	_dl_sframe_unregister(&sf_obj.lm);
	_dl_sframe_register(&sf_obj.lm);
	check_refused(n, maps);
}

static void case_off(void)
{
	set_prefix(sidecars);
	sft_tunable_sframe = 0;
	_dl_sframe_register(&libc_obj.lm);
	_dl_sframe_register(&sf_obj.lm);
	CHECK(nsyscalls == 0 && nopens == 0,
	      "glibc.rtld.sframe=0: %d system calls, %d files opened",
	      nsyscalls, nopens);
}

static void case_no_dir(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/none", workdir);
	set_prefix(dir);
	_dl_sframe_register(&libc_obj.lm);
	_dl_sframe_register(&libc_obj.lm);
	CHECK(nopens == 1, "%d files opened, not the one directory", nopens);
	CHECK(nregs == 0, "%d registrations", nregs);
}

static void case_no_build_id(void)
{
	_dl_sframe_register(&noid_obj.lm);
	CHECK(nsyscalls == 0 && nopens == 0,
	      "an object without build ID: %d system calls, %d opens",
	      nsyscalls, nopens);
}

static void case_longid(void)
{
	int i;

	_dl_sframe_register(&longid_obj.lm);
	CHECK(nregs == (int)longid_obj.ntext, "%d registrations", nregs);
	for (i = 0; i < nregs; i++)
		CHECK(!regs[i].s.build_id && !regs[i].s.build_id_len,
		      "a build ID of %zu bytes passed on",
		      longid_obj.build_id_len);
}

static void case_eexist(void)
{
	int maps;

	set_prefix(sidecars);
	_dl_sframe_register(&sf_obj.lm);	/* probes */
	_dl_sframe_unregister(&sf_obj.lm);
	maps = count_lines("/proc/self/maps");
	fail_with = EEXIST;
	_dl_sframe_register(&libc_obj.lm);
	CHECK(!libc_obj.lm.l_sframe_registered && !libc_obj.lm.l_sframe_copy,
	      "registered though every call failed");
	CHECK(count_lines("/proc/self/maps") == maps, "the copy leaked");
	CHECK(strstr(debug_log, "not registered (error 17)"),
	      "no word of the failure: '%s'", debug_log);
}

static void case_bad_prefix(void)
{
	set_prefix("relative/dir");
	_dl_sframe_register(&libc_obj.lm);
	CHECK(strstr(debug_log, "sframe_prefix ignored"),
	      "a relative prefix is taken: '%s'", debug_log);
}

/* ---- hostile sidecars ---- */

static unsigned char *good;
static size_t good_len;
static char good_rel[PATH_MAX];	/* .build-id/xx/yyyy.sframe */

static bool load_good(void)
{
	char path[PATH_MAX * 2];
	struct stat st;
	size_t i, n;
	int fd;

	n = snprintf(good_rel, sizeof(good_rel), ".build-id/%02x/",
		     libc_obj.build_id[0]);
	for (i = 1; i < libc_obj.build_id_len; i++)
		n += snprintf(good_rel + n, sizeof(good_rel) - n, "%02x",
			      libc_obj.build_id[i]);
	snprintf(good_rel + n, sizeof(good_rel) - n, ".sframe");
	snprintf(path, sizeof(path), "%s/%s", sidecars, good_rel);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		printf("# %s: %s\n", path, strerror(errno));
		return false;
	}
	good_len = st.st_size;
	good = malloc(good_len);
	if (!good || pread(fd, good, good_len, 0) != (ssize_t)good_len)
		return false;
	close(fd);
	return true;
}

/* Find @what (@len bytes) in the good sidecar */
static unsigned char *find(unsigned char *f, const void *what, size_t len)
{
	return memmem(f, good_len, what, len);
}

enum hostile_kind { H_FILE, H_SYMLINK, H_FIFO, H_DIR };

/* Make WORKDIR/NAME/.build-id/... of @kind; @edit changes a copy. */
static const char *hostile_dir(const char *name, enum hostile_kind kind,
			       size_t len, void (*edit)(unsigned char *))
{
	static char dir[PATH_MAX];
	char path[PATH_MAX * 2], cmd[PATH_MAX * 3];
	unsigned char *copy;
	int fd;

	snprintf(dir, sizeof(dir), "%s/%s", workdir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, good_rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return NULL;
	switch (kind) {
	case H_SYMLINK: {
		char target[PATH_MAX * 2];

		snprintf(target, sizeof(target), "%s/%s", sidecars, good_rel);
		return symlink(target, path) ? NULL : dir;
	}
	case H_FIFO:
		return mkfifo(path, 0600) ? NULL : dir;
	case H_DIR:
		return mkdir(path, 0700) ? NULL : dir;
	case H_FILE:
		break;
	}
	copy = malloc(good_len);
	memcpy(copy, good, good_len);
	if (edit)
		edit(copy);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, copy, len < good_len ? len : good_len) < 0 ||
	    ftruncate(fd, len))
		return NULL;
	close(fd);
	free(copy);
	return dir;
}

static void edit_build_id(unsigned char *f)
{
	unsigned char *p = find(f, libc_obj.build_id, libc_obj.build_id_len);

	if (p)
		p[libc_obj.build_id_len - 1] ^= 1;
}

static void edit_text_note(unsigned char *f)
{
	unsigned char *p = find(f, "SFrame", 7);

	/* owner (8 bytes with its padding), then p_vaddr, p_memsz */
	if (p)
		p[8 + 8] ^= 0x10;
}

static void edit_machine(unsigned char *f)
{
	Elf64_Half m = EM_AARCH64 + EM_X86_64 - HOST_MACHINE;

	memcpy(f + offsetof(Elf64_Ehdr, e_machine), &m, sizeof(m));
}

static void edit_shoff(unsigned char *f)
{
	Elf64_Off off = ~0ULL / 2;

	memcpy(f + offsetof(Elf64_Ehdr, e_shoff), &off, sizeof(off));
}

static void edit_sframe_type(unsigned char *f)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	int i;

	memcpy(&eh, f, sizeof(eh));
	for (i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, f + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == 0x6ffffff4) {
			sh.sh_type = SHT_PROGBITS;
			memcpy(f + eh.e_shoff + i * sizeof(sh), &sh, sizeof(sh));
		}
	}
}

struct hostile {
	const char *name;
	enum hostile_kind kind;
	int len;	/* 0: whole, -1: half, -2: empty, -3: 1 GiB + 1 */
	void (*edit)(unsigned char *file);
	const char *said;	/* what LD_DEBUG=files says */
};

static void case_hostile(const struct hostile *h)
{
	int maps = count_lines("/proc/self/maps"), fds = count_fds();
	size_t len = h->len == 0 ? good_len : h->len == -1 ? good_len / 2 :
		     h->len == -3 ? (1UL << 30) + 1 : 0;
	const char *dir = hostile_dir(h->name, h->kind, len, h->edit);

	CHECK(dir, "cannot make the sidecar");
	if (!dir)
		return;
	set_prefix(dir);
	alarm(20);	/* a FIFO must not block */
	_dl_sframe_register(&libc_obj.lm);
	alarm(0);
	CHECK(nregs == 0 && !libc_obj.lm.l_sframe_copy,
	      "a hostile sidecar registered");
	CHECK(count_lines("/proc/self/maps") == maps, "mappings leaked");
	CHECK(count_fds() == fds, "descriptors leaked");
	if (h->said)
		CHECK(strstr(debug_log, h->said), "LD_DEBUG says '%s', not '%s'",
		      debug_log, h->said);
}

static const struct hostile hostiles[] = {
	{ "truncated", H_FILE, -1, NULL, "ignored" },
	{ "empty", H_FILE, -2, NULL, "not of 1 byte to 1 GiB" },
	{ "huge", H_FILE, -3, NULL, "not of 1 byte to 1 GiB" },
	{ "build-id", H_FILE, 0, edit_build_id, "another build ID" },
	{ "text-note", H_FILE, 0, edit_text_note, "other executable segments" },
	{ "machine", H_FILE, 0, edit_machine, "for another machine" },
	{ "shoff", H_FILE, 0, edit_shoff, "section headers outside the file" },
	{ "sframe-type", H_FILE, 0, edit_sframe_type, "another type" },
	{ "symlink", H_SYMLINK, 0, NULL, NULL },
	{ "fifo", H_FIFO, 0, NULL, "not a regular file" },
	{ "directory", H_DIR, 0, NULL, "not a regular file" },
};

/* ---- driver ---- */

static int ntests, nfailed;

static void run(const char *what, void (*fn)(const void *), const void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		sft_glro._dl_pagesize = getpagesize();
		sft_glro._dl_debug_mask = DL_DEBUG_FILES;
		fn(arg);
		if (failures && debug_log[0])
			printf("# LD_DEBUG=files:\n# %s\n", debug_log);
		fflush(stdout);
		_exit(failures ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	ntests++;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok %d - %s\n", ntests, what);
	} else {
		printf("not ok %d - %s\n", ntests, what);
		nfailed++;
	}
}

#define CASE(fn) static void run_##fn(const void *arg) { (void)arg; fn(); }
CASE(case_sidecar)
CASE(case_sframe)
CASE(case_exec)
CASE(case_off)
CASE(case_no_dir)
CASE(case_no_build_id)
CASE(case_eexist)
CASE(case_longid)
CASE(case_bad_prefix)
static void run_enosys(const void *arg) { (void)arg; case_unavailable(ENOSYS); }
static void run_eperm(const void *arg) { (void)arg; case_unavailable(EPERM); }
static void run_enosys_later(const void *arg)
{
	(void)arg;
	case_refused_later(ENOSYS);
}

static void run_eperm_later(const void *arg)
{
	(void)arg;
	case_refused_later(EPERM);
}

static void run_eperm_unregister(const void *arg)
{
	(void)arg;
	case_refused_unregister(EPERM);
}

static void run_hostile(const void *arg) { case_hostile(arg); }

int main(int argc, char **argv)
{
	char what[128];
	size_t i;

	if (argc != 6) {
		fprintf(stderr, "usage: %s SIDECARS LIBSF LIBNOID LIBLONGID WORKDIR\n",
			argv[0]);
		return 2;
	}
	sidecars = argv[1];
	libsf_path = argv[2];
	libnoid_path = argv[3];
	liblongid_path = argv[4];
	workdir = argv[5];
	if (!get_obj("libc.so.6", &libc_obj) || !get_obj(libsf_path, &sf_obj) ||
	    !get_obj(libnoid_path, &noid_obj) ||
	    !get_obj(liblongid_path, &longid_obj) || !load_good())
		return 2;
	if (!sf_obj.sframe || noid_obj.sframe || noid_obj.build_id ||
	    libc_obj.sframe || !libc_obj.build_id || !longid_obj.sframe ||
	    longid_obj.build_id_len != 32) {
		fprintf(stderr, "the objects are not what the test needs\n");
		return 2;
	}

	run("a good sidecar of libc.so.6: registered, then unregistered and freed",
	    run_case_sidecar, NULL);
	run("PT_GNU_SFRAME: registered with the segment, nothing opened",
	    run_case_sframe, NULL);
	run("mapped by the kernel with PT_GNU_SFRAME: no system call",
	    run_case_exec, NULL);
	run("ENOSYS: one probe for three objects, nothing opened",
	    run_enosys, NULL);
	run("EPERM (seccomp): one probe for three objects, nothing opened",
	    run_eperm, NULL);
	run("ENOSYS after the probe: one refused call, then none",
	    run_enosys_later, NULL);
	run("EPERM after the probe: one refused call, then none",
	    run_eperm_later, NULL);
	run("EPERM at dlclose: one refused call, then none, the copy freed",
	    run_eperm_unregister, NULL);
	run("glibc.rtld.sframe=0: no system call, nothing opened",
	    run_case_off, NULL);
	run("no sidecar directory: looked for once", run_case_no_dir, NULL);
	run("no PT_GNU_SFRAME, no build ID: no system call, nothing opened",
	    run_case_no_build_id, NULL);
	run("every registration fails (EEXIST): the copy is freed, LD_DEBUG says why",
	    run_case_eexist, NULL);
	run("a build ID of 32 bytes: registered without it",
	    run_case_longid, NULL);
	run("a relative glibc.rtld.sframe_prefix is ignored",
	    run_case_bad_prefix, NULL);
	for (i = 0; i < ARRAY_SIZE(hostiles); i++) {
		snprintf(what, sizeof(what),
			 "hostile sidecar '%s': ignored, no leak, no hang",
			 hostiles[i].name);
		run(what, run_hostile, &hostiles[i]);
	}
	printf("%d passed, %d failed\n", ntests - nfailed, nfailed);
	return nfailed ? 1 : 0;
}
