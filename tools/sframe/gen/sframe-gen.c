// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: generate SFrame sections from DWARF CFI, as sidecar files.
 *
 *   sframe-gen [-v] [-f] [-n] [-l] [-p PREFIX | -o FILE] OBJECT
 *   sframe-gen [-v] [-f] [-n] [-j JOBS] [-p PREFIX] -t DIR [-t DIR...]
 *
 * For each function of the object's .eh_frame (and .debug_frame) whose
 * rules SFrame can express, row by row, the section has an FDE; the others
 * are left out whole, never approximated, and counted by reason.  The
 * section is written with libsframe's encoder, in the SFrame version that
 * libsframe writes (V2 with binutils 2.44, V3 from 2.46), into a sidecar
 * file found by build ID: PREFIX/.build-id/xx/yyyy.sframe (see README).
 */
#define _GNU_SOURCE	/* nftw()'s FTW_ACTIONRETVAL */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sframe-api.h>

#include "sframe-gen.h"

#ifdef SFRAME_VERSION_3
#define GEN_VERSION	SFRAME_VERSION_3
#define GEN_FLAGS	(SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL)
#define GEN_V3		true
#else
#define GEN_VERSION	SFRAME_VERSION_2
#define GEN_FLAGS	SFRAME_F_FDE_SORTED
#define GEN_V3		false
#endif

/* V3 marks signal frames and has flexible FDEs; V2 has neither */
static const struct sfgen_version gen_version = {
	.signal = GEN_V3,
	.flex = GEN_V3,
};

struct options {
	const char	*prefix;
	const char	*output;
	bool		verbose;
	bool		force;
	bool		dry_run;
	bool		list;
	unsigned int	jobs;
};

/* What happened to one object, for the tree summary */
enum outcome {
	O_NOT_OBJECT,	/* not an ELF object sframe-gen reads */
	O_HAS_SFRAME,	/* has SFrame already */
	O_NO_BUILD_ID,	/* cannot have a sidecar */
	O_CURRENT,	/* its sidecar is current */
	O_NO_CFI,	/* no FDE at all */
	O_NOTHING,	/* no function could be expressed */
	O_GENERATED,	/* sidecar written (or would be, with -n) */
	O_FAILED,	/* unreadable, or the sidecar could not be written */
	O_NOUTCOMES
};

static const char *const outcome_name[O_NOUTCOMES] = {
	[O_NOT_OBJECT]	= "not x86-64/arm64 ELF executables or shared objects",
	[O_HAS_SFRAME]	= "with SFrame already",
	[O_NO_BUILD_ID]	= "without a build ID",
	[O_CURRENT]	= "with a current sidecar",
	[O_NO_CFI]	= "without CFI",
	[O_NOTHING]	= "with no function SFrame can express",
	[O_GENERATED]	= "sidecars generated",
	[O_FAILED]	= "failed",
};

struct stats {
	unsigned long	outcomes[O_NOUTCOMES];
	unsigned long	funcs;
	unsigned long	funcs_ok;	/* every address has a rule */
	unsigned long	funcs_part;	/* some have */
	unsigned long	text;		/* bytes of text in FDEs */
	unsigned long	text_ok;	/* ... with a rule */
	unsigned long	code;		/* bytes of executable sections */
	unsigned long	why_funcs[SFGEN_NREASONS];
	unsigned long	why_text[SFGEN_NREASONS];
	unsigned long	eh_frame;	/* .eh_frame + .eh_frame_hdr bytes */
	unsigned long	sframe;		/* SFrame section bytes */
	unsigned long	sidecar;	/* sidecar file bytes */
};

static void add_stats(struct stats *to, const struct stats *from)
{
	const unsigned long *f = (const unsigned long *)from;
	unsigned long *t = (unsigned long *)to;
	size_t i;

	for (i = 0; i < sizeof(*to) / sizeof(*t); i++)
		t[i] += f[i];
}

