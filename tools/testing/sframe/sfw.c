// SPDX-License-Identifier: GPL-2.0
/* sfw: the tests' SFrame section writer, see sfw.h. */
#include <assert.h>
#include <stdarg.h>
#include <string.h>

#include "sfw.h"

void sfw_sec_init(struct sfw_sec *s, uint8_t version, uint8_t abi,
		  uint64_t addr, struct sfw_fde *fdes, unsigned int nfdes)
{
	memset(s, 0, sizeof(*s));
	s->version = version;
	s->abi = abi;
	s->flags = SFW_F_SORTED | SFW_F_PCREL;
	s->fixed_ra = abi == SFW_ABI_AMD64_LE ? -8 : 0;
	s->addr = addr;
	s->fdes = fdes;
	s->nfdes = nfdes;
}

void sfw_fde_init(struct sfw_fde *f, uint64_t start, uint32_t size,
		  struct sfw_fre *fres, unsigned int nfres)
{
	memset(f, 0, sizeof(*f));
	f->start = start;
	f->size = size;
	f->fres = fres;
	f->nfres = nfres;
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
	va_start(ap, n);
	for (i = 0; i < n; i++)
		r.words[i] = va_arg(ap, int32_t);
	va_end(ap);
	return r;
}

void sfw_put(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

/* The FRE type: the smallest start size that fits every FRE's start */
static unsigned int fre_type(const struct sfw_fde *f)
{
	uint32_t max = 0;
	unsigned int i;

	for (i = 0; i < f->nfres; i++)
		if (f->fres[i].start > max)
			max = f->fres[i].start;
	return max <= 0xff ? 0 : max <= 0xffff ? 1 : 2;
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

size_t sfw_write(struct sfw_sec *s, uint8_t *buf, size_t cap)
{
	size_t fde_size = s->version == 2 ? 20 : 16;
	size_t off, nfres = 0;
	unsigned int i, j, k;
	uint8_t *h;

	/* Layout first */
	s->hdr_len = 28 + s->auxhdr_len;
	s->fdes_off = s->hdr_len;
	s->fdes_end = s->fdes_off + s->nfdes * fde_size;
	s->fres_off = s->fdes_end + s->gap;
	off = s->fres_off;
	for (i = 0; i < s->nfdes; i++) {
		struct sfw_fde *f = &s->fdes[i];
		unsigned int ssz = 1 << fre_type(f);

		f->off = s->fdes_off + i * fde_size;
		if (s->version == 3) {
			f->attr_off = off;
			off += 5;
		}
		f->fres_off = off;
		for (j = 0; j < f->nfres; j++) {
			struct sfw_fre *r = &f->fres[j];

			r->off = off;
			off += ssz + 1 + r->nwords * word_size(r);
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
	sfw_put(h + 0, 0xdee2, 2);
	h[2] = s->version;
	h[3] = s->flags;
	h[4] = s->abi;
	h[5] = (uint8_t)s->fixed_fp;
	h[6] = (uint8_t)s->fixed_ra;
	h[7] = s->auxhdr_len;
	sfw_put(h + 8, s->nfdes, 4);
	sfw_put(h + 12, nfres, 4);
	sfw_put(h + 16, s->fres_end - s->fres_off, 4);
	sfw_put(h + 20, s->fdes_off - s->hdr_len, 4);
	sfw_put(h + 24, s->fres_off - s->hdr_len, 4);
	/* Recognisable aux header bytes, which the decoder must skip */
	memset(h + 28, 0xa5, s->auxhdr_len);

	for (i = 0; i < s->nfdes; i++) {
		struct sfw_fde *f = &s->fdes[i];
		uint64_t base = s->flags & SFW_F_PCREL ? s->addr + f->off :
							 s->addr;
		int64_t start = (int64_t)(f->start - base);
		uint32_t fres_off = (s->version == 3 ? f->attr_off :
						       f->fres_off) - s->fres_off;
		unsigned int type = fre_type(f), ssz = 1 << type;
		uint8_t info = type | f->pcmask << 4 | f->key_b << 5 |
			       f->signal << 7;
		uint8_t *p = buf + f->off;

		if (s->version == 2) {
			assert(start >= INT32_MIN && start <= INT32_MAX);
			sfw_put(p, start, 4);
			sfw_put(p + 4, f->size, 4);
			sfw_put(p + 8, fres_off, 4);
			sfw_put(p + 12, f->nfres, 4);
			p[16] = info;
			p[17] = f->rep_size;
		} else {
			sfw_put(p, start, 8);
			sfw_put(p + 8, f->size, 4);
			sfw_put(p + 12, fres_off, 4);
			p = buf + f->attr_off;
			sfw_put(p, f->nfres, 2);
			p[2] = info;
			p[3] = f->type;
			p[4] = f->rep_size;
		}
		/* FDEs may share their FRE arrays: not r->off */
		p = buf + f->fres_off;
		for (j = 0; j < f->nfres; j++) {
			struct sfw_fre *r = &f->fres[j];
			unsigned int ws = word_size(r);
			unsigned int wcode = ws == 1 ? 0 : ws == 2 ? 1 : 2;

			sfw_put(p, r->start, ssz);
			p[ssz] = (!r->fp_base) | r->nwords << 1 | wcode << 5 |
				 r->mangled << 7;
			for (k = 0; k < r->nwords; k++)
				sfw_put(p + ssz + 1 + k * ws,
					(uint32_t)r->words[k], ws);
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
	sfw_sec_init(s, version, SFW_ABI_AMD64_LE, addr, fdes, n);
	for (i = 0; i < n; i++) {
		uint64_t r = sfw_random(state);
		uint32_t size = r % 10 ? 2 + r % 300 : 2 + r % 20000;

		sfw_fde_init(&fdes[i], text, size, fres, 2);
		text += size + ((r >> 32) % 4 ? 0 : (r >> 40) % 64);
	}
	*end = text;
	return sfw_write(s, buf, cap);
}
