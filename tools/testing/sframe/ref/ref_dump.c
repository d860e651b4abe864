// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-ref: the reference side of the differential test.  Looks up PCs of
 * an ELF file's SFrame section with binutils' libsframe and prints one
 * canonical line per PC (canon.h).  Builds against libsframe 2.44 (V2 era,
 * Debian trixie) and 2.46+ (V3, Debian sid); the API differences are marked
 * with SFRAME_VERSION_3, which only the newer sframe.h defines.
 *
 *   sframe-ref -p FILE        print the PC list of FILE (see make_pcs())
 *   sframe-ref FILE <PCS      print the rule of every PC of the list
 *   sframe-ref -l FILE        list the FDEs as libsframe reports them
 *
 * Where libsframe's lookup is known to be wrong, this program works around
 * it with libsframe's own accessors (see README, "libsframe quirks"); -r
 * turns the workarounds off to show the raw behaviour.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sframe-api.h>

#include "canon.h"
#include "sfelf.h"

#ifdef SFRAME_VERSION_3
#define LIBSFRAME_V3	1
#else
#define LIBSFRAME_V3	0
#endif

struct fde {
	int64_t		start;		/* from the start of the section */
	uint32_t	size;
	uint32_t	nfres;
	uint8_t		info;
	uint8_t		info2;		/* V3: FDE type */
	uint8_t		rep;
	uint32_t	idx;
};

struct ref {
	struct sfelf	elf;
	sframe_decoder_ctx *dctx;
	uint8_t		version;
	uint8_t		flags;
	struct fde	*fdes;
	uint32_t	nfdes;
	bool		raw;
	unsigned long	quirks;		/* lookups the workarounds changed */
};

static bool fde_pcmask(const struct fde *f)
{
	return SFRAME_V1_FUNC_FDE_TYPE(f->info) == SFRAME_FDE_TYPE_PCMASK;
}

/* V3 FDE type (info2 bits 0-4): 1 is FLEX; libsframe 2.44 has no name */
static bool fde_flex(const struct ref *r, const struct fde *f)
{
	return r->version == 3 && (f->info2 & 0x1f) == 1;
}

/*
 * The calls whose signatures changed in 2.46.  FDE type 0 (DEFAULT) is what
 * 2.44 assumes; it never sees a flex FDE.
 */
static int32_t ref_get(const struct ref *r, sframe_frame_row_entry *fre,
		       char what, bool flex, int *err)
{
#if LIBSFRAME_V3
	uint32_t type = flex ? SFRAME_FDE_TYPE_FLEX : SFRAME_FDE_TYPE_DEFAULT;

	if (what == 'c')
		return sframe_fre_get_cfa_offset(r->dctx, fre, type, err);
	if (what == 'r')
		return sframe_fre_get_ra_offset(r->dctx, fre, type, err);
	return sframe_fre_get_fp_offset(r->dctx, fre, type, err);
#else
	if (flex) {
		*err = SFRAME_ERR_FRE_INVAL;
		return 0;
	}
	if (what == 'c')
		return sframe_fre_get_cfa_offset(r->dctx, fre, err);
	if (what == 'r')
		return sframe_fre_get_ra_offset(r->dctx, fre, err);
	return sframe_fre_get_fp_offset(r->dctx, fre, err);
#endif
}

static uint32_t ref_udata(const sframe_frame_row_entry *fre, int idx, int *err)
{
#if LIBSFRAME_V3
	return sframe_get_fre_udata(fre, idx, err);
#else
	(void)fre;
	(void)idx;
	*err = SFRAME_ERR_FREOFFSET_NOPRESENT;
	return 0;
#endif
}