static double pct(unsigned long part, unsigned long whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* A data word of an FRE: an offset (signed), or a flex control word */
struct word {
	int64_t	v;
	bool	ctrl;
};

/* The smallest SFrame data word that holds every value */
static unsigned int word_size(const struct word *w, unsigned int n)
{
	unsigned int i, size = SFRAME_FRE_OFFSET_1B;

	for (i = 0; i < n; i++) {
		int64_t lo = w[i].ctrl ? 0 : INT16_MIN;
		int64_t hi = w[i].ctrl ? UINT16_MAX : INT16_MAX;

		if (w[i].v < lo || w[i].v > hi)
			return SFRAME_FRE_OFFSET_4B;
		if (w[i].ctrl ? w[i].v > UINT8_MAX :
				w[i].v < INT8_MIN || w[i].v > INT8_MAX)
			size = SFRAME_FRE_OFFSET_2B;
	}
	return size;
}

/*
 * A flex rule's control word: based on register @reg, or on the CFA when
 * @reg < 0; the word there when @deref (bits 3 and up, 1, 0: the layout of
 * libsframe 2.46's SFRAME_V3_FLEX_FDE_CTRLWORD_ENCODE(), which 2.44 lacks)
 */
static struct word flex_ctrl(int reg, bool deref)
{
	return (struct word){
		.v = (reg < 0 ? 0 : reg) << 3 | deref << 1 | (reg >= 0),
		.ctrl = true,
	};
}

/*
 * A flexible FDE's data words: (control, offset) pairs for the CFA, the RA
 * and the FP, in that order; a single zero word for an RA at its default
 * place (x86-64: CFA - 8; arm64: in LR) when the FP's pair follows, and
 * nothing for what comes last and is the default.
 */
static unsigned int flex_words(const struct sfgen_row *row, bool x86,
			       struct word *w)
{
	unsigned int n = 0;

	w[n++] = flex_ctrl(row->cfa_reg, row->cfa_deref);
	w[n++] = (struct word){ .v = row->cfa_off };
	if (!x86 && row->ra == SFGEN_RA_SAVED) {
		w[n++] = flex_ctrl(-1, true);
		w[n++] = (struct word){ .v = row->ra_off };
	} else if (row->fp != SFGEN_FP_SAME) {
		w[n++] = (struct word){ .v = 0, .ctrl = true };
	}
	if (row->fp == SFGEN_FP_SAVED) {
		w[n++] = flex_ctrl(-1, true);
		w[n++] = (struct word){ .v = row->fp_off };
	} else if (row->fp == SFGEN_FP_AT_REG) {
		w[n++] = flex_ctrl(row->fp_reg, row->fp_deref);
		w[n++] = (struct word){ .v = row->fp_off };
	}
	return n;
}

/*
 * A default FDE's data words: the CFA offset; on arm64 the RA's, then the
 * FP's; on x86-64 (RA at a fixed offset) the FP's.
 */
static unsigned int default_words(const struct sfgen_row *row, bool x86,
				  struct word *w)
{
	unsigned int n = 0;

	w[n++] = (struct word){ .v = row->cfa_off };
	if (!x86 && row->ra == SFGEN_RA_SAVED)
		w[n++] = (struct word){ .v = row->ra_off };
	if (row->fp == SFGEN_FP_SAVED)
		w[n++] = (struct word){ .v = row->fp_off };
	return n;
}

static int add_row(sframe_encoder_ctx *enc, unsigned int idx,
		   const struct sfgen_obj *obj, uint64_t start, bool flex,
		   const struct sfgen_row *row)
{
	bool x86 = obj->machine == EM_X86_64;
	sframe_frame_row_entry fre;
	struct word w[6];
	unsigned char *words;
	unsigned int n = 0, size, i;
	uint8_t info;

	memset(&fre, 0, sizeof(fre));
#ifdef SFRAME_VERSION_3
	words = fre.fre_datawords;
#else
	words = fre.fre_offsets;
#endif
	fre.fre_start_addr = row->pc - start;
	/* none: the outermost frame */
	if (row->ra != SFGEN_RA_UNDEFINED)
		n = flex ? flex_words(row, x86, w) : default_words(row, x86, w);
	size = word_size(w, n);
	for (i = 0; i < n; i++) {
		uint32_t v = (uint32_t)w[i].v;

		switch (size) {
		case SFRAME_FRE_OFFSET_1B: {
			uint8_t b = v;

			memcpy(words + i, &b, 1);
			break;
		}
		case SFRAME_FRE_OFFSET_2B: {
			uint16_t h = v;

			memcpy(words + 2 * i, &h, 2);
			break;
		}
		default:
			memcpy(words + 4 * i, &v, 4);
		}
	}
	info = SFRAME_V1_FRE_INFO(row->cfa_reg == (x86 ? SFGEN_X86_FP :
						   SFGEN_A64_FP) ?
				  SFRAME_BASE_REG_FP : SFRAME_BASE_REG_SP,
				  n, size);
	fre.fre_info = SFRAME_V1_FRE_INFO_UPDATE_MANGLED_RA_P(row->mangled,
							      info);
	return sframe_encoder_add_fre(enc, idx, &fre);
}

/* The end of the run of rows that are not holes from row @r on */
static size_t run_end(const struct sfgen_func *f, size_t r)
{
	while (r < f->nrows && !f->rows[r].why)
		r++;
	return r;
}

/* Where row @r of @f ends: the next row, or the function's end */
static uint64_t row_end(const struct sfgen_func *f, size_t r)
{
	return r + 1 < f->nrows ? f->rows[r + 1].pc : f->fde->end;
}

/*
 * One SFrame FDE: rows [@r, @e) of @f, the addresses from the first row's
 * up to the hole or the function's end that follows them.
 */
static int add_fde(sframe_encoder_ctx *enc, unsigned int idx,
		   const struct sfgen_obj *obj, const struct sfgen_func *f,
		   size_t r, size_t e)
{
	uint64_t start = f->rows[r].pc;
	uint32_t size = row_end(f, e - 1) - start;
	bool flex = false;
	unsigned char info;
	size_t i;
	int err;

	for (i = r; i < e; i++)
		flex |= sfgen_row_flex(obj, &f->rows[i]);
	info = sframe_fde_create_func_info(sframe_calc_fre_type(size),
					   SFRAME_FDE_TYPE_PCINC);
	/* the V1 macro: V2 and V3 have the same bit, 2.44 no V2 name */
	if (f->fde->key_b)
		info = SFRAME_V1_FUNC_INFO_UPDATE_PAUTH_KEY(SFRAME_AARCH64_PAUTH_KEY_B,
							    info);
#ifdef SFRAME_VERSION_3
	{
		int64_t off = start - obj->sframe_addr -
			sframe_encoder_get_offsetof_fde_start_addr(enc, idx, &err);

		info = SFRAME_V3_FDE_UPDATE_SIGNAL_P(f->fde->signal, info);
		err = sframe_encoder_add_funcdesc_v3(enc, off, size, info,
						     flex ? SFRAME_FDE_TYPE_FLEX :
							    SFRAME_FDE_TYPE_DEFAULT,
						     0, e - r);
	}
#else
	/* no flexible FDE: sfgen_row_flex() holds for no row of V2's */
	err = sframe_encoder_add_funcdesc_v2(enc, start - obj->sframe_addr,
					     size, info, 0, e - r);
#endif
	for (i = r; !err && i < e; i++)
		err = add_row(enc, idx, obj, start, flex, &f->rows[i]);
	return err;
}

/* Is @addr - @base an int32_t? */
static bool s32_from(uint64_t base, uint64_t addr)
{
	int64_t off = (int64_t)(addr - base);

	return off >= INT32_MIN && off <= INT32_MAX;
}

/*
 * The SFrame section of the expressible functions, with libsframe's
 * encoder: one FDE for each run of rows between holes.  Function start
 * offsets are relative to the section's address in the object's address
 * space, obj->sframe_addr: from the section's start (V2) or from the FDE's
 * own field (V3, SFRAME_F_FDE_FUNC_START_PCREL).  A function too far from
 * it for V2's 32-bit offsets is left out (limits).
 */
static char *encode(const struct sfgen_obj *obj, struct sfgen_func *funcs,
		    size_t nfuncs, size_t *len)
{
	bool x86 = obj->machine == EM_X86_64;
	sframe_encoder_ctx *enc;
	unsigned int idx = 0;
	char *buf = NULL, *out;
	size_t i, r, e;
	int err = 0;

	enc = sframe_encode(GEN_VERSION, GEN_FLAGS,
			    x86 ? SFRAME_ABI_AMD64_ENDIAN_LITTLE :
				  SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
			    SFRAME_CFA_FIXED_FP_INVALID,
			    x86 ? -8 : SFRAME_CFA_FIXED_RA_INVALID, &err);
	if (!enc)
		return NULL;
	for (i = 0; i < nfuncs; i++) {
		struct sfgen_func *f = &funcs[i];

		if (f->why)
			continue;
		/* V2: every FDE of the function within 32 bits of the section */
		if (!GEN_V3 && (!s32_from(obj->sframe_addr, f->fde->start) ||
				!s32_from(obj->sframe_addr, f->fde->end))) {
			f->why = SFGEN_LIMITS;
			f->why_pc = f->fde->start;
			continue;
		}
		for (r = 0; r < f->nrows; r = e) {
			if (f->rows[r].why) {
				e = r + 1;
				continue;
			}
			e = run_end(f, r);
			err = add_fde(enc, idx++, obj, f, r, e);
			if (err)
				goto out;
		}
	}
#ifdef SFRAME_VERSION_3
	/* in order already; libsframe 2.47 fails to write unsorted sections */
	out = sframe_encoder_write(enc, len, true, &err);
#else
	out = sframe_encoder_write(enc, len, &err);
#endif
	/* the encoder owns its output */
	if (out) {
		buf = malloc(*len);
		if (buf)
			memcpy(buf, out, *len);
	}
out:
	sframe_encoder_free(&enc);
	return buf;
}

/*
 * "start end verdict [where]" of each FDE: ok, or why it was left out
 * whole, or "partial" followed by its holes, "  start end reason".
 */
static void list_funcs(const struct sfgen_func *funcs, size_t n)
{
	size_t i, r;

	for (i = 0; i < n; i++) {
		const struct sfgen_func *f = &funcs[i];
		bool partial = false;

		for (r = 0; r < f->nrows; r++)
			partial |= f->rows[r].why != SFGEN_OK;
		printf("%llx %llx %s", (unsigned long long)f->fde->start,
		       (unsigned long long)f->fde->end,
		       partial ? "partial" : sfgen_reason_name[f->why]);
		if (f->why)
			printf(" %llx", (unsigned long long)f->why_pc);
		putchar('\n');
		for (r = 0; r < f->nrows; r++)
			if (f->rows[r].why)
				printf("  %llx %llx %s\n",
				       (unsigned long long)f->rows[r].pc,
				       (unsigned long long)row_end(f, r),
				       sfgen_reason_name[f->rows[r].why]);
	}
}

/* A function's text with and without rules, by reason */
static void count_func(struct stats *s, const struct sfgen_func *f)
{
	uint64_t size = f->fde->end - f->fde->start, hole;
	bool seen[SFGEN_NREASONS] = { false };
	size_t r;

	s->funcs++;
	s->text += size;
	if (f->why) {
		s->why_funcs[f->why]++;
		s->why_text[f->why] += size;
		return;
	}
	for (r = 0; r < f->nrows; r++) {
		if (!f->rows[r].why)
			continue;
		hole = row_end(f, r) - f->rows[r].pc;
		size -= hole;
		s->why_text[f->rows[r].why] += hole;
		if (!seen[f->rows[r].why])
			s->why_funcs[f->rows[r].why]++;
		seen[f->rows[r].why] = true;
	}
	s->text_ok += size;
	if (size == f->fde->end - f->fde->start)
		s->funcs_ok++;
	else
		s->funcs_part++;
}

static void print_coverage(FILE *out, const char *path, const struct stats *s)
{
	unsigned int r;

	fprintf(out, "%s: %lu of %lu functions (%.1f%%), ", path, s->funcs_ok,
		s->funcs, pct(s->funcs_ok, s->funcs));
	if (s->funcs_part)
		fprintf(out, "%lu more in part, ", s->funcs_part);
	fprintf(out, "%lu of %lu bytes of text in FDEs (%.1f%%; ", s->text_ok,
		s->text, pct(s->text_ok, s->text));
	fprintf(out, "%.1f%% of the executable sections)\n",
		pct(s->text_ok, s->code));
	for (r = 1; r < SFGEN_NREASONS; r++)
		if (s->why_funcs[r])
			fprintf(out, "  left out, %s: %lu functions %s, %lu bytes\n",
				sfgen_reason_name[r], s->why_funcs[r],
				"(in whole or part)", s->why_text[r]);
}

/*
 * One object: its sidecar, unless it has SFrame, no build ID or a current
 * sidecar already (with -f, regenerated anyway).
 */
static enum outcome do_object(const char *path, const struct options *o,
			      struct stats *st, bool tree)
{
	struct sfgen_func *funcs = NULL;
	enum outcome res = O_FAILED;
	char out[PATH_MAX], err[256];
	struct sfgen_sidecar sc;
	struct sfgen_obj obj;
	struct stats s = { 0 };
	char *sframe = NULL;
	size_t i, len = 0;
	int rc;

	rc = sfgen_open(&obj, path, err, sizeof(err));
	if (rc) {
		if (rc > 0 && tree)
			return O_NOT_OBJECT;
		fprintf(stderr, "sframe-gen: %s: %s\n", path, err);
		return rc > 0 ? O_NOT_OBJECT : O_FAILED;
	}
	if (obj.has_sframe) {
		res = O_HAS_SFRAME;
		if (!tree)
			fprintf(stderr, "sframe-gen: %s: has SFrame already\n", path);
		goto out;
	}
	/* a loader finds and checks a sidecar by the build ID */
	if (obj.build_id_len < 2) {
		res = O_NO_BUILD_ID;
		if (!tree || o->verbose)
			fprintf(stderr, "sframe-gen: %s: no build ID\n", path);
		goto out;
	}
	if (o->output) {
		snprintf(out, sizeof(out), "%s", o->output);
	} else if (sfgen_sidecar_path(&obj, o->prefix, out, sizeof(out))) {
		fprintf(stderr, "sframe-gen: %s: sidecar path too long\n", path);
		goto out;
	}
	if (!o->force && !o->dry_run && !o->list &&
	    !sfgen_read_sidecar(&sc, out, obj.machine, err, sizeof(err))) {
		bool current = sfgen_sidecar_matches(&sc, &obj) &&
			       sc.sframe_len > 2 && sc.sframe[2] == GEN_VERSION;

		sfgen_free_sidecar(&sc);
		if (current) {
			if (o->verbose || !tree)
				printf("%s: %s is current\n", path, out);
			res = O_CURRENT;
			goto out;
		}
	}

	if (sfgen_read_fdes(&obj)) {
		fprintf(stderr, "sframe-gen: %s: cannot read its CFI\n", path);
		goto out;
	}
	if (!obj.nfdes) {
		res = O_NO_CFI;
		if (o->verbose || !tree)
			printf("%s: no CFI\n", path);
		goto out;
	}
	funcs = calloc(obj.nfdes, sizeof(*funcs));
	if (!funcs)
		goto out;
	for (i = 0; i < obj.nfdes; i++)
		if (sfgen_func_rows(&obj, &obj.fdes[i], &gen_version, &funcs[i]))
			goto out;
	sframe = encode(&obj, funcs, obj.nfdes, &len);
	if (!sframe) {
		fprintf(stderr, "sframe-gen: %s: libsframe could not encode the section\n",
			path);
		goto out;
	}
	if (o->list)
		list_funcs(funcs, obj.nfdes);

	/* counted after encode(), which may leave more out */
	s.code = obj.code_size;
	for (i = 0; i < obj.nfdes; i++)
		count_func(&s, &funcs[i]);
	if (!s.text_ok) {
		res = O_NOTHING;
	} else {
		res = O_GENERATED;
		s.eh_frame = obj.eh_frame_size;
		s.sframe = len;
	}
	if (res == O_GENERATED && !o->dry_run) {
		struct stat stb;

		if (sfgen_write_sidecar(&obj, out, sframe, len)) {
			fprintf(stderr, "sframe-gen: %s: %s\n", out, strerror(errno));
			res = O_FAILED;
			goto out;
		}
		if (!stat(out, &stb))
			s.sidecar = stb.st_size;
	}
	if (!tree || o->verbose) {
		FILE *f = tree || o->list ? stderr : stdout;

		print_coverage(f, path, &s);
		if (res == O_GENERATED && !o->dry_run) {
			fprintf(f, "  sidecar %s: %lu bytes, ", out, s.sidecar);
			fprintf(f, "SFrame V%d section %lu bytes; ", GEN_VERSION,
				s.sframe);
			fprintf(f, ".eh_frame and .eh_frame_hdr %lu bytes\n",
				s.eh_frame);
		}
	}
	add_stats(st, &s);
out:
	if (funcs)
		for (i = 0; i < obj.nfdes; i++)
			sfgen_free_func(&funcs[i]);
	free(funcs);
	free(sframe);
	sfgen_close(&obj);
	return res;
}

/* The files of the trees, collected by nftw(), which takes no argument */
struct file {
	char	*path;
	dev_t	dev;
	ino_t	ino;
	off_t	size;
};

static struct {
	struct file	*files;
	size_t		n;
	size_t		cap;
	const char	*skip;	/* the sidecar tree itself */
} walk;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	struct file *f;

	(void)ftw;

	if (type == FTW_D && walk.skip && !strcmp(path, walk.skip))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F || !S_ISREG(st->st_mode) ||
	    st->st_size < (off_t)sizeof(Elf64_Ehdr))
		return FTW_CONTINUE;
	if (walk.n == walk.cap) {
		walk.cap = walk.cap ? 2 * walk.cap : 1024;
		f = realloc(walk.files, walk.cap * sizeof(*f));
		if (!f)
			return FTW_STOP;
		walk.files = f;
	}
	f = &walk.files[walk.n];
	f->path = strdup(path);
	if (!f->path)
		return FTW_STOP;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	walk.n++;
	return FTW_CONTINUE;
}

