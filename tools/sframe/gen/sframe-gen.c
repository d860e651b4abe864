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
#define GEN_SIGNAL	true
#else
#define GEN_VERSION	SFRAME_VERSION_2
#define GEN_FLAGS	SFRAME_F_FDE_SORTED
#define GEN_SIGNAL	false
#endif

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
	unsigned long	funcs_ok;
	unsigned long	text;		/* bytes of text in FDEs */
	unsigned long	text_ok;
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

/* The smallest SFrame data word that holds every value */
static unsigned int word_size(const int32_t *v, unsigned int n)
{
	unsigned int i, size = SFRAME_FRE_OFFSET_1B;

	for (i = 0; i < n; i++) {
		if (v[i] < INT16_MIN || v[i] > INT16_MAX)
			return SFRAME_FRE_OFFSET_4B;
		if (v[i] < INT8_MIN || v[i] > INT8_MAX)
			size = SFRAME_FRE_OFFSET_2B;
	}
	return size;
}

static int add_row(sframe_encoder_ctx *enc, unsigned int idx, bool x86,
		   const struct sfgen_func *func, const struct sfgen_row *row)
{
	sframe_frame_row_entry fre;
	unsigned char *words;
	unsigned int n = 0, size, i;
	int32_t v[3];
	uint8_t info;

	memset(&fre, 0, sizeof(fre));
#ifdef SFRAME_VERSION_3
	words = fre.fre_datawords;
#else
	words = fre.fre_offsets;
#endif
	fre.fre_start_addr = row->pc - func->fde->start;
	/*
	 * The data words: the CFA offset; on arm64 the RA's, then the FP's;
	 * on x86-64 (RA at a fixed offset) the FP's.  None: the outermost
	 * frame.
	 */
	if (row->ra != SFGEN_RA_UNDEFINED) {
		v[n++] = row->cfa_off;
		if (!x86 && row->ra == SFGEN_RA_SAVED)
			v[n++] = row->ra_off;
		if (row->fp == SFGEN_FP_SAVED)
			v[n++] = row->fp_off;
	}
	size = word_size(v, n);
	for (i = 0; i < n; i++) {
		switch (size) {
		case SFRAME_FRE_OFFSET_1B: {
			int8_t b = v[i];

			memcpy(words + i, &b, 1);
			break;
		}
		case SFRAME_FRE_OFFSET_2B: {
			int16_t h = v[i];

			memcpy(words + 2 * i, &h, 2);
			break;
		}
		default:
			memcpy(words + 4 * i, &v[i], 4);
		}
	}
	info = SFRAME_V1_FRE_INFO(row->cfa_fp ? SFRAME_BASE_REG_FP :
				  SFRAME_BASE_REG_SP, n, size);
	fre.fre_info = SFRAME_V1_FRE_INFO_UPDATE_MANGLED_RA_P(row->mangled,
							      info);
	return sframe_encoder_add_fre(enc, idx, &fre);
}

/*
 * The SFrame section of the expressible functions, with libsframe's
 * encoder.  Function start offsets are relative to the section's address in
 * the object's address space, obj->sframe_addr: from the section's start
 * (V2) or from the FDE's own field (V3, SFRAME_F_FDE_FUNC_START_PCREL).  A
 * function too far from it for V2's 32-bit offsets is left out (limits).
 */
static char *encode(const struct sfgen_obj *obj, struct sfgen_func *funcs,
		    size_t nfuncs, size_t *len)
{
	bool x86 = obj->machine == EM_X86_64;
	sframe_encoder_ctx *enc;
	unsigned int idx = 0;
	char *buf = NULL, *out;
	size_t i, r;
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
		uint32_t size = f->fde->end - f->fde->start;
		unsigned char info;

		if (f->why)
			continue;
		info = sframe_fde_create_func_info(sframe_calc_fre_type(size),
						   SFRAME_FDE_TYPE_PCINC);
		/* the V1 macro: V2 and V3 have the same bit, 2.44 no V2 name */
		if (f->fde->key_b)
			info = SFRAME_V1_FUNC_INFO_UPDATE_PAUTH_KEY(SFRAME_AARCH64_PAUTH_KEY_B,
								    info);
#ifdef SFRAME_VERSION_3
		{
			int64_t start = f->fde->start - obj->sframe_addr -
				sframe_encoder_get_offsetof_fde_start_addr(enc, idx, &err);

			info = SFRAME_V3_FDE_UPDATE_SIGNAL_P(f->fde->signal, info);
			err = sframe_encoder_add_funcdesc_v3(enc, start, size, info,
							     SFRAME_FDE_TYPE_DEFAULT,
							     0, f->nrows);
		}
#else
		{
			int64_t start = f->fde->start - obj->sframe_addr;

			if (start < INT32_MIN || start > INT32_MAX) {
				f->why = SFGEN_LIMITS;
				f->why_pc = f->fde->start;
				continue;
			}
			err = sframe_encoder_add_funcdesc_v2(enc, start, size, info,
							     0, f->nrows);
		}
#endif
		for (r = 0; !err && r < f->nrows; r++)
			err = add_row(enc, idx, x86, f, &f->rows[r]);
		if (err)
			goto out;
		idx++;
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

static void list_funcs(const struct sfgen_func *funcs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sfgen_func *f = &funcs[i];

		printf("%llx %llx %s", (unsigned long long)f->fde->start,
		       (unsigned long long)f->fde->end,
		       sfgen_reason_name[f->why]);
		if (f->why)
			printf(" %llx", (unsigned long long)f->why_pc);
		putchar('\n');
	}
}

static void print_coverage(FILE *out, const char *path, const struct stats *s)
{
	unsigned int r;

	fprintf(out, "%s: %lu of %lu functions (%.1f%%), ", path, s->funcs_ok,
		s->funcs, pct(s->funcs_ok, s->funcs));
	fprintf(out, "%lu of %lu bytes of text in FDEs (%.1f%%; ", s->text_ok,
		s->text, pct(s->text_ok, s->text));
	fprintf(out, "%.1f%% of the executable sections)\n",
		pct(s->text_ok, s->code));
	for (r = 1; r < SFGEN_NREASONS; r++)
		if (s->why_funcs[r])
			fprintf(out, "  left out, %s: %lu functions, %lu bytes\n",
				sfgen_reason_name[r], s->why_funcs[r],
				s->why_text[r]);
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
		if (sfgen_func_rows(&obj, &obj.fdes[i], GEN_SIGNAL, &funcs[i]))
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
	for (i = 0; i < obj.nfdes; i++) {
		uint64_t size = funcs[i].fde->end - funcs[i].fde->start;

		s.funcs++;
		s.text += size;
		s.why_funcs[funcs[i].why]++;
		s.why_text[funcs[i].why] += size;
	}
	s.funcs_ok = s.why_funcs[SFGEN_OK];
	s.text_ok = s.why_text[SFGEN_OK];
	if (!s.funcs_ok) {
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
