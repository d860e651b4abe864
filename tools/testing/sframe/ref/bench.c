// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-bench: lookup speed of the kernel's SFrame decoder (through the
 * harness shim) against libsframe's sframe_find_fre(), in one process, on
 * the same bytes and the same PCs.
 *
 * For each size (10^2 .. 10^6 FDEs by default) it makes an AMD64 section
 * with libsframe's encoder (V2 with libsframe 2.44, V3 with FUNC_START_PCREL
 * with 2.46+): functions of 16 to 1,250 bytes, 1 to 6 rows each, as a
 * compiler's prologues and epilogues give them.  sframe_decode() and
 * sframe_section_init() are not timed.  Both decoders then look up the same
 * random PCs of the text; their CFA offsets must agree on every PC, and
 * ours must say that the CFA is SP-based, as every row of the sections is.
 *
 * Each run times ours and then find_fre on all the PCs.  The table gives
 * the best run of each, their ratio, and the median of the ratios of the
 * runs, which a noisy neighbour that slows down a few runs does not move.
 *
 *   sframe-bench [-n LOOKUPS] [-r REPEATS] [-t ours|lib] [FDES...]
 *
 * -t times one side only (the other prints as 0), for perf stat and perf
 * record on one decoder.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sframe-api.h>

#include "bench.h"

#ifdef SFRAME_VERSION_3
#define BENCH_VERSION	SFRAME_VERSION_3
#define BENCH_FLAGS	(SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL)
#define FRE_WORDS	fre_datawords
#else
#define BENCH_VERSION	SFRAME_VERSION_2
#define BENCH_FLAGS	SFRAME_F_FDE_SORTED
#define FRE_WORDS	fre_offsets
#endif

#define TEXT_START	0x400000UL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct section {
	uint64_t	text;
	uint64_t	text_end;
	uint64_t	sframe;
	char		*buf;
	size_t		len;
	uint32_t	nfres;
	struct bench_row *rows;	/* the FREs as ranges, for the JIT table */
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: the same sections and PCs on every run */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "sframe-bench: %s: %s\n", what,
		err ? sframe_errmsg(err) : "failed");
	exit(1);
}

/*
 * One row: CFA = SP + cfa, and the caller's FP at CFA - 16 if @fp_saved;
 * also kept as the range [@pc, the next row's start) in @s->rows.
 */
static void add_fre(sframe_encoder_ctx *ectx, struct section *s,
		    uint32_t fdx, uint64_t pc, uint32_t start, int cfa,
		    int fp_saved)
{
	struct bench_row *row = &s->rows[s->nfres++];
	sframe_frame_row_entry fre;

	if (s->nfres > 1 && row[-1].end == UINT64_MAX)
		row[-1].end = pc + start;
	row->start = pc + start;
	row->end = UINT64_MAX;
	row->cfa = cfa;
	row->fp_saved = fp_saved;

	memset(&fre, 0, sizeof(fre));
	fre.fre_start_addr = start;
	fre.FRE_WORDS[0] = (unsigned char)cfa;
	fre.FRE_WORDS[1] = (unsigned char)-16;
	fre.fre_info = SFRAME_V1_FRE_INFO(SFRAME_BASE_REG_SP, 1 + !!fp_saved,
					  SFRAME_FRE_OFFSET_1B);
	if (sframe_encoder_add_fre(ectx, fdx, &fre))
		die("sframe_encoder_add_fre", 0);
}