static int ref_load_fdes(struct ref *r)
{
	uint32_t i;
	int err = 0;

	r->nfdes = sframe_decoder_get_num_fidx(r->dctx);
	r->fdes = calloc(r->nfdes ? r->nfdes : 1, sizeof(*r->fdes));
	if (!r->fdes)
		return -1;
	for (i = 0; i < r->nfdes; i++) {
		struct fde *f = &r->fdes[i];
		uint32_t nfres, size;
		unsigned char info = 0, info2 = 0;
		uint8_t rep = 0;
		int64_t start = 0;

		if (r->version == SFRAME_VERSION_2) {
			int32_t start32;

			err = sframe_decoder_get_funcdesc_v2(r->dctx, i, &nfres,
							     &size, &start32,
							     &info, &rep);
			start = start32;
		} else {
#if LIBSFRAME_V3
			err = sframe_decoder_get_funcdesc_v3(r->dctx, i, &nfres,
							     &size, &start,
							     &info, &info2,
							     &rep);
#endif
		}
		if (err) {
			fprintf(stderr, "%s: FDE %u: %s\n", r->elf.path, i,
				sframe_errmsg(err));
			return -1;
		}
#if LIBSFRAME_V3
		/*
		 * libsframe 2.46+ keeps the raw field and always adds the
		 * field's offset (it assumes FUNC_START_PCREL); ref_open()
		 * refuses sections without the flag.
		 */
		start += sframe_decoder_get_offsetof_fde_start_addr(r->dctx, i,
								    &err);
#endif
		f->start = start;
		f->size = size;
		f->nfres = nfres;
		f->info = info;
		f->info2 = info2;
		f->rep = rep;
		f->idx = i;
		if (i && f->start < r->fdes[i - 1].start + r->fdes[i - 1].size) {
			fprintf(stderr, "%s: FDE %u overlaps or is unsorted\n",
				r->elf.path, i);
			return -1;
		}
	}
	return 0;
}

static int ref_open(struct ref *r, const char *path)
{
	int err = 0;

	if (sfelf_open(&r->elf, path))
		return -1;
	r->dctx = sframe_decode((const char *)r->elf.sframe, r->elf.sframe_len,
				&err);
	if (!r->dctx) {
		fprintf(stderr, "%s: sframe_decode: %s\n", path,
			sframe_errmsg(err));
		return -1;
	}
	r->version = sframe_decoder_get_version(r->dctx);
	r->flags = r->elf.sframe[3];
	if (r->version != SFRAME_VERSION_2 &&
	    (!LIBSFRAME_V3 || r->version != 3)) {
		fprintf(stderr, "%s: SFrame version %u: not for this libsframe\n",
			path, r->version);
		return -1;
	}
	/*
	 * libsframe 2.44 predates FUNC_START_PCREL; 2.46+ assumes it in every
	 * lookup.  Either way the other kind of section cannot be a reference.
	 */
	if (!!(r->flags & 0x4) != LIBSFRAME_V3 && !r->raw) {
		fprintf(stderr, "%s: this libsframe cannot look up sections %s FUNC_START_PCREL\n",
			path, LIBSFRAME_V3 ? "without" : "with");
		return -1;
	}
	return ref_load_fdes(r);
}

/*
 * The FDE whose range contains section offset @off, or NULL; with @last, the
 * last FDE that starts at or before @off.
 */
