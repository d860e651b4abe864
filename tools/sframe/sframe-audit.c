// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-audit.so: register the SFrame sections of the objects the dynamic
 * loader maps, with codectl(2), for a C library that does not do it itself.
 *
 *	LD_AUDIT=/path/to/sframe-audit.so program [args]
 *
 * The kernel registers the SFrame sections (PT_GNU_SFRAME) of a program and
 * of its ELF interpreter at exec.  Everything else -- the libraries of
 * DT_NEEDED and dlopen() -- is mapped by ld.so, which does not (yet) tell
 * the kernel.  This rtld-audit module does it in its place: la_objopen()
 * registers the PT_GNU_SFRAME segment of each object once for every
 * executable PT_LOAD segment, with the object's path and build ID;
 * la_objclose(), which ld.so calls before it unmaps the object, unregisters
 * them.  The objects of the program's start -- the program, its libraries,
 * their libraries -- are never unmapped: ld.so calls la_objclose() for them
 * at exit only, once their destructors ran, and the C library's exit code
 * still runs after it.  Their registrations stay until the mm goes, so that
 * a stack taken there is complete too.
 *
 * An object without PT_GNU_SFRAME -- nearly everything a distribution ships,
 * the C library, ld.so and the program itself included -- may have a
 * sidecar: an SFrame section that tools/sframe/gen/sframe-gen generated from
 * its DWARF CFI, in a file named by its build ID under a prefix
 * (/usr/lib/sframe/.build-id/xx/yyyy.sframe).  The module reads the
 * sidecar, a regular file, into read-only memory next to the object, checks
 * that it belongs to the object and registers it with the address its
 * offsets are relative to (sframe_addr); at la_objclose() it unregisters it
 * and unmaps the copy.
 *
 * It never makes a load fail, and it is silent.  With SFRAME_AUDIT_DEBUG=1
 * in the environment it reports each registration, each failure and each
 * sidecar it ignores, and why, on standard error.  SFRAME_SIDECAR_PREFIX
 * replaces /usr/lib/sframe.  A secure-execution (setuid) process ignores
 * both.
 *
 * See Documentation/userspace-api/codectl.rst and tools/sframe/gen/README.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/codectl.h>

#ifndef __NR_codectl
#error "__NR_codectl: build against the uapi headers of a kernel with codectl(2)"
#endif
#ifndef CODECTL_SFRAME_SIZE_VER2
#error "struct codectl_sframe without sframe_addr: uapi headers too old"
#endif
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif
#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif

#if defined(__x86_64__)
#define SFA_MACHINE	EM_X86_64
#elif defined(__aarch64__)
#define SFA_MACHINE	EM_AARCH64
#else
#define SFA_MACHINE	EM_NONE		/* no sidecar matches */
#endif

#define SFA_EXPORT	__attribute__((visibility("default")))

/* Program headers as ld.so hands them out: glibc's const ElfW(Phdr) *. */
#define sfa_phdrs	__typeof__(((struct dl_phdr_info *)0)->dlpi_phdr)

/* An ELF note header: namesz, descsz, type. */
#define SFA_NHDR_SIZE	12

/* Where sidecars are, and the variable that says elsewhere */
#define SFA_PREFIX		"/usr/lib/sframe"
#define SFA_PREFIX_ENV		"SFRAME_SIDECAR_PREFIX"
/* The sidecar's note of the object's executable segments (gen/README) */
#define SFA_NOTE_OWNER		"SFrame"
#define SFA_NT_SFRAME_TEXT	1
/* At most this many executable segments, as sframe-gen writes */
#define SFA_MAX_SEGS		16
/* A file that large is no sidecar: libLLVM's is 12 MiB */
#define SFA_SIDECAR_MAX		(1024UL * 1024 * 1024)

/**
 * struct sfa_object - what was registered for one object
 * @next:	the next object with registrations
 * @sidecar:	the copy of the sidecar file, or NULL
 * @sidecar_len: its length
 * @at_start:	mapped at the program's start, before ld.so first said that
 *		its link maps are consistent: unmapped only with the mm
 * @nr:		number of registered text ranges
 * @text_start:	their keys for CODECTL_UNREGISTER
 */
