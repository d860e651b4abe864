// SPDX-License-Identifier: GPL-2.0
/* sfw: the tests' SFrame section writer, see sfw.h. */
#include <assert.h>
#include <stdarg.h>
#include <string.h>

#include "sfw.h"

void sfw_sec_init(struct sfw_sec *s, uint8_t version, uint8_t abi,
		  uint64_t addr)
{
	memset(s, 0, sizeof(*s));
	s->version = version;
	s->abi = abi;
	s->flags = SFW_F_SORTED | SFW_F_PCREL;
	s->fixed_ra = abi == SFW_ABI_AMD64_LE ? -8 : 0;
	s->addr = addr;
	s->raw_magic = SFW_NONE;
	s->raw_num_fdes = SFW_NONE;
	s->raw_num_fres = SFW_NONE;
	s->raw_fre_len = SFW_NONE;
	s->raw_fdes_off = SFW_NONE;
	s->raw_fres_off = SFW_NONE;
}

void sfw_fde_init(struct sfw_fde *f, uint64_t start, uint32_t size)
{
	memset(f, 0, sizeof(*f));
	f->start = start;
	f->size = size;
	f->fre_type = -1;
	f->raw_start = SFW_NONE;
	f->raw_num_fres = SFW_NONE;
	f->raw_fres_off = SFW_NONE;
	f->raw_info = SFW_NONE;
	f->raw_info2 = SFW_NONE;
}

struct sfw_fre sfw_fre(uint32_t start, bool fp_base, unsigned int n, ...)
{
	struct sfw_fre r;
	va_list ap;
	unsigned int i;

	assert(n <= SFW_MAX_WORDS);
	memset(&r, 0, sizeof(r));
	r.start = start;
	r.fp_base = fp_base;
	r.nwords = n;
	r.raw_info = SFW_NONE;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		r.words[i] = va_arg(ap, int32_t);
	va_end(ap);
	return r;
}

