// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-audit.so: register the SFrame sections of the objects the dynamic
 * loader maps, with codectl(2), for a C library that does not do it itself.
 *
 *	LD_AUDIT=/path/to/sframe-audit.so program [args]
 *
 * The kernel registers the SFrame sections of a program and of its ELF
 * interpreter at exec.  Everything else -- the libraries of DT_NEEDED and
 * dlopen() -- is mapped by ld.so, which does not (yet) tell the kernel.  This
 * rtld-audit module does it in its place: la_objopen() registers the
 * PT_GNU_SFRAME segment of each object once for every executable PT_LOAD
 * segment, with the object's path and build ID; la_objclose(), which ld.so
 * calls before it unmaps the object, unregisters them.
 *
 * It is silent.  With SFRAME_AUDIT_DEBUG=1 in the environment it reports
 * each registration and each failure on standard error.
 *
 * See Documentation/userspace-api/codectl.rst.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <linux/codectl.h>

#ifndef __NR_codectl
#error "__NR_codectl: build against the uapi headers of a kernel with codectl(2)"
#endif
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define SFA_EXPORT	__attribute__((visibility("default")))

/* Program headers as ld.so hands them out: glibc's const ElfW(Phdr) *. */
#define sfa_phdrs	__typeof__(((struct dl_phdr_info *)0)->dlpi_phdr)

/* An ELF note header: namesz, descsz, type. */
#define SFA_NHDR_SIZE	12

/**
 * struct sfa_object - what was registered for one object
 * @next:	the next object with registrations
 * @nr:		number of registered text ranges
 * @text_start:	their keys for CODECTL_UNREGISTER
 */
struct sfa_object {
	struct sfa_object *next;
	unsigned int nr;
	__u64 text_start[];
};

/*
 * Objects with registrations.  ld.so calls the audit hooks under its load
 * lock (or before any other thread exists), so no lock of our own.
 */
static struct sfa_object *sfa_objects;
static bool sfa_debug;

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
	return map->l_name && map->l_name[0] ? map->l_name : "(unnamed)";
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
 * Find the GNU build ID among the object's loaded notes.  One longer than
 * the kernel takes is left out: the object is registered without it.
 */
static void sfa_build_id(const struct link_map *map, sfa_phdrs phdr,
			 unsigned int phnum, struct codectl_sframe *arg)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		sfa_phdrs p = &phdr[i];
		const unsigned char *pos, *end;

		if (p->p_type != PT_NOTE ||
		    !sfa_loaded(phdr, phnum, p->p_vaddr, p->p_filesz))
			continue;
		pos = (const unsigned char *)(map->l_addr + p->p_vaddr);
		end = pos + p->p_filesz;
		while (end - pos >= SFA_NHDR_SIZE) {
			size_t name, desc, left = end - pos - SFA_NHDR_SIZE;
			uint32_t n[3];	/* namesz, descsz, type */

			memcpy(n, pos, sizeof(n));
			name = (n[0] + 3UL) & ~3UL;
			desc = (n[1] + 3UL) & ~3UL;
			if (name > left || desc > left - name)
				break;
			if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 &&
			    !memcmp(pos + SFA_NHDR_SIZE, "GNU", 4) && n[1]) {
				if (n[1] > CODECTL_BUILD_ID_MAX) {
					sfa_say("%s: build ID of %u bytes, over %d: left out\n",
						sfa_name(map), n[1],
						CODECTL_BUILD_ID_MAX);
					return;
				}
				arg->build_id = (uintptr_t)(pos + SFA_NHDR_SIZE +
							    name);
				arg->build_id_len = n[1];
				return;
			}
			pos += SFA_NHDR_SIZE + name + desc;
		}
	}
}

/*
 * Did the kernel map, and register, this object at exec?  With an
 * interpreter, it mapped the program (AT_PHDR) and the interpreter
 * (AT_BASE).  Without one -- ld.so run as a command -- ld.so itself is the
 * program, and it maps the real program and points AT_PHDR at it: then
 * nothing is skipped, and registering ld.so fails with EEXIST.
 */
static bool sfa_exec_mapped(const struct link_map *map, sfa_phdrs phdr)
{
	unsigned long base = getauxval(AT_BASE);

	if (!base)
		return false;
	return (uintptr_t)phdr == getauxval(AT_PHDR) || map->l_addr == base;
}

static void sfa_register(struct link_map *map, uintptr_t *cookie)
{
	sfa_phdrs phdr, sframe = NULL;
	struct codectl_sframe arg;
	unsigned int i, nexec = 0;
	struct sfa_object *obj;
	int phnum;

	phnum = dlinfo(map, RTLD_DI_PHDR, &phdr);
	if (phnum <= 0) {
		sfa_say("%s: no program headers: %s\n", sfa_name(map),
			dlerror());
		return;
	}
	if (sfa_exec_mapped(map, phdr))
		return;

	for (i = 0; i < (unsigned int)phnum; i++) {
		sfa_phdrs p = &phdr[i];

		if (p->p_type == PT_GNU_SFRAME)
			sframe = p;
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
			nexec++;
	}
	if (!sframe || !nexec)
		return;

	obj = calloc(1, sizeof(*obj) + nexec * sizeof(obj->text_start[0]));
	if (!obj) {
		sfa_say("%s: out of memory\n", sfa_name(map));
		return;
	}

	memset(&arg, 0, sizeof(arg));
	arg.sframe_start = map->l_addr + sframe->p_vaddr;
	arg.sframe_end = arg.sframe_start + sframe->p_memsz;
	if (map->l_name && map->l_name[0])
		arg.pathname = (uintptr_t)map->l_name;
	sfa_build_id(map, phdr, phnum, &arg);

	for (i = 0; i < (unsigned int)phnum; i++) {
		sfa_phdrs p = &phdr[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		arg.text_start = map->l_addr + p->p_vaddr;
		arg.text_end = arg.text_start + p->p_memsz;
		if (sfa_codectl(CODECTL_REGISTER_SFRAME, &arg, sizeof(arg))) {
			/* EEXIST: registered already, at exec; not ours. */
			sfa_say("%s: text %#llx-%#llx, .sframe %#llx-%#llx: %s\n",
				sfa_name(map), arg.text_start, arg.text_end,
				arg.sframe_start, arg.sframe_end,
				strerror(errno));
			continue;
		}
		sfa_say("%s: registered text %#llx-%#llx\n", sfa_name(map),
			arg.text_start, arg.text_end);
		obj->text_start[obj->nr++] = arg.text_start;
	}
	if (!obj->nr) {
		free(obj);
		return;
	}
	obj->next = sfa_objects;
	sfa_objects = obj;
	*cookie = (uintptr_t)obj;
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

	sfa_debug = debug && debug[0] && strcmp(debug, "0");
	return version < LAV_CURRENT ? version : LAV_CURRENT;
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
 * Return: 0.
 */
SFA_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	struct sfa_object **pp, *obj = NULL;
	unsigned int i;

	for (pp = &sfa_objects; *pp; pp = &(*pp)->next) {
		if ((uintptr_t)*pp == *cookie) {
			obj = *pp;
			*pp = obj->next;
			break;
		}
	}
	if (!obj)
		return 0;
	for (i = 0; i < obj->nr; i++) {
		struct codectl_unregister arg = {
			.text_start = obj->text_start[i],
		};

		if (sfa_codectl(CODECTL_UNREGISTER, &arg, sizeof(arg)))
			sfa_say("unregister text %#llx: %s\n", arg.text_start,
				strerror(errno));
	}
	free(obj);
	*cookie = 0;
	return 0;
}
