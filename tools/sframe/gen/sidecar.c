// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: what the generator needs to know of an object, and the sidecar
 * file that carries its generated SFrame section.
 *
 * A sidecar is an ELF file of the object's class, machine and byte order
 * (README and Documentation/trace/sframe.rst describe the layout):
 *
 *   ELF header           no program headers
 *   .note.gnu.build-id   the object's NT_GNU_BUILD_ID note
 *   .note.sframe.text    owner "SFrame", type NT_SFRAME_TEXT: the object's
 *                        executable PT_LOADs, (p_vaddr, p_memsz) pairs of
 *                        64-bit little-endian words
 *   .sframe              SHT_GNU_SFRAME, SHF_ALLOC, 8-byte aligned in the
 *                        file; sh_addr is where the section's offsets put it
 *                        in the object's own address space
 *   .shstrtab
 *   section headers
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe-gen.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif
#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif

#define SIDECAR_NOTE_OWNER	"SFrame"
#define NT_SFRAME_TEXT		1

/* @a: a power of two */
static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static void errf(char *err, size_t len, const char *fmt, const char *what)
{
	snprintf(err, len, fmt, what);
}

/*
 * Open @path for reading if it is a regular file, and stat it: never block
 * (a FIFO's open waits for a writer), never take a controlling terminal,
 * and with @nofollow never go through a symbolic link.  -1 with errno set:
 * EINVAL for a file of another type, ELOOP for a link.
 */
static int open_regular(const char *path, bool nofollow, struct stat *st)
{
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
		  (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -1;
	if (fstat(fd, st)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Looks for an NT_GNU_BUILD_ID note in @d; true if found. */
static bool build_id_in(struct sfgen_obj *obj, Elf_Data *d)
{
	size_t off = 0, name, desc;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name, &desc))) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + name, "GNU", 4) ||
		    !nh.n_descsz || nh.n_descsz > sizeof(obj->build_id))
			continue;
		memcpy(obj->build_id, (char *)d->d_buf + desc, nh.n_descsz);
		obj->build_id_len = nh.n_descsz;
		return true;
	}
	return false;
}