static const struct fde *ref_fde_at(const struct ref *r, int64_t off,
				    bool last)
{
	uint32_t lo = 0, hi = r->nfdes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->fdes[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (!last && off - r->fdes[lo - 1].start >= r->fdes[lo - 1].size)
		return NULL;
	return &r->fdes[lo - 1];
}

/*
 * libsframe 2.44 masks the section-relative PC (a signed int32, negative when
 * the text precedes .sframe) instead of the offset in the function, so its
 * PCMASK lookups are wrong.  Pick the row from the FDE's FREs as libsframe
 * decodes them: the last one that starts at or before the offset in the
 * repeated block.
 */
static int ref_pcmask_fre(const struct ref *r, const struct fde *f, int64_t off,
			  sframe_frame_row_entry *fre)
{
	uint32_t in_block = (uint32_t)(off - f->start) % f->rep;
	sframe_frame_row_entry cur;
	uint32_t i;
	int found = -1;

	for (i = 0; i < f->nfres; i++) {
		if (sframe_decoder_get_fre(r->dctx, f->idx, i, &cur))
			return -1;
		if (cur.fre_start_addr > in_block)
			break;
		*fre = cur;
		found = 0;
	}
	return found;
}

static int ref_find_fre(struct ref *r, const struct fde *f, int64_t off,
			sframe_frame_row_entry *fre)
{
	int rc;

	/* The 2.44 API takes an int32_t: an offset it cannot hold has no FRE */
	if (!LIBSFRAME_V3 && off != (int32_t)off)
		return -1;
	rc = sframe_find_fre(r->dctx, off, fre);
	if (!LIBSFRAME_V3 && !r->raw && f && fde_pcmask(f) && f->rep) {
		sframe_frame_row_entry mine;
		int mrc = ref_pcmask_fre(r, f, off, &mine);

		if (mrc != rc || (!rc && memcmp(&mine, fre, sizeof(mine))))
			r->quirks++;
		*fre = mine;
		rc = mrc;
	}
	/* 2.44 accepts PCs past a PCMASK FDE's end: no FDE covers them */
	if (!r->raw && !f && !rc) {
		r->quirks++;
		rc = -1;
	}
	return rc ? -1 : 0;
}

static unsigned int ref_count(const sframe_frame_row_entry *fre)
{
	return SFRAME_V1_FRE_OFFSET_COUNT(fre->fre_info);
}

/*
 * A flex FDE control word and its offset, as the SFrame V3 spec reads it;
 * the machine's stack and frame pointers by their DWARF numbers are
 * CANON_SP and CANON_FP.
 */
static void ref_flex_loc(const struct ref *r, struct canon_loc *l,
			 uint32_t ctrl, int32_t off)
{
	bool x86 = r->elf.machine == EM_X86_64;
	unsigned int reg = ctrl >> 3;

	if (!(ctrl & 1)) {
		l->kind = CANON_CFA;
	} else if (reg == (x86 ? CANON_X86_SP : CANON_A64_SP)) {
		l->kind = CANON_SP;
	} else if (reg == (x86 ? CANON_X86_FP : CANON_A64_FP)) {
		l->kind = CANON_FP;
	} else {
		l->kind = CANON_REG;
		l->reg = reg;
	}
	l->deref = ctrl & 2;
	l->off = off;
}

static int ref_flex(struct ref *r, sframe_frame_row_entry *fre,
		    struct canon_rule *c)
{
	int8_t fixed_ra = sframe_decoder_get_fixed_ra_offset(r->dctx);
	uint32_t ctrl, fp_idx;
	int err, err2;
	int32_t off;

	ctrl = ref_udata(fre, 0, &err);
	off = ref_get(r, fre, 'c', true, &err2);
	if (err || err2)
		return -1;
	ref_flex_loc(r, &c->cfa, ctrl, off);

	/* RA: a pair, one padding word (default rule) or nothing */
	ctrl = ref_udata(fre, 2, &err);
	if (err || !ctrl) {
		if (fixed_ra == SFRAME_CFA_FIXED_RA_INVALID)
			return -1;
		c->ra.kind = CANON_CFA;
		c->ra.deref = true;
		c->ra.off = fixed_ra;
		fp_idx = err ? 0 : 3;
	} else {
		off = ref_get(r, fre, 'r', true, &err);
		if (err)
			return -1;
		ref_flex_loc(r, &c->ra, ctrl, off);
		fp_idx = 4;
	}

	/* FP: a pair after the RA's words, else unchanged */
	c->fp.kind = CANON_SAME;
	if (fp_idx && ref_count(fre) > fp_idx) {
		ctrl = ref_udata(fre, fp_idx, &err);
		off = ref_get(r, fre, 'f', true, &err2);
		if (err || err2)
			return -1;
		if (ctrl)
			ref_flex_loc(r, &c->fp, ctrl, off);
	}
	return 0;
}

static int ref_default(struct ref *r, sframe_frame_row_entry *fre,
		       struct canon_rule *c)
{
	bool x86 = r->elf.machine == EM_X86_64;
	int err = 0;
	int32_t off;

	if (sframe_fre_get_base_reg_id(fre, &err) == SFRAME_BASE_REG_SP)
		c->cfa.kind = CANON_SP;
	else
		c->cfa.kind = CANON_FP;
	off = ref_get(r, fre, 'c', false, &err);
	if (err)
		return -1;
	c->cfa.off = off;

	off = ref_get(r, fre, 'r', false, &err);
	if (!err) {
		c->ra.kind = CANON_CFA;
		c->ra.deref = true;
		c->ra.off = off;
	} else if (!x86) {
		/* AArch64 before the frame record: RA is still in LR */
		c->ra.kind = CANON_REG;
		c->ra.reg = CANON_A64_LR;
	} else {
		return -1;
	}

	off = ref_get(r, fre, 'f', false, &err);
	if (!err) {
		c->fp.kind = CANON_CFA;
		c->fp.deref = true;
		c->fp.off = off;
	} else {
		c->fp.kind = CANON_SAME;
	}
	c->mangled = sframe_fre_get_ra_mangled_p(r->dctx, fre, &err);
	return 0;
}

/* Look up @pc; print its line; return whether a rule was found. */
static bool ref_lookup(struct ref *r, uint64_t pc)
{
	int64_t off = (int64_t)(pc - r->elf.sframe_vaddr);
	const struct fde *f = ref_fde_at(r, off, false);
	sframe_frame_row_entry fre;
	struct canon_rule c;

	memset(&c, 0, sizeof(c));
	if (ref_find_fre(r, f, off, &fre)) {
		canon_print(stdout, r->elf.machine, pc, NULL);
		return false;
	}
	if (!f)		/* -r: libsframe matched past the FDE's end */
		f = ref_fde_at(r, off, true);
	if (ref_count(&fre) == 0) {
		/* No data words: RA undefined, the outermost frame */
		c.ra.kind = CANON_UNDEF;
	} else if (fde_flex(r, f) ? ref_flex(r, &fre, &c) :
		   ref_default(r, &fre, &c)) {
		fprintf(stderr, "%s: %#llx: FRE libsframe cannot read\n",
			r->elf.path, (unsigned long long)pc);
		exit(2);
	}
	if (r->elf.machine == EM_AARCH64)
		c.keyb = SFRAME_V1_FUNC_PAUTH_KEY(f->info);
#if LIBSFRAME_V3
	if (r->version == SFRAME_VERSION_3)
		c.signal = SFRAME_V3_FDE_SIGNAL_P(f->info);
#endif
	canon_print(stdout, r->elf.machine, pc, &c);
	return true;
}

/* A growable list of PCs */
struct pcs {
	uint64_t	*v;
	size_t		n;
	size_t		cap;
};

static void pcs_add(struct pcs *p, uint64_t pc)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4096;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		if (!p->v) {
			perror("realloc");
			exit(2);
		}
	}
	p->v[p->n++] = pc;
}