struct sfa_object {
	struct sfa_object *next;
	void *sidecar;
	size_t sidecar_len;
	bool at_start;
	unsigned int nr;
	__u64 text_start[];
};

/**
 * struct sfa_segs - an object's executable PT_LOAD segments, by address
 * @n:		their number; SFA_MAX_SEGS + 1 means more than SFA_MAX_SEGS
 * @vaddr:	their link-time addresses
 * @memsz:	their sizes
 */
struct sfa_segs {
	unsigned int n;
	__u64 vaddr[SFA_MAX_SEGS + 1];
	__u64 memsz[SFA_MAX_SEGS + 1];
};

/*
 * Objects with registrations.  ld.so calls the audit hooks under its load
 * lock (or before any other thread exists), so no lock of our own.
 */
static struct sfa_object *sfa_objects;
static bool sfa_started;	/* ld.so said LA_ACT_CONSISTENT once */
static bool sfa_debug;
static const char *sfa_prefix = SFA_PREFIX;

static void sfa_say(const char *fmt, ...)
{
	va_list ap;

	if (!sfa_debug)
		return;
	va_start(ap, fmt);
	fputs("sframe-audit: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static const char *sfa_name(const struct link_map *map)
{
	return map->l_name && map->l_name[0] ? map->l_name : "(the program)";
}

static long sfa_codectl(unsigned int option, const void *info, size_t size)
{
	return syscall(__NR_codectl, option, info, size, 0);
}

/* Is [vaddr, vaddr + size) inside the file-backed part of a PT_LOAD? */
static bool sfa_loaded(sfa_phdrs phdr, unsigned int phnum,
		       unsigned long vaddr, unsigned long size)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		sfa_phdrs p = &phdr[i];

		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr)
			continue;
		if (vaddr - p->p_vaddr <= p->p_filesz &&
		    size <= p->p_filesz - (vaddr - p->p_vaddr))
			return true;
	}
	return false;
}

/*
 * The next note of [*@pos, @end): its type, owner and descriptor; false at
 * the end or at a note that does not fit.
 */
static bool sfa_next_note(const unsigned char **pos, const unsigned char *end,
			  uint32_t *type, const char **owner, uint32_t *owner_len,
			  const unsigned char **desc, uint32_t *desc_len)
{
	size_t name, size, left;
	uint32_t n[3];	/* namesz, descsz, type */

	if (end - *pos < SFA_NHDR_SIZE)
		return false;
	left = end - *pos - SFA_NHDR_SIZE;
	memcpy(n, *pos, sizeof(n));
	name = (n[0] + 3UL) & ~3UL;
	size = (n[1] + 3UL) & ~3UL;
	if (name > left || size > left - name)
		return false;
	*type = n[2];
	*owner = (const char *)*pos + SFA_NHDR_SIZE;
	*owner_len = n[0];
	*desc = *pos + SFA_NHDR_SIZE + name;
	*desc_len = n[1];
	*pos += SFA_NHDR_SIZE + name + size;
	return true;
}

static bool sfa_is_build_id(uint32_t type, const char *owner,
			    uint32_t owner_len)
{
	return type == NT_GNU_BUILD_ID && owner_len == 4 &&
	       !memcmp(owner, "GNU", 4);
}

/* The object's GNU build ID, among its loaded notes; false if none. */
static bool sfa_build_id(const struct link_map *map, sfa_phdrs phdr,
			 unsigned int phnum, const unsigned char **id,
			 uint32_t *len)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		sfa_phdrs p = &phdr[i];
		const unsigned char *pos, *end, *desc;
		uint32_t type, owner_len, desc_len;
		const char *owner;

		if (p->p_type != PT_NOTE ||
		    !sfa_loaded(phdr, phnum, p->p_vaddr, p->p_filesz))
			continue;
		pos = (const unsigned char *)(map->l_addr + p->p_vaddr);
		end = pos + p->p_filesz;
		while (sfa_next_note(&pos, end, &type, &owner, &owner_len,
				     &desc, &desc_len)) {
			if (sfa_is_build_id(type, owner, owner_len) &&
			    desc_len) {
				*id = desc;
				*len = desc_len;
				return true;
			}
		}
	}
	return false;
}