/* The object's build ID, from its note sections, or its note segments. */
static void find_build_id(struct sfgen_obj *obj)
{
	Elf_Scn *scn = NULL;
	size_t nphdr, i;
	GElf_Shdr shdr;
	GElf_Phdr ph;

	while ((scn = elf_nextscn(obj->elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_NOTE &&
		    build_id_in(obj, elf_getdata(scn, NULL)))
			return;
	if (elf_getphdrnum(obj->elf, &nphdr))
		return;
	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(obj->elf, i, &ph) && ph.p_type == PT_NOTE &&
		    build_id_in(obj, elf_getdata_rawchunk(obj->elf, ph.p_offset,
							  ph.p_filesz,
							  ELF_T_NHDR)))
			return;
}

/* What the section headers say: SFrame already there, sizes */
static void scan_sections(struct sfgen_obj *obj)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(obj->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(obj->elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(obj->elf, shstrndx, shdr.sh_name);
		if (shdr.sh_type == SHT_GNU_SFRAME ||
		    (name && !strcmp(name, ".sframe")))
			obj->has_sframe = true;
		if (shdr.sh_type == SHT_NOBITS)
			continue;
		if (shdr.sh_flags & SHF_EXECINSTR)
			obj->code_size += shdr.sh_size;
		if (name && (!strcmp(name, ".eh_frame") ||
			     !strcmp(name, ".eh_frame_hdr")))
			obj->eh_frame_size += shdr.sh_size;
	}
}

/**
 * sfgen_open() - open an object for sframe-gen
 * @obj:	filled in
 * @path:	the object's file name
 * @err:	where the reason of a failure is written
 * @errlen:	its size
 *
 * Accepts 64-bit little-endian ELF executables and shared objects for
 * x86-64 and arm64 with at least one executable PT_LOAD, in regular files
 * (a FIFO is not waited for, a terminal not taken).  Reads the build
 * ID, the executable segments, whether the object has SFrame already, and
 * the address of its sidecar's section; the FDEs are read by
 * sfgen_read_fdes().
 *
 * Return: 0; 1 for a file that is not such an object (@err says why);
 * -1 for a file that cannot be read.
 */
int sfgen_open(struct sfgen_obj *obj, const char *path, char *err,
	       size_t errlen)
{
	uint64_t align = 4096;
	GElf_Ehdr ehdr;
	size_t nphdr, i;
	struct stat st;

	memset(obj, 0, sizeof(*obj));
	obj->path = path;
	obj->fd = open_regular(path, false, &st);
	if (obj->fd < 0 && errno == EINVAL) {
		errf(err, errlen, "%s", "not a regular file");
		return 1;
	}
	if (obj->fd < 0) {
		errf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	obj->elf = elf_begin(obj->fd, ELF_C_READ_MMAP, NULL);
	if (!obj->elf || elf_kind(obj->elf) != ELF_K_ELF ||
	    !gelf_getehdr(obj->elf, &ehdr)) {
		errf(err, errlen, "%s", "not an ELF file");
		goto not_ours;
	}
	if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_AARCH64)) {
		errf(err, errlen, "%s", "not a 64-bit little-endian x86-64 or arm64 object");
		goto not_ours;
	}
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
		errf(err, errlen, "%s", "not an executable or shared object");
		goto not_ours;
	}
	obj->machine = ehdr.e_machine;
	obj->type = ehdr.e_type;
	if (elf_getphdrnum(obj->elf, &nphdr)) {
		errf(err, errlen, "%s", "bad program headers");
		goto not_ours;
	}
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(obj->elf, i, &ph))
			continue;
		if (ph.p_type == PT_GNU_SFRAME)
			obj->has_sframe = true;
		if (ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr) {
			errf(err, errlen, "%s", "a PT_LOAD wraps");
			goto not_ours;
		}
		if (ph.p_vaddr + ph.p_memsz > obj->load_end)
			obj->load_end = ph.p_vaddr + ph.p_memsz;
		if (ph.p_align > align && !(ph.p_align & (ph.p_align - 1)))
			align = ph.p_align;
		if (!(ph.p_flags & PF_X))
			continue;
		if (obj->nsegs == SFGEN_MAX_SEGS) {
			errf(err, errlen, "%s", "too many executable segments");
			goto not_ours;
		}
		/* by address, as the loader and the test look them up */
		for (unsigned int j = obj->nsegs++; ; j--) {
			if (!j || obj->segs[j - 1].vaddr < ph.p_vaddr) {
				obj->segs[j].vaddr = ph.p_vaddr;
				obj->segs[j].memsz = ph.p_memsz;
				break;
			}
			obj->segs[j] = obj->segs[j - 1];
		}
	}
	if (!obj->nsegs) {
		errf(err, errlen, "%s", "no executable segment");
		goto not_ours;
	}
	/* never 0: a loader tells "not given" from 0 */
	obj->sframe_addr = align_up(obj->load_end, align);
	if (obj->sframe_addr < obj->load_end || !obj->sframe_addr) {
		errf(err, errlen, "%s", "segments end at the top of the address space");
		goto not_ours;
	}
	scan_sections(obj);
	find_build_id(obj);
	obj->eh_cfi = dwarf_getcfi_elf(obj->elf);
	return 0;

not_ours:
	sfgen_close(obj);
	return 1;
}

/**
 * sfgen_close() - release what sfgen_open() and sfgen_read_fdes() took
 * @obj:	the object
 */
void sfgen_close(struct sfgen_obj *obj)
{
	free(obj->fdes);
	obj->fdes = NULL;
	obj->nfdes = 0;
	if (obj->eh_cfi)
		dwarf_cfi_end(obj->eh_cfi);
	obj->eh_cfi = NULL;
	if (obj->dwarf)
		dwarf_end(obj->dwarf);
	obj->dwarf = NULL;
	if (obj->elf)
		elf_end(obj->elf);
	obj->elf = NULL;
	if (obj->fd >= 0)
		close(obj->fd);
	obj->fd = -1;
}