static void pcs_add_range(struct pcs *p, uint64_t start, uint64_t end)
{
	for (; start < end; start++)
		pcs_add(p, start);
}

/* Every PC of a short range; the edges and a sample of a long one. */
static void pcs_add_gap(struct pcs *p, uint64_t start, uint64_t end)
{
	const uint64_t edge = 64, stride = 61;
	uint64_t pc;

	if (end - start <= 4 * edge) {
		pcs_add_range(p, start, end);
		return;
	}
	pcs_add_range(p, start, start + edge);
	for (pc = start + edge; pc < end - edge; pc += stride)
		pcs_add(p, pc);
	pcs_add_range(p, end - edge, end);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The PCs to look up: every PC of every FDE; the gaps between FDEs (all of a
 * short gap, the edges and a sample of a long one); the text before the first
 * and after the last FDE; and addresses outside the text: around each
 * segment, in the .sframe section itself, at the ends of the address space,
 * and 4 GiB away from a function (where a 32-bit offset would wrap).
 */
static void make_pcs(const struct ref *r)
{
	uint64_t base = r->elf.sframe_vaddr;
	struct pcs p = { 0 };
	size_t i, n;

	for (i = 0; i < r->nfdes; i++) {
		const struct fde *f = &r->fdes[i];
		uint64_t start = base + f->start, end = start + f->size;
		uint64_t next = i + 1 < r->nfdes ?
				base + r->fdes[i + 1].start : end + 256;

		pcs_add_range(&p, start, end);
		pcs_add_gap(&p, end, next);
	}
	if (r->nfdes) {
		uint64_t first = base + r->fdes[0].start;

		pcs_add_gap(&p, first > 256 ? first - 256 : 0, first);
		pcs_add(&p, first + (1ULL << 32));
		pcs_add(&p, first - (1ULL << 32));
	}
	for (i = 0; i < r->elf.nload; i++) {
		uint64_t s = r->elf.load[i].start, e = r->elf.load[i].end;

		pcs_add_range(&p, s > 16 ? s - 16 : 0, s + 16);
		pcs_add_range(&p, e - 16, e + 16);
	}
	pcs_add_gap(&p, base, base + r->elf.sframe_len);
	pcs_add_range(&p, 0, 16);
	pcs_add_range(&p, -16ULL, 0);	/* up to ~0, wrapping to 0 */
	pcs_add(&p, -1ULL);
	pcs_add(&p, 1ULL << 63);

	qsort(p.v, p.n, sizeof(*p.v), cmp_u64);
	for (i = 0, n = 0; i < p.n; i++)
		if (!n || p.v[i] != p.v[n - 1])
			p.v[n++] = p.v[i];
	for (i = 0; i < n; i++)
		printf("%llx\n", (unsigned long long)p.v[i]);
	free(p.v);
}

static void list_fdes(const struct ref *r)
{
	uint32_t i;

	printf("version %u flags %#x abi %u fixed_fp %d fixed_ra %d fdes %u",
	       r->version, r->flags, sframe_decoder_get_abi_arch(r->dctx),
	       sframe_decoder_get_fixed_fp_offset(r->dctx),
	       sframe_decoder_get_fixed_ra_offset(r->dctx), r->nfdes);
	printf(" sframe %#llx+%#zx\n",
	       (unsigned long long)r->elf.sframe_vaddr, r->elf.sframe_len);
	for (i = 0; i < r->nfdes; i++) {
		const struct fde *f = &r->fdes[i];

		printf("%u %#llx size %u fres %u info %#x info2 %#x rep %u\n",
		       i, (unsigned long long)(r->elf.sframe_vaddr + f->start),
		       f->size, f->nfres, f->info, f->info2, f->rep);
	}
}

int main(int argc, char **argv)
{
	unsigned long npcs = 0, nfound = 0;
	struct ref r = { 0 };
	int mode = 'd', opt;
	uint64_t pc;
	int rc;

	while ((opt = getopt(argc, argv, "plr")) != -1) {
		if (opt == '?')
			return 2;
		if (opt == 'r')
			r.raw = true;
		else
			mode = opt;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: %s [-p|-l] [-r] FILE [<PCS]\n", argv[0]);
		return 2;
	}
	if (ref_open(&r, argv[optind]))
		return 2;
	if (mode == 'p') {
		make_pcs(&r);
		return 0;
	}
	if (mode == 'l') {
		list_fdes(&r);
		return 0;
	}
	while ((rc = sfelf_read_pc(stdin, &pc)) > 0) {
		npcs++;
		nfound += ref_lookup(&r, pc);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: malformed PC list\n", argv[0]);
		return 2;
	}
	fprintf(stderr, "fdes %u pcs %lu found %lu quirks %lu\n", r.nfdes, npcs,
		nfound, r.quirks);
	return ferror(stdout) ? 2 : 0;
}