/*
 * Did the kernel map this object at exec?  With an interpreter, it mapped
 * the program (AT_PHDR) and the interpreter (AT_BASE).  Without one -- ld.so
 * run as a command -- ld.so itself is the program, and it maps the real
 * program and points AT_PHDR at it: then nothing is skipped, and registering
 * ld.so fails with EEXIST.
 */
static bool sfa_exec_mapped(const struct link_map *map, sfa_phdrs phdr)
{
	unsigned long base = getauxval(AT_BASE);

	if (!base)
		return false;
	return (uintptr_t)phdr == getauxval(AT_PHDR) || map->l_addr == base;
}

/* The vDSO: the kernel maps it, and registers its section itself. */
static bool sfa_is_vdso(sfa_phdrs phdr)
{
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);

	return ehdr && (uintptr_t)phdr >= ehdr &&
	       (uintptr_t)phdr - ehdr < (unsigned long)getpagesize();
}

/* The executable PT_LOAD segments, in address order. */
static void sfa_text_segs(sfa_phdrs phdr, unsigned int phnum,
			  struct sfa_segs *segs)
{
	unsigned int i, j;

	segs->n = 0;
	for (i = 0; i < phnum; i++) {
		sfa_phdrs p = &phdr[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		if (segs->n > SFA_MAX_SEGS)
			return;
		/* Insertion sort: program headers are sorted already. */
		for (j = segs->n; j && segs->vaddr[j - 1] > p->p_vaddr; j--) {
			segs->vaddr[j] = segs->vaddr[j - 1];
			segs->memsz[j] = segs->memsz[j - 1];
		}
		segs->vaddr[j] = p->p_vaddr;
		segs->memsz[j] = p->p_memsz;
		segs->n++;
	}
}

/* A registration's object descriptor, allocated for @nr text ranges */
static struct sfa_object *sfa_object_new(const struct link_map *map,
					 unsigned int nr)
{
	struct sfa_object *obj;

	obj = calloc(1, sizeof(*obj) + nr * sizeof(obj->text_start[0]));
	if (!obj)
		sfa_say("%s: out of memory\n", sfa_name(map));
	else
		obj->at_start = !sfa_started;
	return obj;
}

/* Register each executable segment with @arg's section; keep the keys. */
static void sfa_register_segs(const struct link_map *map,
			      const struct sfa_segs *segs,
			      struct codectl_sframe *arg,
			      struct sfa_object *obj)
{
	unsigned int i;