/**
 * sfgen_sidecar_path() - where an object's sidecar is found
 * @obj:	the object
 * @prefix:	the sidecar tree, e.g. /usr/lib/sframe
 * @buf:	the path, <prefix>/.build-id/<xx>/<rest of the hex ID>.sframe
 * @len:	size of @buf
 *
 * Return: 0, or -1 when the object has no build ID of at least two bytes
 * or the path does not fit.
 */
int sfgen_sidecar_path(const struct sfgen_obj *obj, const char *prefix,
		       char *buf, size_t len)
{
	size_t i, n;

	if (obj->build_id_len < 2)
		return -1;
	n = snprintf(buf, len, "%s/.build-id/%02x/", prefix, obj->build_id[0]);
	for (i = 1; i < obj->build_id_len && n < len; i++)
		n += snprintf(buf + n, len - n, "%02x", obj->build_id[i]);
	if (n < len)
		n += snprintf(buf + n, len - n, ".sframe");
	return n < len ? 0 : -1;
}

/* mkdir -p of the directory part of @path */
static int make_parents(const char *path)
{
	size_t len = strlen(path);
	char dir[PATH_MAX];
	char *p;

	if (len >= sizeof(dir))
		return -1;
	memcpy(dir, path, len + 1);
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static void put_note(uint8_t *p, const char *owner, uint32_t type,
		     const void *desc, uint32_t descsz)
{
	uint32_t namesz = strlen(owner) + 1;
	Elf64_Nhdr nh = { namesz, descsz, type };

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + sizeof(nh), owner, namesz);
	memcpy(p + sizeof(nh) + align_up(namesz, 4), desc, descsz);
}

static size_t note_size(const char *owner, uint32_t descsz)
{
	return sizeof(Elf64_Nhdr) + align_up(strlen(owner) + 1, 4) +
	       align_up(descsz, 4);
}

static const char shstrtab[] =
	"\0.note.gnu.build-id\0.note.sframe.text\0.sframe\0.shstrtab";
enum { S_NULL, S_BUILD_ID, S_TEXT, S_SFRAME, S_SHSTRTAB, NSECT };
static const unsigned int sect_name[NSECT] = { 0, 1, 20, 38, 46 };

/**
 * sfgen_write_sidecar() - write an object's sidecar file
 * @obj:	the object: its build ID, segments and section address
 * @path:	the file to write; missing directories are made
 * @sframe:	the SFrame section
 * @sframe_len:	its size
 *
 * Writes a temporary file next to @path and renames it, so that a loader
 * never sees half a sidecar and two writers of the same one do not mix.
 *
 * Return: 0, or -1 with errno set.
 */