static void make_section(struct section *s, uint32_t nfdes)
{
	uint64_t *start = malloc(nfdes * sizeof(*start));
	uint32_t *size = malloc(nfdes * sizeof(*size));
	sframe_encoder_ctx *ectx;
	uint64_t pc = TEXT_START;
	uint32_t i, j;
	size_t len;
	char *buf;
	int err = 0;

	if (!start || !size)
		die("malloc", 0);
	/* Text first, 16-byte aligned functions; .sframe in a later page */
	for (i = 0; i < nfdes; i++) {
		size[i] = rnd() % 10 ? 16 + rnd() % 240 : 256 + rnd() % 1000;
		start[i] = pc;
		pc = (pc + size[i] + 15) & ~15ULL;
	}
	s->text = TEXT_START;
	s->text_end = pc;
	s->sframe = ((pc + 0xfff) & ~0xfffULL) + 0x1000;
	s->rows = malloc(6 * (size_t)nfdes * sizeof(*s->rows));
	if (!s->rows)
		die("malloc", 0);

	ectx = sframe_encode(BENCH_VERSION, BENCH_FLAGS,
			     SFRAME_ABI_AMD64_ENDIAN_LITTLE, 0, -8, &err);
	if (!ectx)
		die("sframe_encode", err);
	s->nfres = 0;
	for (i = 0; i < nfdes; i++) {
		uint32_t nrows = 1 + rnd() % 6, pushes = nrows > 2 ? nrows - 2 : 0;
		uint32_t fre_type = sframe_calc_fre_type(size[i]);
		unsigned char info;
		int64_t off = (int64_t)(start[i] - s->sframe);
		int fp = rnd() & 1;

		info = sframe_fde_create_func_info(fre_type,
						   SFRAME_FDE_TYPE_PCINC);
		if (nrows > size[i] / 4)
			nrows = 1;
#if BENCH_VERSION == 3
		off -= sframe_encoder_get_offsetof_fde_start_addr(ectx, i, NULL);
		err = sframe_encoder_add_funcdesc_v3(ectx, off, size[i], info,
						     0, 0, nrows);
#else
		err = sframe_encoder_add_funcdesc_v2(ectx, (int32_t)off,
						     size[i], info, 0, nrows);
#endif
		if (err)
			die("sframe_encoder_add_funcdesc", 0);
		/* Entry, one row per push, then the epilogue's last pop */
		add_fre(ectx, s, i, start[i], 0, 8, 0);
		for (j = 1; j <= pushes && nrows > 1; j++)
			add_fre(ectx, s, i, start[i], j * 2, 8 + 8 * j, fp);
		if (nrows > 1)
			add_fre(ectx, s, i, start[i], size[i] - 2, 8, 0);
		/* The last row ends with the function */
		s->rows[s->nfres - 1].end = start[i] + size[i];
	}
#if BENCH_VERSION == 3
	buf = sframe_encoder_write(ectx, &len, true, &err);
#else
	buf = sframe_encoder_write(ectx, &len, &err);
#endif
	if (!buf)
		die("sframe_encoder_write", err);
	s->buf = malloc(len);
	if (!s->buf)
		die("malloc", 0);
	memcpy(s->buf, buf, len);
	s->len = len;
	sframe_encoder_free(&ectx);
	free(start);
	free(size);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Keep @v, so that the compiler cannot drop the work that made it */
static inline void bench_keep(int64_t v)
{
	__asm__ volatile("" : : "r"(v));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * libsframe's lookup; with @full, also read the rest of what an unwinder
 * needs (our decoder returns all of it).  @out as in ours_lookup().
 */
static size_t lib_lookup(sframe_decoder_ctx *dctx, const struct section *s,
			 const uint64_t *pcs, size_t n, int64_t *out, bool full)
{
	sframe_frame_row_entry fre;
	size_t i, found = 0;
	int64_t acc = 0;
	int err;

	for (i = 0; i < n; i++) {
		int64_t off = (int64_t)(pcs[i] - s->sframe);

		if (sframe_find_fre(dctx, off, &fre)) {
			if (out)
				out[i] = BENCH_NONE;
			continue;
		}
		found++;
		if (!full)
			continue;
#if BENCH_VERSION == 3
		acc = sframe_fre_get_cfa_offset(dctx, &fre,
						SFRAME_FDE_TYPE_DEFAULT, &err);
		if (out)
			out[i] = acc;
		acc += sframe_fre_get_ra_offset(dctx, &fre,
						 SFRAME_FDE_TYPE_DEFAULT, &err);
		acc += sframe_fre_get_fp_offset(dctx, &fre,
						 SFRAME_FDE_TYPE_DEFAULT, &err);
#else
		acc = sframe_fre_get_cfa_offset(dctx, &fre, &err);
		if (out)
			out[i] = acc;
		acc += sframe_fre_get_ra_offset(dctx, &fre, &err);
		acc += sframe_fre_get_fp_offset(dctx, &fre, &err);
#endif
		acc += sframe_fre_get_base_reg_id(&fre, &err);
		bench_keep(acc);
	}
	return found;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 100, 1000, 10000, 100000, 1000000 };
	size_t nlook = 1 << 16, nsizes = 0, i;
	uint32_t want[16];
	bool time_ours = true, time_lib = true;
	int repeats = 60, opt, k;

	while ((opt = getopt(argc, argv, "n:r:t:")) != -1) {
		if (opt == 'n')
			nlook = strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			repeats = atoi(optarg);
		else if (opt == 't' && !strcmp(optarg, "ours"))
			time_lib = false;
		else if (opt == 't' && !strcmp(optarg, "lib"))
			time_ours = false;
		else
			return 2;
	}
	if (repeats < 1)
		return 2;
	for (; optind < argc && nsizes < 16; optind++)
		want[nsizes++] = strtoul(argv[optind], NULL, 0);
	if (!nsizes)
		for (; nsizes < ARRAY_SIZE(sizes); nsizes++)
			want[nsizes] = sizes[nsizes];

	printf("SFrame V%d (libsframe's encoder), AMD64; %zu random text PCs a run,",
	       BENCH_VERSION, nlook);
	printf(" best of %d runs\n", repeats);
	printf("%8s %8s %9s %10s %10s %10s %8s %8s %7s %6s %10s %8s %7s\n",
	       "FDEs", "FREs", "bytes", "ours", "find_fre", "+getters",
	       "ratio", "median", "reads", "found", "jit", "median", "reads");
	printf("%8s %8s %9s %10s %10s %10s %8s %8s %7s %6s %10s %8s %7s\n",
	       "", "", "", "ns/lookup", "ns/lookup", "ns/lookup", "ours/ff",
	       "ours/ff", "/lookup", "", "ns/lookup", "jit/ours", "/lookup");

	for (k = 0; k < (int)nsizes; k++) {
		uint64_t *pcs = malloc(nlook * sizeof(*pcs));
		int64_t *a = malloc(nlook * sizeof(*a));
		int64_t *b = malloc(nlook * sizeof(*b));
		double *ratios = malloc(2 * repeats * sizeof(*ratios));
		double *jit_ratios = ratios + repeats;
		double best[4] = { 0, 0, 0, 0 };
		sframe_decoder_ctx *dctx;
		struct section s;
		size_t found, bad = 0;
		unsigned long reads = 0, jit_reads = 0;
		int err = 0, r;

		if (!pcs || !a || !b || !ratios)
			die("malloc", 0);
		make_section(&s, want[k]);
		for (i = 0; i < nlook; i++)
			pcs[i] = s.text + rnd() % (s.text_end - s.text);

		dctx = sframe_decode(s.buf, s.len, &err);
		if (!dctx)
			die("sframe_decode", err);
		err = ours_setup(s.sframe, s.buf, s.len, s.text, s.text_end);
		if (err) {
			fprintf(stderr, "sframe-bench: sframe_section_init: %d\n",
				err);
			return 1;
		}

		/* Same answers first, so that no one times an error path */
		found = ours_lookup(pcs, nlook, a);
		if (lib_lookup(dctx, &s, pcs, nlook, b, true) != found)
			bad++;
		for (i = 0; i < nlook; i++)
			bad += a[i] != b[i];
		/* The same rows as a JIT table, after the section's text */
		err = ours_jit_setup(s.sframe + ((s.len + 0xfff) & ~0xfffUL),
				     s.rows, s.nfres, s.text, s.text_end);
		if (err) {
			fprintf(stderr, "sframe-bench: sframe_jit_init: %d\n",
				err);
			return 1;
		}
		ours_use_jit(true);
		bad += ours_lookup(pcs, nlook, b) != found;
		ours_use_jit(false);
		for (i = 0; i < nlook; i++)
			bad += a[i] != b[i];
		if (bad) {
			fprintf(stderr, "sframe-bench: %u FDEs: %zu PCs disagree\n",
				want[k], bad);
			return 1;
		}

		for (r = 0; r < repeats; r++) {
			double t0, t1, t2, t3, tj;
			unsigned long rj;

			/* The JIT table first, then the section as before */
			ours_use_jit(true);
			rj = ours_reads();
			t0 = now_ns();
			if (time_ours)
				bench_keep(ours_lookup(pcs, nlook, NULL));
			tj = now_ns() - t0;
			jit_reads += ours_reads() - rj;
			ours_use_jit(false);
			rj = ours_reads();
			t0 = now_ns();
			if (time_ours)
				bench_keep(ours_lookup(pcs, nlook, NULL));
			t1 = now_ns();
			reads += ours_reads() - rj;
			if (time_lib)
				bench_keep(lib_lookup(dctx, &s, pcs, nlook,
						      NULL, false));
			t2 = now_ns();
			if (time_lib)
				bench_keep(lib_lookup(dctx, &s, pcs, nlook,
						      NULL, true));
			t3 = now_ns();
			ratios[r] = time_ours && time_lib ?
				    (t1 - t0) / (t2 - t1) : 0;
			if (time_ours && (!r || t1 - t0 < best[0]))
				best[0] = t1 - t0;
			if (time_lib && (!r || t2 - t1 < best[1]))
				best[1] = t2 - t1;
			if (time_lib && (!r || t3 - t2 < best[2]))
				best[2] = t3 - t2;
			jit_ratios[r] = time_ours ? tj / (t1 - t0) : 0;
			if (time_ours && (!r || tj < best[3]))
				best[3] = tj;
		}
		qsort(ratios, repeats, sizeof(*ratios), cmp_double);
		qsort(jit_ratios, repeats, sizeof(*jit_ratios), cmp_double);
		printf("%8u %8u %9zu %10.1f %10.1f %10.1f %8.2f %8.2f %7.1f %5.1f%% %10.1f %8.2f %7.1f\n",
		       want[k], s.nfres, s.len, best[0] / nlook, best[1] / nlook,
		       best[2] / nlook, best[1] ? best[0] / best[1] : 0,
		       ratios[repeats / 2], (double)reads / repeats / nlook,
		       100.0 * found / nlook, best[3] / nlook,
		       jit_ratios[repeats / 2],
		       (double)jit_reads / repeats / nlook);
		fflush(stdout);
		sframe_decoder_free(&dctx);
		free(s.buf);
		free(s.rows);
		free(pcs);
		free(a);
		free(b);
		free(ratios);
	}
	return 0;
}