	for (i = 0; i < segs->n; i++) {
		arg->text_start = map->l_addr + segs->vaddr[i];
		arg->text_end = arg->text_start + segs->memsz[i];
		if (sfa_codectl(CODECTL_REGISTER_SFRAME, arg, sizeof(*arg))) {
			/* EEXIST: registered already, at exec; not ours. */
			sfa_say("%s: text %#llx-%#llx, .sframe %#llx-%#llx at %#llx: %s\n",
				sfa_name(map), arg->text_start, arg->text_end,
				arg->sframe_start, arg->sframe_end,
				arg->sframe_addr ?: arg->sframe_start,
				strerror(errno));
			continue;
		}
		sfa_say("%s: registered text %#llx-%#llx%s\n", sfa_name(map),
			arg->text_start, arg->text_end,
			arg->sframe_addr ? " from its sidecar" : "");
		obj->text_start[obj->nr++] = arg->text_start;
	}
}

/* Keep @obj in the list and in ld.so's cookie, or free it if it is empty */
static void sfa_keep(struct sfa_object *obj, uintptr_t *cookie)
{
	if (!obj->nr) {
		if (obj->sidecar)
			munmap(obj->sidecar, obj->sidecar_len);
		free(obj);
		return;
	}
	obj->next = sfa_objects;
	sfa_objects = obj;
	*cookie = (uintptr_t)obj;
}

/* The sidecar's path: PREFIX/.build-id/xx/yyyy.sframe; false if too long */
static bool sfa_sidecar_path(char *buf, size_t len, const unsigned char *id,
			     uint32_t id_len)
{
	size_t n;
	uint32_t i;
	int ret;

	ret = snprintf(buf, len, "%s/.build-id/%02x/", sfa_prefix, id[0]);
	if (ret < 0 || (size_t)ret >= len)
		return false;
	n = ret;
	for (i = 1; i < id_len; i++, n += 2) {
		if (len - n < 3)
			return false;
		snprintf(buf + n, 3, "%02x", id[i]);
	}
	ret = snprintf(buf + n, len - n, ".sframe");
	return ret >= 0 && (size_t)ret < len - n;
}

/**
 * struct sfa_sidecar - what the checks found in a sidecar file
 * @sframe_off:	the .sframe section's offset in the file
 * @sframe_size: its size
 * @sframe_vaddr: its sh_addr: where its offsets put it in the object
 */
struct sfa_sidecar {
	__u64 sframe_off;
	__u64 sframe_size;
	__u64 sframe_vaddr;
};

/* The checks of the notes of one SHT_NOTE section; NULL or what is wrong */
static const char *sfa_check_notes(const unsigned char *pos,
				   const unsigned char *end,
				   const unsigned char *id, uint32_t id_len,
				   const struct sfa_segs *segs,
				   unsigned int *nid, unsigned int *ntext)
{
	uint32_t type, owner_len, desc_len;
	const unsigned char *desc;
	const char *owner;
	unsigned int i;

	while (sfa_next_note(&pos, end, &type, &owner, &owner_len, &desc,
			     &desc_len)) {
		if (sfa_is_build_id(type, owner, owner_len)) {
			if ((*nid)++)
				return "two build ID notes";
			if (desc_len != id_len || memcmp(desc, id, id_len))
				return "another build ID: another build of the object";
		} else if (type == SFA_NT_SFRAME_TEXT &&
			   owner_len == sizeof(SFA_NOTE_OWNER) &&
			   !memcmp(owner, SFA_NOTE_OWNER, owner_len)) {
			if ((*ntext)++)
				return "two text notes";
			if (desc_len % 16 || desc_len / 16 != segs->n)
				return "a text note of another number of executable segments";
			for (i = 0; i < segs->n; i++) {
				__u64 v[2];

				memcpy(v, desc + 16 * i, sizeof(v));
				if (v[0] != segs->vaddr[i] ||
				    v[1] != segs->memsz[i])
					return "a text note of other executable segments";
			}
		}
	}
	return NULL;
}

/*
 * Check the copy of a sidecar file, @size bytes, against its object, as
 * tools/sframe/gen/README says a loader does: ELF64, little-endian, the
 * object's machine, one .sframe section of type SHT_GNU_SFRAME inside the
 * file, one build ID note equal to the object's, one text note equal to
 * its executable segments.  Returns NULL and fills @sc, or says what is
 * wrong.
 */
static const char *sfa_check_sidecar(const unsigned char *f, size_t size,
				     const unsigned char *id, uint32_t id_len,
				     const struct sfa_segs *segs,
				     struct sfa_sidecar *sc)
{
	unsigned int i, nid = 0, ntext = 0, nsframe = 0;
	const char *strtab, *why;
	Elf64_Shdr sh, str;
	Elf64_Ehdr eh;

	if (size < sizeof(eh))
		return "shorter than an ELF header";
	memcpy(&eh, f, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_ident[EI_VERSION] != EV_CURRENT)
		return "not an ELF64 little-endian file";
	if (eh.e_machine != SFA_MACHINE)
		return "an ELF file for another machine";
	if (eh.e_shentsize != sizeof(sh) || !eh.e_shnum ||
	    eh.e_shoff > size ||
	    (size_t)eh.e_shnum * sizeof(sh) > size - eh.e_shoff ||
	    eh.e_shstrndx >= eh.e_shnum)
		return "section headers outside the file";
	memcpy(&str, f + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(str));
	if (str.sh_offset > size || str.sh_size > size - str.sh_offset ||
	    !str.sh_size)
		return "section names outside the file";
	strtab = (const char *)f + str.sh_offset;