int sfgen_write_sidecar(const struct sfgen_obj *obj, const char *path,
			const void *sframe, size_t sframe_len)
{
	uint64_t text[2 * SFGEN_MAX_SEGS];
	size_t text_len = obj->nsegs * 2 * sizeof(text[0]);
	size_t off[NSECT + 1], size[NSECT], total;
	Elf64_Shdr sh[NSECT];
	Elf64_Ehdr eh;
	char tmp[PATH_MAX];
	uint8_t *buf;
	unsigned int i;
	int fd, saved;
	ssize_t n;

	for (i = 0; i < obj->nsegs; i++) {
		/* the host is little-endian, as every object sframe-gen reads */
		text[2 * i] = obj->segs[i].vaddr;
		text[2 * i + 1] = obj->segs[i].memsz;
	}
	size[S_NULL] = 0;
	size[S_BUILD_ID] = note_size("GNU", obj->build_id_len);
	size[S_TEXT] = note_size(SIDECAR_NOTE_OWNER, text_len);
	size[S_SFRAME] = sframe_len;
	size[S_SHSTRTAB] = sizeof(shstrtab);
	off[S_NULL] = 0;
	off[S_BUILD_ID] = sizeof(eh);
	off[S_TEXT] = off[S_BUILD_ID] + size[S_BUILD_ID];
	off[S_SFRAME] = align_up(off[S_TEXT] + size[S_TEXT], 8);
	off[S_SHSTRTAB] = off[S_SFRAME] + size[S_SFRAME];
	off[NSECT] = align_up(off[S_SHSTRTAB] + size[S_SHSTRTAB], 8);
	total = off[NSECT] + sizeof(sh);

	buf = calloc(1, total);
	if (!buf)
		return -1;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_NONE;
	eh.e_machine = obj->machine;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = off[NSECT];
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(sh[0]);
	eh.e_shnum = NSECT;
	eh.e_shstrndx = S_SHSTRTAB;
	memcpy(buf, &eh, sizeof(eh));
	put_note(buf + off[S_BUILD_ID], "GNU", NT_GNU_BUILD_ID, obj->build_id,
		 obj->build_id_len);
	put_note(buf + off[S_TEXT], SIDECAR_NOTE_OWNER, NT_SFRAME_TEXT, text,
		 text_len);
	memcpy(buf + off[S_SFRAME], sframe, sframe_len);
	memcpy(buf + off[S_SHSTRTAB], shstrtab, sizeof(shstrtab));

	memset(sh, 0, sizeof(sh));
	for (i = 1; i < NSECT; i++) {
		sh[i].sh_name = sect_name[i];
		sh[i].sh_offset = off[i];
		sh[i].sh_size = size[i];
		sh[i].sh_addralign = 4;
		sh[i].sh_type = SHT_NOTE;
	}
	sh[S_SFRAME].sh_type = SHT_GNU_SFRAME;
	sh[S_SFRAME].sh_flags = SHF_ALLOC;
	sh[S_SFRAME].sh_addr = obj->sframe_addr;
	sh[S_SFRAME].sh_addralign = 8;
	sh[S_SHSTRTAB].sh_type = SHT_STRTAB;
	sh[S_SHSTRTAB].sh_addralign = 1;
	memcpy(buf + off[NSECT], sh, sizeof(sh));

	if (make_parents(path) ||
	    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, getpid()) >=
	    (int)sizeof(tmp)) {
		free(buf);
		return -1;
	}
	/* a stale one of a killed run of the same pid may be there */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	n = write(fd, buf, total);
	saved = n < 0 ? errno : EIO;
	free(buf);
	if (n != (ssize_t)total) {
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, path)) {
		saved = errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	errno = saved;
	return -1;
}

/**
 * sfgen_read_sidecar() - read and check a sidecar file
 * @sc:		filled in
 * @path:	the file
 * @machine:	the machine the object is for
 * @err:	where the reason of a failure is written
 * @errlen:	its size
 *
 * Reads the file into memory if it is a regular file of at most
 * SFGEN_SIDECAR_MAX bytes, not through a symbolic link (sframe-gen then
 * writes the sidecar in the link's place, never where it points), and
 * checks what a loader relies on: ELF64 little-endian for @machine, one
 * build ID note, one text note of at most SFGEN_MAX_SEGS segments, one
 * .sframe section of type SHT_GNU_SFRAME at an 8-byte aligned offset with
 * a non-zero address, all inside the file.  A copy, not a mapping: a file
 * that shrinks meanwhile cannot make the reads past its end SIGBUS.
 *
 * Return: 0, or -1 (@err says why).
 */