static int cmp_inode(const void *a, const void *b)
{
	const struct file *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Largest first, so that the workers end together */
static int cmp_size(const void *a, const void *b)
{
	const struct file *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->path, y->path);
}

struct shared {
	unsigned long	next;
	struct stats	stats[];
};

static void worker(struct shared *sh, unsigned int k, const struct options *o)
{
	for (;;) {
		unsigned long i = __atomic_fetch_add(&sh->next, 1,
						     __ATOMIC_RELAXED);
		enum outcome res;

		if (i >= walk.n)
			break;
		res = do_object(walk.files[i].path, o, &sh->stats[k], true);
		sh->stats[k].outcomes[res]++;
	}
}

static int do_trees(char **trees, unsigned int ntrees, const struct options *o)
{
	struct stats total = { 0 };
	char skip[PATH_MAX];
	struct shared *sh;
	size_t i, n, shsize;
	unsigned int k, r;
	int ret = 0;

	if (realpath(o->prefix, skip))
		walk.skip = skip;
	for (k = 0; k < ntrees; k++) {
		if (nftw(trees[k], walk_one, 64, FTW_PHYS | FTW_ACTIONRETVAL)) {
			fprintf(stderr, "sframe-gen: %s: %s\n", trees[k],
				strerror(errno));
			return 1;
		}
	}
	/* each file once, whatever its links */
	if (walk.n)
		qsort(walk.files, walk.n, sizeof(*walk.files), cmp_inode);
	for (i = n = 0; i < walk.n; i++) {
		if (n && walk.files[n - 1].dev == walk.files[i].dev &&
		    walk.files[n - 1].ino == walk.files[i].ino) {
			free(walk.files[i].path);
			continue;
		}
		walk.files[n++] = walk.files[i];
	}
	walk.n = n;
	if (walk.n)
		qsort(walk.files, walk.n, sizeof(*walk.files), cmp_size);

	shsize = sizeof(*sh) + o->jobs * sizeof(sh->stats[0]);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("sframe-gen: mmap");
		return 1;
	}
	fflush(stdout);
	for (k = 1; k < o->jobs; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("sframe-gen: fork");
			break;
		}
		if (!pid) {
			worker(sh, k, o);
			fflush(stdout);
			_exit(0);
		}
	}
	worker(sh, 0, o);
	for (;;) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0)
			break;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}
	for (k = 0; k < o->jobs; k++)
		add_stats(&total, &sh->stats[k]);

	printf("%lu files, %lu x86-64 and arm64 ELF executables and shared objects:\n",
	       walk.n, walk.n - total.outcomes[O_NOT_OBJECT]);
	for (r = O_HAS_SFRAME; r < O_NOUTCOMES; r++)
		printf("  %lu %s\n", total.outcomes[r], outcome_name[r]);
	if (total.funcs)
		print_coverage(stdout, "functions of the objects read", &total);
	if (total.outcomes[O_GENERATED]) {
		printf("sidecars: %lu bytes (SFrame V%d sections %lu bytes); ",
		       total.sidecar, GEN_VERSION, total.sframe);
		printf("their objects' .eh_frame and .eh_frame_hdr: %lu bytes\n",
		       total.eh_frame);
	}
	if (total.outcomes[O_FAILED])
		ret = 1;
	munmap(sh, shsize);
	for (i = 0; i < walk.n; i++)
		free(walk.files[i].path);
	free(walk.files);
	return ret;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: sframe-gen [-v] [-f] [-n] [-l] [-p PREFIX | -o FILE] OBJECT\n"
		"       sframe-gen [-v] [-f] [-n] [-j JOBS] [-p PREFIX] -t DIR [-t DIR...]\n"
		"\n"
		"Generate the SFrame section of an object from its DWARF CFI, as a sidecar\n"
		"file PREFIX/.build-id/xx/yyyy.sframe, named by the object's build ID.\n"
		"\n"
		"  -p, --prefix DIR  sidecar tree (default /usr/lib/sframe)\n"
		"  -o, --output FILE write the sidecar to FILE instead\n"
		"  -t, --tree DIR    every ELF object under DIR (repeatable); skips objects\n"
		"                    with SFrame and objects whose sidecar is current\n"
		"  -j, --jobs N      objects generated in parallel (default: online CPUs)\n"
		"  -f, --force       regenerate current sidecars\n"
		"  -n, --dry-run     write nothing, report coverage\n"
		"  -l, --list        list each FDE on stdout: start end verdict [pc]\n"
		"  -v, --verbose     one report per object in tree mode\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prefix",	required_argument, NULL, 'p' },
		{ "output",	required_argument, NULL, 'o' },
		{ "tree",	required_argument, NULL, 't' },
		{ "jobs",	required_argument, NULL, 'j' },
		{ "force",	no_argument,	   NULL, 'f' },
		{ "dry-run",	no_argument,	   NULL, 'n' },
		{ "list",	no_argument,	   NULL, 'l' },
		{ "verbose",	no_argument,	   NULL, 'v' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ }
	};
	struct options o = { .prefix = "/usr/lib/sframe" };
	struct stats st = { 0 };
	unsigned int ntrees = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	enum outcome res;
	char **trees;
	int c;

	trees = calloc(argc, sizeof(*trees));
	if (!trees)
		return 1;
	o.jobs = cpus > 0 ? cpus : 1;
	while ((c = getopt_long(argc, argv, "p:o:t:j:fnlvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.prefix = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 't':
			trees[ntrees++] = optarg;
			break;
		case 'j':
			o.jobs = strtoul(optarg, NULL, 10);
			if (!o.jobs || o.jobs > 256) {
				fprintf(stderr, "sframe-gen: -j takes 1 to 256\n");
				return 2;
			}
			break;
		case 'f':
			o.force = true;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'l':
			o.list = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (ntrees ? optind != argc || o.output || o.list : optind + 1 != argc) {
		print_usage(stderr);
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "sframe-gen: libelf is too old\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ntrees) {
		c = do_trees(trees, ntrees, &o);
		free(trees);
		return c;
	}
	free(trees);
	res = do_object(argv[optind], &o, &st, false);
	return res == O_GENERATED || res == O_CURRENT ? 0 : 1;
}