	for (i = 0; i < eh.e_shnum; i++) {
		const char *name;

		memcpy(&sh, f + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
			return "a section outside the file";
		if (sh.sh_name >= str.sh_size ||
		    !memchr(strtab + sh.sh_name, '\0',
			    str.sh_size - sh.sh_name))
			return "a section name outside the section names";
		name = strtab + sh.sh_name;
		if (!strcmp(name, ".sframe")) {
			if (nsframe++)
				return "two .sframe sections";
			if (sh.sh_type != SHT_GNU_SFRAME || sh.sh_offset % 8 ||
			    !sh.sh_size || !sh.sh_addr)
				return "a bad .sframe section: its type, alignment or address";
			sc->sframe_off = sh.sh_offset;
			sc->sframe_size = sh.sh_size;
			sc->sframe_vaddr = sh.sh_addr;
		} else if (sh.sh_type == SHT_NOTE) {
			why = sfa_check_notes(f + sh.sh_offset,
					      f + sh.sh_offset + sh.sh_size,
					      id, id_len, segs, &nid, &ntext);
			if (why)
				return why;
		}
	}
	if (!nsframe)
		return "no .sframe section";
	if (!nid)
		return "no build ID note";
	if (!ntext)
		return "no text note";
	return NULL;
}

/* What a file that is not a regular one is, for the messages */
static const char *sfa_file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	}
	return "not a regular file";
}

/*
 * Read @size bytes of @fd into @buf; false if the file ends before (it
 * shrank since fstat()) or cannot be read.
 */
static bool sfa_read_all(int fd, unsigned char *buf, size_t size,
			 const char **why)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = pread(fd, buf + done, size - done, done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = strerror(errno);
			return false;
		}
		if (!n) {
			*why = "it shrank while it was read";
			return false;
		}
		done += n;
	}
	return true;
}

/*
 * Read the sidecar at @path into anonymous memory, as close below the
 * object as mmap() lets it: a section far from its text widens the window
 * the kernel's munmap hook searches (codectl.rst, Limits).  NULL if it
 * cannot.
 *
 * The sidecar's directory may hold anything: the path is opened without
 * blocking (a FIFO would block ld.so, and the process, forever), without
 * following a symbolic link and without taking a terminal, and only a
 * regular file is read.  It is read, not mapped: a file mapping reads past
 * the end of a file that shrank as SIGBUS, inside ld.so; a copy cannot
 * shrink, nor change between the checks and the registration.
 */
static void *sfa_read_sidecar(const struct link_map *map, sfa_phdrs phdr,
			      unsigned int phnum, const char *path,
			      size_t *len)
{
	unsigned long page = getpagesize(), low = ULONG_MAX, size, hint = 0;
	const char *why = NULL;
	struct stat st;
	unsigned int i;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
		  O_NOCTTY);
	if (fd < 0 && errno == ELOOP) {
		sfa_say("%s: sidecar %s ignored: a symbolic link\n",
			sfa_name(map), path);
		return NULL;
	}
	if (fd < 0) {
		sfa_say("%s: no sidecar %s: %s\n", sfa_name(map), path,
			strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = sfa_file_type(st.st_mode);
	else if (!st.st_size || (unsigned long)st.st_size > SFA_SIDECAR_MAX)
		why = "not of 1 byte to 1 GiB";
	if (why) {
		sfa_say("%s: sidecar %s ignored: %s\n", sfa_name(map), path,
			why);
		close(fd);
		return NULL;
	}
	size = st.st_size;
	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_LOAD &&
		    map->l_addr + phdr[i].p_vaddr < low)
			low = map->l_addr + phdr[i].p_vaddr;
	low &= ~(page - 1);
	if (low != ULONG_MAX && low > 2 * size + page)
		hint = low - ((size + page - 1) & ~(page - 1));
	p = mmap((void *)hint, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		sfa_say("%s: sidecar %s: mmap: %s\n", sfa_name(map), path,
			strerror(errno));
		close(fd);
		return NULL;
	}
	if (!sfa_read_all(fd, p, size, &why) ||
	    mprotect(p, size, PROT_READ)) {
		sfa_say("%s: sidecar %s ignored: %s\n", sfa_name(map), path,
			why ?: strerror(errno));
		munmap(p, size);
		close(fd);
		return NULL;
	}
	close(fd);
	*len = size;
	return p;
}