static void put(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

static unsigned int fre_start_size(const struct sfw_fde *f)
{
	unsigned int i;
	uint32_t max = 0;
	int type = f->fre_type;

	if (type < 0) {
		for (i = 0; i < f->nfres; i++)
			if (f->fres[i].start > max)
				max = f->fres[i].start;
		type = max <= 0xff ? 0 : max <= 0xffff ? 1 : 2;
	}
	/* A raw type beyond ADDR4 is written with 1-byte starts. */
	return type == 1 ? 2 : type == 2 ? 4 : 1;
}

static int fre_type_of(const struct sfw_fde *f)
{
	unsigned int sz = fre_start_size(f);

	if (f->fre_type >= 0)
		return f->fre_type;
	return sz == 1 ? 0 : sz == 2 ? 1 : 2;
}

static unsigned int word_size(const struct sfw_fre *r)
{
	unsigned int i, sz = 1;

	if (r->word_size)
		return r->word_size;
	for (i = 0; i < r->nwords; i++) {
		if (r->words[i] < INT8_MIN || r->words[i] > INT8_MAX)
			sz = sz < 2 ? 2 : sz;
		if (r->words[i] < INT16_MIN || r->words[i] > INT16_MAX)
			sz = 4;
	}
	return sz;
}

/* A raw override if there is one, else the computed value */
static uint64_t pick(int64_t raw, uint64_t computed)
{
	return raw != SFW_NONE ? (uint64_t)raw : computed;
}

size_t sfw_write(struct sfw_sec *s, uint8_t *buf, size_t cap)
{
	size_t fde_size = s->version == 2 ? 20 : 16;
	size_t off, nfres = 0;
	unsigned int i, j, k;
	uint8_t *h;

	/* Layout first */
	s->hdr_len = 28 + s->auxhdr_len;
	s->fdes_off = s->hdr_len;
	s->fres_off = s->fdes_off + s->nfdes * fde_size + s->gap;
	off = s->fres_off;
	for (i = 0; i < s->nfdes; i++) {
		struct sfw_fde *f = &s->fdes[i];
		unsigned int ssz = fre_start_size(f);

		f->off = s->fdes_off + i * fde_size;
		if (s->version == 3) {
			f->attr_off = off;
			off += 5;
		}
		f->fres_off = off;
		for (j = 0; j < f->nfres; j++) {
			struct sfw_fre *r = &f->fres[j];

			r->off = off;
			r->len = ssz + 1 + r->nwords * word_size(r);
			off += r->len;
		}
		f->fres_end = off;
		nfres += f->nfres;
	}
	s->fres_end = off;
	s->size = off + s->tail;
	if (s->size > cap)
		return 0;
	memset(buf, 0, s->size);

	h = buf;
	put(h + 0, s->raw_magic != SFW_NONE ? s->raw_magic : 0xdee2, 2);
	h[2] = s->version;
	h[3] = s->flags;
	h[4] = s->abi;
	h[5] = (uint8_t)s->fixed_fp;
	h[6] = (uint8_t)s->fixed_ra;
	h[7] = s->auxhdr_len;
	put(h + 8, pick(s->raw_num_fdes, s->nfdes), 4);
	put(h + 12, pick(s->raw_num_fres, nfres), 4);
	put(h + 16, pick(s->raw_fre_len, s->fres_end - s->fres_off), 4);
	put(h + 20, pick(s->raw_fdes_off, s->fdes_off - s->hdr_len), 4);
	put(h + 24, pick(s->raw_fres_off, s->fres_off - s->hdr_len), 4);
	/* Recognisable aux header bytes, which the decoder must skip */
	memset(h + 28, 0xa5, s->auxhdr_len);

	for (i = 0; i < s->nfdes; i++) {
		struct sfw_fde *f = &s->fdes[i];
		uint64_t base = s->flags & SFW_F_PCREL ? s->addr + f->off :
							 s->addr;
		int64_t start = f->raw_start != SFW_NONE ? f->raw_start :
				(int64_t)(f->start - base);
		uint32_t fres_off = pick(f->raw_fres_off,
					 (s->version == 3 ? f->attr_off :
							    f->fres_off) -
					 s->fres_off);
		uint64_t num = f->raw_num_fres != SFW_NONE ? f->raw_num_fres :
			       f->nfres;
		uint8_t info = f->raw_info != SFW_NONE ? f->raw_info :
			       (fre_type_of(f) & 0xf) | f->pcmask << 4 |
			       f->key_b << 5 | f->signal << 7;
		uint8_t info2 = f->raw_info2 != SFW_NONE ? f->raw_info2 :
				f->flex;
		uint8_t *p = buf + f->off;
		unsigned int ssz = fre_start_size(f);

		if (s->version == 2) {
			assert(f->raw_start != SFW_NONE ||
			       (start >= INT32_MIN && start <= INT32_MAX));
			put(p, start, 4);
			put(p + 4, f->size, 4);
			put(p + 8, fres_off, 4);
			put(p + 12, num, 4);
			p[16] = info;
			p[17] = f->rep_size;
		} else {
			put(p, start, 8);
			put(p + 8, f->size, 4);
			put(p + 12, fres_off, 4);
			p = buf + f->attr_off;
			put(p, num, 2);
			p[2] = info;
			p[3] = info2;
			p[4] = f->rep_size;
		}
		/* FDEs may share their FRE arrays: not r->off */
		p = buf + f->fres_off;
		for (j = 0; j < f->nfres; j++) {
			struct sfw_fre *r = &f->fres[j];
			unsigned int ws = word_size(r);
			unsigned int wcode = ws == 1 ? 0 : ws == 2 ? 1 : 2;

			put(p, r->start, ssz);
			p[ssz] = r->raw_info != SFW_NONE ? r->raw_info :
				 (!r->fp_base) | r->nwords << 1 | wcode << 5 |
				 r->mangled << 7;
			for (k = 0; k < r->nwords; k++)
				put(p + ssz + 1 + k * ws, (uint32_t)r->words[k],
				    ws);
			p += ssz + 1 + r->nwords * ws;
		}
	}
	return s->size;
}

uint64_t sfw_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

size_t sfw_random_section(struct sfw_sec *s, uint8_t version, uint64_t addr,
			  struct sfw_fde *fdes, unsigned int n, uint64_t text,
			  uint64_t *end, uint64_t *state, uint8_t *buf,
			  size_t cap)
{
	static struct sfw_fre fres[2];
	unsigned int i;

	fres[0] = sfw_fre(0, false, 1, 8);
	fres[1] = sfw_fre(1, false, 2, 16, -16);
	sfw_sec_init(s, version, SFW_ABI_AMD64_LE, addr);
	for (i = 0; i < n; i++) {
		uint64_t r = sfw_random(state);
		uint32_t size = r % 10 ? 2 + r % 300 : 2 + r % 20000;

		sfw_fde_init(&fdes[i], text, size);
		fdes[i].fres = fres;
		fdes[i].nfres = 2;
		text += size + ((r >> 32) % 4 ? 0 : (r >> 40) % 64);
	}
	*end = text;
	s->fdes = fdes;
	s->nfdes = n;
	return sfw_write(s, buf, cap);
}