int sfgen_read_sidecar(struct sfgen_sidecar *sc, const char *path,
		       unsigned int machine, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, done;
	struct stat st;
	ssize_t n = 0;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	memset(sc, 0, sizeof(*sc));
	fd = open_regular(path, true, &st);
	if (fd < 0) {
		errf(err, errlen, "%s", errno == EINVAL ? "not a regular file" :
		     errno == ELOOP ? "a symbolic link" : strerror(errno));
		return -1;
	}
	if (!st.st_size || (uint64_t)st.st_size > SFGEN_SIDECAR_MAX) {
		close(fd);
		errf(err, errlen, "%s", "empty, or larger than a sidecar is");
		return -1;
	}
	sc->size = st.st_size;
	sc->map = malloc(sc->size);
	for (done = 0; sc->map && done < sc->size; done += n) {
		n = pread(fd, (char *)sc->map + done, sc->size - done, done);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0)
			break;
	}
	close(fd);
	if (!sc->map || done < sc->size) {
		errf(err, errlen, "%s", !sc->map ? "out of memory" : n < 0 ?
		     "cannot read the file" : "the file shrank while it was read");
		sfgen_free_sidecar(sc);
		return -1;
	}
	elf = elf_memory(sc->map, sc->size);
	if (!elf || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != machine ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		errf(err, errlen, "%s", "not an ELF64 little-endian file of the object's machine");
		goto fail;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		const uint8_t *p;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_offset > sc->size || sh.sh_size > sc->size - sh.sh_offset) {
			errf(err, errlen, "%s: section outside the file", name);
			goto fail;
		}
		p = (const uint8_t *)sc->map + sh.sh_offset;
		if (!strcmp(name, ".sframe")) {
			if (sc->sframe || sh.sh_type != SHT_GNU_SFRAME ||
			    sh.sh_offset % 8 || !sh.sh_addr || !sh.sh_size) {
				errf(err, errlen, "%s", "bad .sframe section");
				goto fail;
			}
			sc->sframe = p;
			sc->sframe_len = sh.sh_size;
			sc->sframe_addr = sh.sh_addr;
		} else if (sh.sh_type == SHT_NOTE) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t off = 0, noff, doff;
			GElf_Nhdr nh;

			while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
				const char *owner = (const char *)d->d_buf + noff;
				const uint8_t *desc = (const uint8_t *)d->d_buf + doff;

				if (nh.n_type == NT_GNU_BUILD_ID &&
				    nh.n_namesz == 4 && !memcmp(owner, "GNU", 4)) {
					sc->build_id = desc;
					sc->build_id_len = nh.n_descsz;
				} else if (nh.n_type == NT_SFRAME_TEXT &&
					   nh.n_namesz == sizeof(SIDECAR_NOTE_OWNER) &&
					   !memcmp(owner, SIDECAR_NOTE_OWNER,
						   sizeof(SIDECAR_NOTE_OWNER))) {
					unsigned int i;

					if (nh.n_descsz % 16 ||
					    nh.n_descsz / 16 > SFGEN_MAX_SEGS) {
						errf(err, errlen, "%s", "bad text note");
						goto fail;
					}
					sc->nsegs = nh.n_descsz / 16;
					for (i = 0; i < sc->nsegs; i++) {
						memcpy(&sc->segs[i].vaddr, desc + 16 * i, 8);
						memcpy(&sc->segs[i].memsz, desc + 16 * i + 8, 8);
					}
				}
			}
		}
	}
	if (!sc->sframe || !sc->build_id_len || !sc->nsegs) {
		errf(err, errlen, "%s", "no .sframe section, build ID or text note");
		goto fail;
	}
	elf_end(elf);
	return 0;
fail:
	if (elf)
		elf_end(elf);
	sfgen_free_sidecar(sc);
	return -1;
}

/**
 * sfgen_free_sidecar() - free what sfgen_read_sidecar() read
 * @sc:		the sidecar
 */
void sfgen_free_sidecar(struct sfgen_sidecar *sc)
{
	free(sc->map);
	memset(sc, 0, sizeof(*sc));
}

/**
 * sfgen_sidecar_matches() - whether a sidecar belongs to an object
 * @sc:		the sidecar
 * @obj:	the object
 *
 * The checks a loader makes before it registers a sidecar: the same build
 * ID and the same executable segments.  The section's address must also be
 * the one this generator computes.
 *
 * Return: true if it does.
 */
bool sfgen_sidecar_matches(const struct sfgen_sidecar *sc,
			   const struct sfgen_obj *obj)
{
	unsigned int i;

	if (sc->build_id_len != obj->build_id_len ||
	    memcmp(sc->build_id, obj->build_id, obj->build_id_len) ||
	    sc->nsegs != obj->nsegs || sc->sframe_addr != obj->sframe_addr)
		return false;
	for (i = 0; i < sc->nsegs; i++)
		if (sc->segs[i].vaddr != obj->segs[i].vaddr ||
		    sc->segs[i].memsz != obj->segs[i].memsz)
			return false;
	return true;
}