/*
 * An object without PT_GNU_SFRAME: register its sidecar, if it has one that
 * is its own.  Anything that does not match is ignored.
 */
static void sfa_register_sidecar(struct link_map *map, sfa_phdrs phdr,
				 unsigned int phnum, uintptr_t *cookie)
{
	char path[PATH_MAX];
	struct codectl_sframe arg;
	const unsigned char *id;
	struct sfa_object *obj;
	struct sfa_sidecar sc;
	struct sfa_segs segs;
	const char *why;
	uint32_t id_len;
	size_t len;
	void *file;

	sfa_text_segs(phdr, phnum, &segs);
	if (!segs.n)
		return;
	if (segs.n > SFA_MAX_SEGS) {
		sfa_say("%s: more than %d executable segments: no sidecar\n",
			sfa_name(map), SFA_MAX_SEGS);
		return;
	}
	if (!sfa_build_id(map, phdr, phnum, &id, &id_len)) {
		sfa_say("%s: no PT_GNU_SFRAME and no build ID: no sidecar\n",
			sfa_name(map));
		return;
	}
	if (!sfa_sidecar_path(path, sizeof(path), id, id_len)) {
		sfa_say("%s: the sidecar's path is too long\n", sfa_name(map));
		return;
	}
	file = sfa_read_sidecar(map, phdr, phnum, path, &len);
	if (!file)
		return;
	why = sfa_check_sidecar(file, len, id, id_len, &segs, &sc);
	if (why) {
		sfa_say("%s: sidecar %s ignored: %s\n", sfa_name(map), path,
			why);
		munmap(file, len);
		return;
	}
	obj = sfa_object_new(map, segs.n);
	if (!obj) {
		munmap(file, len);
		return;
	}
	obj->sidecar = file;
	obj->sidecar_len = len;

	memset(&arg, 0, sizeof(arg));
	arg.sframe_start = (uintptr_t)file + sc.sframe_off;
	arg.sframe_end = arg.sframe_start + sc.sframe_size;
	arg.sframe_addr = map->l_addr + sc.sframe_vaddr;
	if (map->l_name && map->l_name[0])
		arg.pathname = (uintptr_t)map->l_name;
	if (id_len <= CODECTL_BUILD_ID_MAX) {
		arg.build_id = (uintptr_t)id;
		arg.build_id_len = id_len;
	}
	sfa_register_segs(map, &segs, &arg, obj);
	sfa_keep(obj, cookie);
}

static void sfa_register(struct link_map *map, uintptr_t *cookie)
{
	sfa_phdrs phdr, sframe = NULL;
	struct codectl_sframe arg;
	struct sfa_object *obj;
	struct sfa_segs segs;
	const unsigned char *id;
	uint32_t id_len;
	unsigned int i;
	int phnum;

	phnum = dlinfo(map, RTLD_DI_PHDR, &phdr);
	if (phnum <= 0) {
		sfa_say("%s: no program headers: %s\n", sfa_name(map),
			dlerror());
		return;
	}
	if (sfa_is_vdso(phdr))
		return;
	for (i = 0; i < (unsigned int)phnum; i++)
		if (phdr[i].p_type == PT_GNU_SFRAME)
			sframe = &phdr[i];
	if (!sframe) {
		sfa_register_sidecar(map, phdr, phnum, cookie);
		return;
	}
	/* The kernel registered its PT_GNU_SFRAME at exec. */
	if (sfa_exec_mapped(map, phdr))
		return;

	sfa_text_segs(phdr, phnum, &segs);
	if (!segs.n)
		return;
	if (segs.n > SFA_MAX_SEGS) {
		sfa_say("%s: more than %d executable segments\n",
			sfa_name(map), SFA_MAX_SEGS);
		return;
	}
	obj = sfa_object_new(map, segs.n);
	if (!obj)
		return;

	memset(&arg, 0, sizeof(arg));
	arg.sframe_start = map->l_addr + sframe->p_vaddr;
	arg.sframe_end = arg.sframe_start + sframe->p_memsz;
	if (map->l_name && map->l_name[0])
		arg.pathname = (uintptr_t)map->l_name;
	if (sfa_build_id(map, phdr, phnum, &id, &id_len)) {
		if (id_len <= CODECTL_BUILD_ID_MAX) {
			arg.build_id = (uintptr_t)id;
			arg.build_id_len = id_len;
		} else {
			sfa_say("%s: build ID of %u bytes, over %d: left out\n",
				sfa_name(map), id_len, CODECTL_BUILD_ID_MAX);
		}
	}
	sfa_register_segs(map, &segs, &arg, obj);
	sfa_keep(obj, cookie);
}

/**
 * la_version() - Agree on the audit interface version with ld.so
 * @version: the newest version ld.so supports
 *
 * Return: the version this module uses.
 */
SFA_EXPORT unsigned int la_version(unsigned int version)
{
	const char *debug = getenv("SFRAME_AUDIT_DEBUG");
	const char *prefix = getenv(SFA_PREFIX_ENV);
	bool secure = getauxval(AT_SECURE);

	/*
	 * A setuid program does not take its sidecars from its caller, nor
	 * tell it where it is mapped.
	 */
	sfa_debug = !secure && debug && debug[0] && strcmp(debug, "0");
	if (prefix && prefix[0] == '/' && !secure)
		sfa_prefix = prefix;
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/**
 * la_activity() - Learn that the objects of the program's start are mapped
 * @cookie: the link-map namespace's cookie
 * @flag: LA_ACT_CONSISTENT, LA_ACT_ADD or LA_ACT_DELETE
 *
 * ld.so says LA_ACT_CONSISTENT first once it has mapped the program's
 * start; the objects la_objopen() saw before stay until exit.
 */
SFA_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	if (flag == LA_ACT_CONSISTENT)
		sfa_started = true;
}

/**
 * la_objopen() - Register the SFrame section of an object ld.so mapped
 * @map: the object
 * @lmid: its link-map namespace
 * @cookie: our word for the object: what we registered, or 0
 *
 * Return: 0: no symbol binding audit.
 */
SFA_EXPORT unsigned int la_objopen(struct link_map *map, long lmid,
				   uintptr_t *cookie)
{
	(void)lmid;
	/* ld.so starts it as the link map: never leave that in it. */
	*cookie = 0;
	sfa_register(map, cookie);
	return 0;
}

/**
 * la_objclose() - Unregister an object's text ranges before ld.so unmaps it
 * @cookie: what la_objopen() left in it
 *
 * Unmaps the object's sidecar, if it had one, after that.  An object of
 * the program's start is left as it is: ld.so closes it at exit only, and
 * exit runs code of the C library after that.
 *
 * Return: 0.
 */
SFA_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	struct sfa_object **pp, *obj = NULL;
	unsigned int i;

	for (pp = &sfa_objects; *pp; pp = &(*pp)->next) {
		if ((uintptr_t)*pp == *cookie) {
			obj = *pp;
			break;
		}
	}
	if (!obj || obj->at_start)
		return 0;
	*pp = obj->next;
	for (i = 0; i < obj->nr; i++) {
		struct codectl_unregister arg = {
			.text_start = obj->text_start[i],
		};

		if (sfa_codectl(CODECTL_UNREGISTER, &arg, sizeof(arg)))
			sfa_say("unregister text %#llx: %s\n", arg.text_start,
				strerror(errno));
	}
	if (obj->sidecar)
		munmap(obj->sidecar, obj->sidecar_len);
	free(obj);
	*cookie = 0;
	return 0;
}
