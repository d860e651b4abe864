// SPDX-License-Identifier: GPL-2.0
/*
 * kbench: the guest side of make bench-kernel (scripts/bench-kernel), the
 * cost of the kernel's user unwind and of the SFrame registry, x86-64 only.
 * Not a test: it prints measurements, one per line,
 *
 *	KB <table> <key>... <value>
 *
 * and the host takes medians over the runs.  It fails (exit 1) when what it
 * measures is not what it claims: a stack that is not the one the program
 * called, a registration that fails.
 *
 * The method: a perf event of this thread on the tracepoint
 * syscalls:sys_enter_getppid, sample_period 1, ring buffer mapped and
 * drained after every call.  "cc": sample_type TID | CALLCHAIN with
 * exclude_callchain_kernel and defer_callchain/defer_output, so that each
 * getppid() makes the kernel walk the user stack in task_work on the way
 * back to user space and write a PERF_RECORD_CALLCHAIN_DEFERRED; "base":
 * sample_type TID only, the same event without a stack.  The time per call
 * (CLOCK_MONOTONIC around a loop of calls) of cc minus that of base is the
 * deferred unwind plus writing its record (8 bytes a frame); its slope over
 * the depth is the cost per frame.  The system call is made by inline asm
 * from the program's own code, so that every frame of the stack is the
 * program's.
 *
 *	kbench frames [D]  per-frame cost at depths 8, 32, 128, 500 (or D):
 *			warm (the cache of SFrame rules holds the
 *			chain's), uncached (the registry changed before each
 *			call, so each frame is looked up), cold (uncached,
 *			and the .sframe pages zapped)
 *	kbench growth	registry lookup (1..1024 sections) and FDE search
 *			(10^2..10^6 FDEs), on code registered with codectl(),
 *			uncached
 *	kbench codectl	codectl() register + unregister against mmap + munmap,
 *			and the cost of munmap/mremap/mprotect with 0, 1 and
 *			1024 registrations, and of munmap with a sidecar
 *			registered far from its text, and after it went;
 *			a JIT function's rules appended to (and retired
 *			from) a CODECTL_REGISTER_JIT table
 *	kbench far	only that last part of codectl
 *	kbench threads	the chain of growth (64 distinct frames, 10^3 FDEs),
 *			warm, in 1 and in 64 threads of the process that take
 *			turns, one call each: what the cache of rules gives
 *			when many threads share the paths
 *	kbench fork	fork and fork + exec with 1024 registrations and none
 *	kbench plain	fork and fork + exec as exec left the process (the
 *			vDSO's registration only), no codectl(): the
 *			pristine kernel runs it too
 *	kbench bpf OBJ	a user stack in a BPF program on the same
 *			tracepoint (OBJ: kbench.bpf.o): the walk that
 *			cannot fault (bpf_get_stack() with BPF_F_USER_STACK)
 *			against a program that does nothing, warm and
 *			uncached, and the deferred walk that
 *			bpf_unwind_user_request() asks for, delivered to a
 *			raw_tp program that copies it; depths as frames
 *	kbench spin D N LABEL [hold]  N rounds of a fixed loop at the
 *			bottom of a D-frame recursion, ns a round: under a
 *			profiler (bpftrace's profile:hz), what its samples
 *			cost; hold: then wait for a signal
 *	kbench noop	exits (the program that "fork" execs)
 *	kbench dump-code N FILE  the chain's code with N FDEs, run once;
 *			its section written to FILE (to check the generator)
 *
 * growth, threads, codectl and fork first unregister what the kernel registered (the
 * vDSO's section), so that their counts are the program's registrations.
 * KBENCH_SCALE (default 1) multiplies the number of calls of each loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <pthread.h>
#include <sched.h>
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/codectl.h>
#include <linux/perf_event.h>
#include <tools/codectl_jit.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kbench_bpf.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#ifdef KB_FP
#define KB_BUILD	"fp"
#else
#define KB_BUILD	"sframe"
#endif

#define KB_FN		__attribute__((noipa))
#define KB_MAX_DEPTH	512
#define KB_RING_PAGES	256
#define KB_THREAD_RING_PAGES	16
#define KB_PAGE		4096UL

static double kb_scale = 1.0;
static unsigned int kb_ring_pages = KB_RING_PAGES;
static const char *kb_self;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "kbench (%s): ", KB_BUILD);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long iters(unsigned long n)
{
	unsigned long v = (unsigned long)(n * kb_scale);

	return v ? v : 1;
}

/* The traced system call, made here and not in the C library. */
static inline __attribute__((always_inline)) long kb_getppid(void)
{
	long ret;

	asm volatile("syscall" : "=a" (ret) : "0" ((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}

/* ------------------------------------------------------------------ */
/* The perf event and its ring */

struct kb_perf {
	int fd;
	void *base;
	size_t len;
	struct perf_event_mmap_page *pc;
	char *data;
	uint64_t size;
};

static int kb_tp_id(void)
{
	static int id = -1;
	FILE *f;

	if (id >= 0)
		return id;
	f = fopen("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/events/syscalls/sys_enter_getppid/id", "r");
	if (!f || fscanf(f, "%d", &id) != 1)
		die("no tracepoint syscalls:sys_enter_getppid (tracefs, CONFIG_FTRACE_SYSCALLS)");
	fclose(f);
	return id;
}

static void kb_perf_open(struct kb_perf *p, bool cc)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = kb_tp_id();
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID;
	attr.disabled = 1;
	if (cc) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
		attr.defer_callchain = 1;
		attr.defer_output = 1;
	}
	p->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (p->fd < 0)
		die("perf_event_open(%s): %s", cc ? "deferred callchain" : "base",
		    strerror(errno));
	p->len = (1 + kb_ring_pages) * KB_PAGE;
	p->base = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       p->fd, 0);
	if (p->base == MAP_FAILED)
		die("mmap of the perf ring: %s", strerror(errno));
	p->pc = p->base;
	p->data = (char *)p->base + KB_PAGE;
	p->size = kb_ring_pages * KB_PAGE;
}

static void kb_perf_close(struct kb_perf *p)
{
	munmap(p->base, p->len);
	close(p->fd);
}

/* Drop whatever the ring holds. */
static inline __attribute__((always_inline)) void kb_drain(struct kb_perf *p)
{
	uint64_t head = __atomic_load_n(&p->pc->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&p->pc->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * The user stack of the last PERF_RECORD_CALLCHAIN_DEFERRED in the ring
 * (sample_id_all is 0: no trailer); its number of entries, or -1.
 */
static int kb_last_stack(struct kb_perf *p, uint64_t *ips, int max)
{
	uint64_t head = __atomic_load_n(&p->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = p->pc->data_tail;
	static uint64_t buf[65536 / 8];
	int found = -1;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % p->size, first;

		memcpy(&h, p->data + off, sizeof(h));	/* 8-byte aligned: no wrap */
		if (h.size < sizeof(h) || h.size > head - tail)
			die("bad perf record (type %u size %u)", h.type, h.size);
		first = p->size - off < h.size ? p->size - off : h.size;
		memcpy(buf, p->data + off, first);
		memcpy((char *)buf + first, p->data, h.size - first);
		if (h.type == PERF_RECORD_CALLCHAIN_DEFERRED) {
			uint64_t nr = buf[2];

			if (nr > (uint64_t)max || 3 + nr > h.size / 8U)
				die("deferred record of %llu entries", (unsigned long long)nr);
			memcpy(ips, &buf[3], nr * 8);
			found = nr;
		} else if (h.type == PERF_RECORD_LOST) {
			die("the ring lost records");
		}
		tail += h.size;
	}
	__atomic_store_n(&p->pc->data_tail, tail, __ATOMIC_RELEASE);
	return found;
}

/* Enable @on, disable @off: only the event measured samples. */
static void kb_enable(struct kb_perf *on, struct kb_perf *off)
{
	if (ioctl(off->fd, PERF_EVENT_IOC_DISABLE, 0) ||
	    ioctl(on->fd, PERF_EVENT_IOC_ENABLE, 0))
		die("PERF_EVENT_IOC_ENABLE/DISABLE: %s", strerror(errno));
}

/* ------------------------------------------------------------------ */
/* frames: per-frame cost, SFrame build against frame pointer build */

struct kb_run {
	struct kb_perf *perf;
	unsigned long n;
	bool uncached;		/* change the registry before each call */
	void *cold;		/* pages to zap before each call, or NULL */
	size_t cold_len;
	bool keep;		/* leave the records in the ring */
	uint64_t ns;
	long minflt;
};

static volatile unsigned long kb_ra[KB_MAX_DEPTH + 2];

static void kb_new_gen(void);

static long kb_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

KB_FN long kb_measure(struct kb_run *r)
{
	unsigned long i;
	uint64_t t0, t1;
	long sum = 0, f0;

	kb_ra[0] = (unsigned long)__builtin_return_address(0);
	f0 = kb_minflt();
	t0 = now_ns();
	for (i = 0; i < r->n; i++) {
		if (r->uncached)
			kb_new_gen();
		if (r->cold && madvise(r->cold, r->cold_len, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED): %s", strerror(errno));
		sum += kb_getppid();
		if (r->perf && !r->keep)
			kb_drain(r->perf);
	}
	t1 = now_ns();
	r->minflt = kb_minflt() - f0;
	r->ns = t1 - t0;
	return sum;
}

KB_FN long kb_rec(long n, struct kb_run *r)
{
	long ret;

	kb_ra[n] = (unsigned long)__builtin_return_address(0);
	if (n == 1)
		ret = kb_measure(r);
	else
		ret = kb_rec(n - 1, r);
	asm volatile("" : "+r" (ret) : : "memory");	/* no tail call */
	return ret + 1;
}

/* The range of the program's segment of type @type, page-aligned */
struct kb_phdr_find {
	uint32_t type;
	uintptr_t start, end;
};

static int kb_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct kb_phdr_find *f = data;
	int i;

	(void)size;
	/* The first object is the program. */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != f->type)
			continue;
		f->start = (info->dlpi_addr + ph->p_vaddr) & ~(KB_PAGE - 1);
		f->end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz +
			  KB_PAGE - 1) & ~(KB_PAGE - 1);
	}
	return 1;
}

static void kb_phdr_range(uint32_t type, void **start, size_t *len)
{
	struct kb_phdr_find f = { .type = type };

	dl_iterate_phdr(kb_phdr_cb, &f);
	if (!f.start)
		die("the program has no segment of type %#x", type);
	*start = (void *)f.start;
	*len = f.end - f.start;
}

/* The stack of the last call must be the chain the program called. */
static void kb_check_frames(struct kb_perf *p, int depth)
{
	static uint64_t ips[1024];
	int nr = kb_last_stack(p, ips, 1024), i;

	if (nr < depth + 2)
		die("depth %d: the kernel took %d frames, fewer than %d",
		    depth, nr, depth + 2);
	/* ips[0] is the system call's address in kb_measure() */
	for (i = 0; i <= depth; i++)
		if (ips[i + 1] != kb_ra[i])
			die("depth %d: frame %d is %#llx, the call's return address is %#lx",
			    depth, i + 1, (unsigned long long)ips[i + 1], kb_ra[i]);
}

static const char * const kb_temps[] = { "warm", "uncached", "cold" };

static void cmd_frames(int only)
{
	static const int depths[] = { 8, 32, 128, 500 };
	struct kb_perf base, cc;
	void *cold;
	size_t cold_len;
	unsigned int d, t, m;

	/*
	 * Cold: the pages of the section (the SFrame build) or of
	 * .eh_frame_hdr, which nothing reads (the frame pointer build, the
	 * same madvise() for nothing), zapped before every call: the walk
	 * takes a minor fault on each page of .sframe it reads.
	 */
#ifdef KB_FP
	kb_phdr_range(PT_GNU_EH_FRAME, &cold, &cold_len);
#else
	kb_phdr_range(PT_GNU_SFRAME, &cold, &cold_len);
#endif
	kb_perf_open(&base, false);
	kb_perf_open(&cc, true);
	fprintf(stderr, "cold: %p + %zu\n", cold, cold_len);

	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		int depth = depths[d];
		unsigned long n = iters(200000 / (depth + 16));

		if (only && depth != only)
			continue;
		for (t = 0; t < 3; t++) {
			for (m = 0; m < 2; m++) {
				struct kb_run r = {
					.perf = m ? &cc : &base,
					.n = n,
					.uncached = t > 0,
					.cold = t == 2 ? cold : NULL,
					.cold_len = cold_len,
				};

				kb_enable(r.perf, m ? &base : &cc);
				/* One call to check, one loop to time */
				r.n = 1;
				r.keep = true;
				kb_rec(depth, &r);
				if (m)
					kb_check_frames(&cc, depth);
				kb_drain(r.perf);
				r.n = n;
				r.keep = false;
				kb_rec(depth, &r);
				printf("KB frames %s %d %s %s %.1f\n", KB_BUILD,
				       depth, kb_temps[t],
				       m ? "cc" : "base", (double)r.ns / n);
				printf("KB minflt %s %d %s %s %.2f\n", KB_BUILD,
				       depth, kb_temps[t],
				       m ? "cc" : "base", (double)r.minflt / n);
			}
		}
	}
	kb_perf_close(&base);
	kb_perf_close(&cc);
}

/* ------------------------------------------------------------------ */
/* Synthetic code and SFrame sections for codectl() */

static long kb_codectl(unsigned int op, const void *arg, size_t size)
{
	return syscall(__NR_codectl, op, arg, size, 0);
}

static int kb_register(uintptr_t text, uintptr_t text_end, uintptr_t sf,
		       uintptr_t sf_end, uintptr_t sf_addr)
{
	struct codectl_sframe a = {
		.text_start = text, .text_end = text_end,
		.sframe_start = sf, .sframe_end = sf_end,
		.sframe_addr = sf_addr,
	};

	return kb_codectl(CODECTL_REGISTER_SFRAME, &a, sizeof(a)) ? -errno : 0;
}

static void kb_unregister(uintptr_t text)
{
	struct codectl_unregister a = { .text_start = text };

	if (kb_codectl(CODECTL_UNREGISTER, &a, sizeof(a)))
		die("codectl(CODECTL_UNREGISTER): %s", strerror(errno));
}

/*
 * The chain function, position-independent x86-64 code (rdi: depth):
 *
 *  0: push %rbx		 CFA = SP + 8 before, SP + 16 after
 *  1: dec %rdi
 *  4: je 0xd
 *  6: call <next copy>		 rel32 patched per copy
 *  b: pop %rbx			 CFA = SP + 8 from c
 *  c: ret
 *  d: mov $SYS_getppid, %eax	 CFA = SP + 16 again
 * 12: syscall
 * 14: pop %rbx			 CFA = SP + 8 from 15
 * 15: ret
 */
static const uint8_t kb_chain_code[] = {
	0x53, 0x48, 0xff, 0xcf, 0x74, 0x07, 0xe8, 0, 0, 0, 0, 0x5b, 0xc3,
	0xb8, SYS_getppid, 0, 0, 0, 0x0f, 0x05, 0x5b, 0xc3,
};
#define KB_CHAIN_CALL	6	/* the call instruction */
#define KB_CHAIN_RA	0xb	/* the return address of the call */
#define KB_CHAIN_SIZE	sizeof(kb_chain_code)
/* Its FREs: start, info (CFA = SP + word, one 1-byte word), word */
static const uint8_t kb_chain_fres[] = {
	0x00, 0x03, 8, 0x01, 0x03, 16, 0x0c, 0x03, 8,
	0x0d, 0x03, 16, 0x15, 0x03, 8,
};
#define KB_CHAIN_NFRES	5
/* A filler function: CFA = SP + 8 throughout */
static const uint8_t kb_filler_fre[] = { 0x00, 0x03, 8 };

struct kb_sfhdr {
	uint16_t magic;
	uint8_t version, flags, abi, fixed_fp, fixed_ra, auxhdr_len;
	uint32_t num_fdes, num_fres, fre_len, fdes_off, fres_off;
} __attribute__((packed));

struct kb_fde {
	int32_t start;
	uint32_t size, fres_off, num_fres;
	uint8_t info, rep_size;
	uint16_t pad;
} __attribute__((packed));

/*
 * A text of @nfdes functions, @ncopies of which (spread over it) are
 * copies of the chain function calling each other in a ring, the others
 * fillers of 16 to 1024 bytes, never run; and its SFrame V2 section in a
 * memfd, mapped read-only and private, its offsets relative to the text.
 */
struct kb_code {
	uint8_t *text;
	size_t text_len;
	uint8_t *sf;
	size_t sf_len;
	long (*entry)(long depth);
	uintptr_t ra_in_chain[64];	/* return address of each copy's call */
	unsigned int ncopies;
};

static uint32_t kb_rand_state = 12345;

static uint32_t kb_rand(void)
{
	kb_rand_state = kb_rand_state * 1103515245 + 12345;
	return kb_rand_state >> 8;
}

static void kb_code_make(struct kb_code *c, uint32_t nfdes, unsigned int ncopies)
{
	uint32_t *sizes, i, k, *copy_at;
	size_t text = 0, fre_len, off;
	struct kb_sfhdr h = { 0 };
	uint8_t *buf;
	struct kb_fde *fde;
	int fd;

	memset(c, 0, sizeof(*c));
	if (ncopies > 64 || ncopies > nfdes)
		die("bad chain");
	c->ncopies = ncopies;
	sizes = calloc(nfdes, sizeof(*sizes));
	copy_at = calloc(ncopies, sizeof(*copy_at));
	kb_rand_state = 12345;
	for (i = 0; i < nfdes; i++)
		sizes[i] = 16U << (kb_rand() % 7);
	/* The copies: one in each 1/ncopies of the functions */
	for (k = 0; k < ncopies; k++) {
		uint32_t span = nfdes / ncopies;

		copy_at[k] = k * span + kb_rand() % span;
		if (sizes[copy_at[k]] < 32)
			sizes[copy_at[k]] = 32;
	}
	for (i = 0; i < nfdes; i++)
		text += sizes[i];
	c->text_len = (text + KB_PAGE - 1) & ~(KB_PAGE - 1);
	c->text = mmap(NULL, c->text_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c->text == MAP_FAILED)
		die("mmap of %zu bytes of text: %s", c->text_len, strerror(errno));

	fre_len = (size_t)(nfdes - ncopies) * sizeof(kb_filler_fre) +
		  (size_t)ncopies * sizeof(kb_chain_fres);
	c->sf_len = sizeof(h) + (size_t)nfdes * sizeof(*fde) + fre_len;
	buf = calloc(1, c->sf_len);
	h.magic = 0xdee2;
	h.version = 2;
	h.flags = 1;		/* FDEs sorted; offsets from sframe_addr */
	h.abi = 3;		/* AMD64 little-endian */
	h.fixed_ra = (uint8_t)-8;
	h.num_fdes = nfdes;
	h.num_fres = (nfdes - ncopies) + ncopies * KB_CHAIN_NFRES;
	h.fre_len = fre_len;
	h.fdes_off = 0;
	h.fres_off = nfdes * sizeof(*fde);
	memcpy(buf, &h, sizeof(h));
	fde = (struct kb_fde *)(buf + sizeof(h));

	text = 0;
	off = 0;
	for (i = 0, k = 0; i < nfdes; i++) {
		bool chain = k < ncopies && copy_at[k] == i;
		uint8_t *fres = buf + sizeof(h) + h.fres_off + off;

		fde[i].start = text;
		fde[i].fres_off = off;
		fde[i].info = 0;	/* FRE starts of 1 byte */
		if (chain) {
			fde[i].size = KB_CHAIN_SIZE;
			fde[i].num_fres = KB_CHAIN_NFRES;
			memcpy(fres, kb_chain_fres, sizeof(kb_chain_fres));
			off += sizeof(kb_chain_fres);
			memcpy(c->text + text, kb_chain_code, KB_CHAIN_SIZE);
			copy_at[k++] = text;	/* now its offset */
		} else {
			fde[i].size = sizes[i];
			fde[i].num_fres = 1;
			memcpy(fres, kb_filler_fre, sizeof(kb_filler_fre));
			off += sizeof(kb_filler_fre);
		}
		text += sizes[i];
	}
	/* Copy k calls copy k + 1, the last the first. */
	for (k = 0; k < ncopies; k++) {
		uint32_t from = copy_at[k] + KB_CHAIN_RA;
		int32_t rel = (int32_t)copy_at[(k + 1) % ncopies] - (int32_t)from;

		memcpy(c->text + copy_at[k] + KB_CHAIN_CALL + 1, &rel, 4);
		c->ra_in_chain[k] = (uintptr_t)c->text + from;
	}
	if (mprotect(c->text, c->text_len, PROT_READ | PROT_EXEC))
		die("mprotect of the text: %s", strerror(errno));
	c->entry = (long (*)(long))(void *)(c->text + copy_at[0]);

	fd = memfd_create("kbench-sframe", MFD_CLOEXEC);
	if (fd < 0 || write(fd, buf, c->sf_len) != (ssize_t)c->sf_len)
		die("memfd of the section: %s", strerror(errno));
	c->sf = mmap(NULL, c->sf_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (c->sf == MAP_FAILED)
		die("mmap of the section: %s", strerror(errno));
	close(fd);
	free(buf);
	free(sizes);
	free(copy_at);
}

static void kb_code_free(struct kb_code *c)
{
	munmap(c->text, c->text_len);
	munmap(c->sf, c->sf_len);
}

static void kb_code_register(struct kb_code *c)
{
	int ret = kb_register((uintptr_t)c->text, (uintptr_t)c->text + c->text_len,
			      (uintptr_t)c->sf, (uintptr_t)c->sf + c->sf_len,
			      (uintptr_t)c->text);

	if (ret)
		die("codectl(REGISTER) of the chain's text: %s", strerror(-ret));
}

/*
 * Dummy registrations: pairs of pages, a text page and a page holding a
 * one-function section that describes it, mapped R+X together.
 */
struct kb_dummies {
	uint8_t *map;
	unsigned int n, registered;
};

static void kb_dummies_make(struct kb_dummies *d, unsigned int n)
{
	struct kb_sfhdr h = { 0 };
	struct kb_fde fde = { 0 };
	unsigned int i;

	d->n = n;
	d->registered = 0;
	d->map = mmap(NULL, 2 * KB_PAGE * (n ? n : 1), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->map == MAP_FAILED)
		die("mmap of the dummies: %s", strerror(errno));
	h.magic = 0xdee2;
	h.version = 2;
	h.flags = 1;
	h.abi = 3;
	h.fixed_ra = (uint8_t)-8;
	h.num_fdes = 1;
	h.num_fres = 1;
	h.fre_len = sizeof(kb_filler_fre);
	h.fres_off = sizeof(fde);
	/* The function: the first 16 bytes of the text page before */
	fde.start = -(int32_t)KB_PAGE;
	fde.size = 16;
	fde.num_fres = 1;
	for (i = 0; i < n; i++) {
		uint8_t *sf = d->map + (2 * i + 1) * KB_PAGE;

		memcpy(sf, &h, sizeof(h));
		memcpy(sf + sizeof(h), &fde, sizeof(fde));
		memcpy(sf + sizeof(h) + sizeof(fde), kb_filler_fre,
		       sizeof(kb_filler_fre));
		d->map[2 * i * KB_PAGE] = 0xc3;	/* ret */
	}
	if (mprotect(d->map, 2 * KB_PAGE * (n ? n : 1), PROT_READ | PROT_EXEC))
		die("mprotect of the dummies: %s", strerror(errno));
}

static size_t kb_dummy_sf_len(void)
{
	return sizeof(struct kb_sfhdr) + sizeof(struct kb_fde) +
	       sizeof(kb_filler_fre);
}

static int kb_dummy_register(struct kb_dummies *d, unsigned int i)
{
	uintptr_t text = (uintptr_t)d->map + 2 * i * KB_PAGE;

	return kb_register(text, text + KB_PAGE, text + KB_PAGE,
			   text + KB_PAGE + kb_dummy_sf_len(), 0);
}

static void kb_dummies_register(struct kb_dummies *d, unsigned int upto)
{
	int ret;

	while (d->registered < upto) {
		ret = kb_dummy_register(d, d->registered);
		if (ret)
			die("codectl(REGISTER) of dummy %u: %s", d->registered,
			    strerror(-ret));
		d->registered++;
	}
}

static void kb_dummies_unregister(struct kb_dummies *d)
{
	while (d->registered)
		kb_unregister((uintptr_t)d->map + 2 * --d->registered * KB_PAGE);
}

static void kb_dummies_free(struct kb_dummies *d)
{
	kb_dummies_unregister(d);
	munmap(d->map, 2 * KB_PAGE * (d->n ? d->n : 1));
}

/* Dummies registered for a table, or NULL: kb_new_gen() uses their last */
static struct kb_dummies *kb_table_dummies;

/*
 * A registration and a removal of a dummy: the registry's generation
 * changes, and with it every SFrame rule the cache holds.  The
 * same in the calls with and without a stack, so it is not in their
 * difference.  With dummies registered for a table (up to the limit of
 * 1024), the last one is removed and registered again instead.
 */
static void kb_new_gen(void)
{
	static struct kb_dummies bumper;
	struct kb_dummies *d = kb_table_dummies;
	int ret;

	if (d && d->registered) {
		kb_unregister((uintptr_t)d->map + 2 * (d->registered - 1) * KB_PAGE);
		ret = kb_dummy_register(d, d->registered - 1);
	} else {
		if (!bumper.map)
			kb_dummies_make(&bumper, 1);
		ret = kb_dummy_register(&bumper, 0);
		if (!ret)
			kb_unregister((uintptr_t)bumper.map);
	}
	if (ret)
		die("codectl(REGISTER) of a dummy: %s", strerror(-ret));
}

/* The chain's stack: depth frames in the copies, in ring order. */
static void kb_check_chain(struct kb_perf *p, struct kb_code *c, int depth)
{
	static uint64_t ips[1024];
	int nr = kb_last_stack(p, ips, 1024), i;

	if (nr < depth + 1)
		die("chain of %d: the kernel took %d frames", depth, nr);
	/* ips[0]: the system call in the innermost copy; then the calls */
	for (i = 1; i < depth; i++) {
		unsigned int k = (depth - 1 - i) % c->ncopies;

		if (ips[i] != c->ra_in_chain[k])
			die("chain of %d: frame %d is %#llx, not %#lx", depth, i,
			    (unsigned long long)ips[i], (unsigned long)c->ra_in_chain[k]);
	}
}

/* Let the cache keep the chain's rules from one call to the next */
static bool kb_chain_warm;

/* ns per call of the chain at @depth, base or cc */
static double kb_chain_time(struct kb_code *c, struct kb_perf *p, int depth,
			    unsigned long n)
{
	unsigned long i;
	uint64_t t0;
	long sum = 0;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (!kb_chain_warm)
			kb_new_gen();	/* the search, not the cache */
		sum += c->entry(depth);
		kb_drain(p);
	}
	asm volatile("" : : "r" (sum));
	return (double)(now_ns() - t0) / n;
}

static double kb_chain_one(struct kb_code *c, struct kb_perf *on,
			   struct kb_perf *off, int depth, unsigned long n)
{
	kb_enable(on, off);
	return kb_chain_time(c, on, depth, n);
}

static void kb_chain_table(const char *what, unsigned long key,
			   struct kb_code *c, struct kb_perf *base,
			   struct kb_perf *cc)
{
	static const int depths[] = { 16, 64 };
	unsigned int d;

	for (d = 0; d < 2; d++) {
		int depth = depths[d];
		unsigned long n = iters(100000 / (depth + 16));

		kb_enable(cc, base);
		c->entry(depth);
		kb_check_chain(cc, c, depth);
		printf("KB %s %lu %d base %.1f\n", what, key, depth,
		       kb_chain_one(c, base, cc, depth, n));
		printf("KB %s %lu %d cc %.1f\n", what, key, depth,
		       kb_chain_one(c, cc, base, depth, n));
	}
}

static void cmd_growth(void)
{
	static const unsigned int regs[] = { 1, 16, 256, 1024 };
	static const uint32_t fdes[] = { 100, 1000, 10000, 100000, 1000000 };
	struct kb_perf base, cc;
	struct kb_dummies d;
	struct kb_code c;
	unsigned int i;

	kb_perf_open(&base, false);
	kb_perf_open(&cc, true);

	/* Search depth: one registration, the chain's, of 10^2..10^6 FDEs */
	for (i = 0; i < sizeof(fdes) / sizeof(fdes[0]); i++) {
		kb_code_make(&c, fdes[i], 64);
		kb_code_register(&c);
		kb_chain_table("fdes", fdes[i], &c, &base, &cc);
		kb_unregister((uintptr_t)c.text);
		kb_code_free(&c);
	}

	/* Registry: the chain's section (10^3 FDEs) among 0..1023 others */
	kb_code_make(&c, 1000, 64);
	kb_code_register(&c);
	/* Its 64 return addresses through the cache, for comparison */
	kb_chain_warm = true;
	kb_chain_table("warm", 1000, &c, &base, &cc);
	kb_chain_warm = false;
	kb_dummies_make(&d, 1023);
	kb_table_dummies = &d;
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		kb_dummies_register(&d, regs[i] - 1);
		kb_chain_table("regs", regs[i], &c, &base, &cc);
	}
	kb_table_dummies = NULL;
	kb_dummies_free(&d);
	kb_unregister((uintptr_t)c.text);
	kb_code_free(&c);
	kb_perf_close(&base);
	kb_perf_close(&cc);
}

/*
 * threads: T threads take turns, strictly: thread i waits for its word in
 * kb_turn[] to be set, makes one call of the chain with its own perf event
 * (the deferred callchain, or the base event), and sets the word of thread
 * i + 1.  The hand-off is in the calls with and without a stack alike.
 * Two clocks: the first round, each thread's first call (its first walk:
 * what a new thread costs), and the rounds after it, from the first turn
 * of the second round to the last turn (the steady state).  Thread
 * creation and the opening of the events are in neither.
 */
#define KB_MAX_THREADS	64

struct kb_threads {
	struct kb_code *code;
	unsigned int nthreads;
	unsigned long rounds;
	bool cc;
	int ready;
	uint32_t turn[KB_MAX_THREADS];
	pthread_t tid[KB_MAX_THREADS];
	uint64_t t0, t1, t2;
};

static void kb_futex_wait(uint32_t *word)
{
	while (!__atomic_load_n(word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void kb_futex_set(uint32_t *word)
{
	__atomic_store_n(word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

struct kb_thread_arg {
	struct kb_threads *t;
	unsigned int i;
};

static void *kb_thread(void *p)
{
	struct kb_thread_arg *a = p;
	struct kb_threads *t = a->t;
	unsigned int i = a->i, next = (i + 1) % t->nthreads;
	struct kb_perf base, cc, *on;
	unsigned long r;
	long sum = 0;

	kb_perf_open(&base, false);
	kb_perf_open(&cc, true);
	on = t->cc ? &cc : &base;
	kb_enable(on, t->cc ? &base : &cc);
	__atomic_add_fetch(&t->ready, 1, __ATOMIC_RELEASE);
	for (r = 0; r < t->rounds; r++) {
		kb_futex_wait(&t->turn[i]);
		t->turn[i] = 0;
		if (i == 0 && r < 2)
			*(r ? &t->t1 : &t->t0) = now_ns();
		sum += t->code->entry(64);
		/* Each thread's first stack is checked, its others dropped */
		if (t->cc && r == 0)
			kb_check_chain(&cc, t->code, 64);
		kb_drain(on);
		if (i == t->nthreads - 1 && r == t->rounds - 1)
			t->t2 = now_ns();
		else
			kb_futex_set(&t->turn[next]);
	}
	asm volatile("" : : "r" (sum));
	kb_perf_close(&base);
	kb_perf_close(&cc);
	return NULL;
}

/*
 * @nthreads threads taking turns @rounds times: ns per call in the first
 * round (*@first) and in the others (the return value)
 */
static double kb_threads_run(struct kb_code *c, unsigned int nthreads,
			     unsigned long rounds, bool cc, double *first)
{
	static struct kb_thread_arg args[KB_MAX_THREADS];
	static struct kb_threads t;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	t.code = c;
	t.nthreads = nthreads;
	t.rounds = rounds;
	t.cc = cc;
	for (i = 0; i < nthreads; i++) {
		args[i].t = &t;
		args[i].i = i;
		if (pthread_create(&t.tid[i], NULL, kb_thread, &args[i]))
			die("pthread_create: %s", strerror(errno));
	}
	while (__atomic_load_n(&t.ready, __ATOMIC_ACQUIRE) < (int)nthreads)
		usleep(1000);
	kb_futex_set(&t.turn[0]);
	for (i = 0; i < nthreads; i++)
		pthread_join(t.tid[i], NULL);
	*first = (double)(t.t1 - t.t0) / nthreads;
	return (double)(t.t2 - t.t1) / ((double)(rounds - 1) * nthreads);
}

static void cmd_threads(void)
{
	static const unsigned int counts[] = { 1, KB_MAX_THREADS };
	struct kb_code c;
	unsigned int i, m;

	kb_ring_pages = KB_THREAD_RING_PAGES;
	kb_code_make(&c, 1000, 64);
	kb_code_register(&c);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		unsigned long rounds = 1 + iters(3200 / counts[i]);
		double steady, first;

		for (m = 0; m < 2; m++) {
			steady = kb_threads_run(&c, counts[i], rounds, m, &first);
			printf("KB threads %u %s %.1f\n", counts[i],
			       m ? "cc" : "base", steady);
			printf("KB threads-first %u %s %.1f\n", counts[i],
			       m ? "cc" : "base", first);
		}
	}
	kb_unregister((uintptr_t)c.text);
	kb_code_free(&c);
}

/* ------------------------------------------------------------------ */
/* codectl: registration against mmap + munmap; the unmap hooks */

static int kb_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n samples */
static double kb_median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), kb_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#define KB_OPS	2000
static uint64_t kb_samples[KB_OPS];

static void kb_hooks(unsigned int nregs)
{
	unsigned int i, n = iters(KB_OPS) > KB_OPS ? KB_OPS : iters(KB_OPS);
	uint64_t t0;
	void *p, *q;

	/* munmap of an unrelated page */
	for (i = 0; i < n; i++) {
		p = mmap(NULL, KB_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*(volatile char *)p = 1;
		t0 = now_ns();
		munmap(p, KB_PAGE);
		kb_samples[i] = now_ns() - t0;
	}
	printf("KB hooks munmap %u %.1f\n", nregs, kb_median(kb_samples, n));

	/* mremap of an unrelated page onto another */
	for (i = 0; i < n; i++) {
		p = mmap(NULL, KB_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		q = mmap(NULL, KB_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*(volatile char *)p = 1;
		t0 = now_ns();
		q = mremap(p, KB_PAGE, KB_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, q);
		kb_samples[i] = now_ns() - t0;
		if (q == MAP_FAILED)
			die("mremap: %s", strerror(errno));
		munmap(q, KB_PAGE);
	}
	printf("KB hooks mremap %u %.1f\n", nregs, kb_median(kb_samples, n));

	/* mprotect of an unrelated page (no hook: the control) */
	p = mmap(NULL, 2 * KB_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		mprotect(p, KB_PAGE, i % 2 ? PROT_READ | PROT_WRITE : PROT_READ);
		kb_samples[i] = now_ns() - t0;
	}
	munmap(p, 2 * KB_PAGE);
	printf("KB hooks mprotect %u %.1f\n", nregs, kb_median(kb_samples, n));
}

/* The median time of @n munmap() of an unrelated page, in ns */
static double kb_munmap_time(unsigned int n)
{
	unsigned int i;
	uint64_t t0;
	void *p;

	for (i = 0; i < n; i++) {
		p = mmap(NULL, KB_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		*(volatile char *)p = 1;
		t0 = now_ns();
		munmap(p, KB_PAGE);
		kb_samples[i] = now_ns() - t0;
	}
	return kb_median(kb_samples, n);
}

/*
 * A sidecar: the last dummy's section, copied 1 TiB below its text and
 * registered there for it (sframe_addr where it lies in the "object").
 * While it is registered, the unmap hooks must look at every
 * registration within that distance of an unmapped range: all of them.
 * An unrelated munmap() with 1024 registrations: 1024 dummies ("near"),
 * 1023 and the far sidecar ("far"), then 1024 dummies again once the
 * sidecar is gone ("gone"), which must cost what "near" does.
 */
static void kb_far(struct kb_dummies *d)
{
	unsigned int n = iters(KB_OPS) > KB_OPS ? KB_OPS : iters(KB_OPS);
	uintptr_t text = (uintptr_t)d->map + 2 * 1023 * KB_PAGE;
	uint8_t *far;
	int ret;

	kb_dummies_register(d, 1024);
	printf("KB far munmap near %.1f\n", kb_munmap_time(n));
	kb_unregister(text);
	d->registered = 1023;
	far = mmap((void *)(text - (1UL << 40)), KB_PAGE,
		   PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (far == MAP_FAILED)
		die("mmap of the far sidecar: %s", strerror(errno));
	memcpy(far, (void *)(text + KB_PAGE), kb_dummy_sf_len());
	mprotect(far, KB_PAGE, PROT_READ);
	ret = kb_register(text, text + KB_PAGE, (uintptr_t)far,
			  (uintptr_t)far + kb_dummy_sf_len(), text + KB_PAGE);
	if (ret)
		die("codectl(REGISTER) of the far sidecar: %s", strerror(-ret));
	printf("KB far munmap far %.1f\n", kb_munmap_time(n));
	kb_unregister(text);
	munmap(far, KB_PAGE);
	kb_dummies_register(d, 1024);
	printf("KB far munmap gone %.1f\n", kb_munmap_time(n));
	kb_dummies_unregister(d);
}

/* far alone: the last table of codectl */
static void cmd_far(void)
{
	struct kb_dummies many;

	kb_dummies_make(&many, 1024);
	kb_far(&many);
	kb_dummies_free(&many);
}

/*
 * What describing a JIT function costs: its three rules (the rows of the
 * x86-64 chain function: before, inside and after its push) appended to a
 * CODECTL_REGISTER_JIT table, then retired, against a codectl() register
 * and unregister of an SFrame section of its own (the figure above).  ns
 * per function, median over batches of KB_JIT_BATCH functions (one append
 * is below the clock's resolution).
 */
#define KB_JIT_FNS	(1u << 16)
#define KB_JIT_BATCH	512u
#define KB_JIT_FN_SIZE	32u
#define KB_JIT_ROWS	3u

_Static_assert(sizeof(struct codectl_jit_entry) + 1 <= CODECTL_JIT_ENTRY_MIN,
	       "an entry with one 1-byte word fits the smallest entry size");

static void kb_jit_rows(struct codectl_jit_table *t, unsigned int fn)
{
	static const unsigned char cfa[KB_JIT_ROWS] = { 8, 16, 8 };
	static const unsigned int start[KB_JIT_ROWS + 1] = { 0, 1, 13, 14 };
	const unsigned char info = CODECTL_JIT_INFO(CODECTL_JIT_CFA_SP, 1,
						    CODECTL_JIT_WORD_1B);
	unsigned int i;

	for (i = 0; i < KB_JIT_ROWS; i++)
		if (codectl_jit_append(t, fn * KB_JIT_FN_SIZE + start[i],
				       start[i + 1] - start[i], info,
				       CODECTL_JIT_TYPE_DEFAULT, &cfa[i], 1) < 0)
			die("codectl_jit_append() of function %u failed", fn);
}

static void kb_jit(void)
{
	const unsigned int entry = CODECTL_JIT_ENTRY_MIN;
	const unsigned int batches = KB_JIT_FNS / KB_JIT_BATCH;
	size_t tbytes = codectl_jit_table_bytes(entry, KB_JIT_FNS * KB_JIT_ROWS);
	size_t cbytes = (size_t)KB_JIT_FNS * KB_JIT_FN_SIZE;
	struct codectl_jit_table *t;
	struct codectl_jit a;
	unsigned int b, f;
	uint64_t t0;
	void *code;

	code = mmap(NULL, cbytes, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t = mmap(NULL, tbytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (code == MAP_FAILED || t == MAP_FAILED)
		die("mmap of a JIT area: %s", strerror(errno));
	codectl_jit_table_init(t, entry, KB_JIT_FNS * KB_JIT_ROWS);
	a = (struct codectl_jit){
		.text_start = (uintptr_t)code,
		.text_end = (uintptr_t)code + cbytes,
		.table = (uintptr_t)t, .table_size = tbytes,
	};
	if (kb_codectl(CODECTL_REGISTER_JIT, &a, sizeof(a)))
		die("codectl(CODECTL_REGISTER_JIT): %s", strerror(errno));

	for (b = 0; b < batches; b++) {
		t0 = now_ns();
		for (f = b * KB_JIT_BATCH; f < (b + 1) * KB_JIT_BATCH; f++)
			kb_jit_rows(t, f);
		kb_samples[b] = now_ns() - t0;
	}
	if (t->used != KB_JIT_FNS * KB_JIT_ROWS)
		die("the JIT table has %llu entries, not %u",
		    (unsigned long long)t->used, KB_JIT_FNS * KB_JIT_ROWS);
	printf("KB codectl jit-append %u %.1f\n", KB_JIT_FNS,
	       kb_median(kb_samples, batches) / KB_JIT_BATCH);

	for (b = 0; b < batches; b++) {
		t0 = now_ns();
		for (f = b * KB_JIT_BATCH * KB_JIT_ROWS;
		     f < (b + 1) * KB_JIT_BATCH * KB_JIT_ROWS; f++)
			codectl_jit_retire(t, f);
		kb_samples[b] = now_ns() - t0;
	}
	printf("KB codectl jit-retire %u %.1f\n", KB_JIT_FNS,
	       kb_median(kb_samples, batches) / KB_JIT_BATCH);

	kb_unregister((uintptr_t)code);
	munmap(t, tbytes);
	munmap(code, cbytes);
}

static void cmd_codectl(void)
{
	static const unsigned int regs[] = { 0, 1, 1024 };
	unsigned int i, r, n = iters(KB_OPS) > KB_OPS ? KB_OPS : iters(KB_OPS);
	struct kb_dummies one, many;
	uint64_t t0;
	int ret;

	/* A section of one page against a mapping of one page */
	kb_dummies_make(&one, 1);
	kb_dummies_make(&many, 1024);
	for (r = 0; r < 2; r++) {
		if (r)
			kb_dummies_register(&many, 1023);
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			ret = kb_dummy_register(&one, 0);
			kb_unregister((uintptr_t)one.map);
			kb_samples[i] = now_ns() - t0;
			if (ret)
				die("codectl(REGISTER): %s", strerror(-ret));
		}
		printf("KB codectl register+unregister %u %.1f\n", r ? 1023 : 0,
		       kb_median(kb_samples, n));
		for (i = 0; i < n; i++) {
			void *p;

			t0 = now_ns();
			p = mmap(NULL, KB_PAGE, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			munmap(p, KB_PAGE);
			kb_samples[i] = now_ns() - t0;
		}
		printf("KB codectl mmap+munmap %u %.1f\n", r ? 1023 : 0,
		       kb_median(kb_samples, n));
		kb_dummies_unregister(&many);
	}
	kb_jit();

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		kb_dummies_register(&many, regs[i]);
		kb_hooks(regs[i]);
		kb_dummies_unregister(&many);
	}
	kb_far(&many);
	kb_dummies_free(&one);
	kb_dummies_free(&many);
}

/* ------------------------------------------------------------------ */
/* fork and exec */

static void cmd_fork(void)
{
	static const unsigned int regs[] = { 0, 1024 };
	unsigned int i, r, n = iters(200);
	struct kb_dummies many;
	uint64_t t0;
	pid_t pid;
	int st;

	if (n > KB_OPS)
		n = KB_OPS;
	kb_dummies_make(&many, 1024);
	for (r = 0; r < 2; r++) {
		kb_dummies_register(&many, regs[r]);
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			pid = fork();
			if (!pid)
				_exit(0);
			if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
				die("fork: %s", strerror(errno));
			kb_samples[i] = now_ns() - t0;
		}
		printf("KB fork fork %u %.1f\n", regs[r], kb_median(kb_samples, n));
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			pid = fork();
			if (!pid) {
				execl(kb_self, kb_self, "noop", (char *)NULL);
				_exit(127);
			}
			if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
				die("fork + exec of %s failed (%d)", kb_self, st);
			kb_samples[i] = now_ns() - t0;
		}
		printf("KB fork fork+exec %u %.1f\n", regs[r], kb_median(kb_samples, n));
		kb_dummies_unregister(&many);
	}
	kb_dummies_free(&many);
}

/*
 * Remove the registrations the kernel made (the vDSO's), so that the
 * counts of the tables are the program's own, up to the limit of 1024.
 */
static void kb_drop_kernel_regs(void)
{
	FILE *f = fopen("/proc/self/sframe", "r");
	unsigned long text[8];
	unsigned int n = 0;
	char line[512];

	if (!f)
		die("/proc/self/sframe: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (n < 8 && sscanf(line, "%lx-", &text[n]) == 1)
			n++;
	fclose(f);
	while (n)
		kb_unregister(text[--n]);
}

/* Build the chain's code and section, run it, write the section to @path */
static void cmd_dump_code(uint32_t nfdes, const char *path)
{
	struct kb_code c;
	FILE *f;

	kb_code_make(&c, nfdes, 32);
	if (c.entry(100) != getppid())
		die("the chain's code does not return getppid()");
	f = fopen(path, "w");
	if (!f || fwrite(c.sf, 1, c.sf_len, f) != c.sf_len || fclose(f))
		die("%s: %s", path, strerror(errno));
	printf("text %p, %zu bytes; section %zu bytes\n", (void *)c.text,
	       c.text_len, c.sf_len);
	kb_code_free(&c);
}

/*
 * plain: fork() and exit, and fork() + execve() of a program with no
 * SFrame (this one, "noop", in the frame pointer build), waited for, in a
 * process left as exec made it: on the series' kernel the vDSO's section
 * is its one registration.  No codectl(), so that it runs on the pristine
 * kernel too, which make bench-kernel compares (KBENCH_PRISTINE).
 *
 * For figures in guest instructions (QEMU -icount) that repeat to 0.1%:
 * no address space randomisation, so that each run and each kernel copies
 * the same page tables and VMA tree; one CPU, the child running while the
 * parent waits (an idle CPU's time is a jump to its next timer, not work);
 * and the forks timed in a loop of their own.  Timed in turns with the
 * exec loop, a fork's cost moved by up to 6% either way with the guest's
 * memory size, on either kernel; an exec loop of its own took exactly 3
 * ticks each time, on either kernel (a wait for a timer): so each fork +
 * exec is timed after a fork that is not.
 */
static void cmd_plain(void)
{
	static uint64_t fk[KB_OPS], ex[KB_OPS];
	unsigned int i, k, n = iters(400);
	cpu_set_t cpu;
	uint64_t t0;
	pid_t pid;
	int st;

	if (n > KB_OPS)
		n = KB_OPS;
	st = personality(0xffffffff);
	if (st >= 0 && !(st & ADDR_NO_RANDOMIZE)) {
		if (personality(st | ADDR_NO_RANDOMIZE) < 0)
			die("personality: %s", strerror(errno));
		execl(kb_self, kb_self, "plain", (char *)NULL);
		die("exec of %s: %s", kb_self, strerror(errno));
	}
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (sched_setaffinity(0, sizeof(cpu), &cpu))
		die("sched_setaffinity: %s", strerror(errno));
	/* k: 0 fork, timed; 1 fork, not timed; 2 fork + exec, timed */
	for (i = 0; i < 3 * n; i++) {
		k = i < n ? 0 : 1 + (i - n) % 2;
		t0 = now_ns();
		pid = fork();
		if (!pid) {
			if (k == 2)
				execl(kb_self, kb_self, "noop", (char *)NULL);
			_exit(k == 2 ? 127 : 0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
			die("fork%s: %s (%d)", k == 2 ? " + exec" : "",
			    strerror(errno), st);
		if (k == 0)
			fk[i] = now_ns() - t0;
		else if (k == 2)
			ex[(i - n) / 2] = now_ns() - t0;
	}
	printf("KB plain fork %.1f\n", kb_median(fk, n));
	printf("KB plain fork+exec %.1f\n", kb_median(ex, n));
}

/* ------------------------------------------------------------------ */
/* bpf: a user stack in a BPF program */

/*
 * The return addresses of the stack in @s (bpf_get_stack()'s or the
 * deferred walk's: the system call's address first) must be the chain.
 */
static void kb_check_bpf_stack(const struct kb_bpf_stack *s, int depth,
			       const char *what)
{
	int nr = s->len < 0 ? -1 : (int)(s->len / 8), i;

	if (nr < depth + 2)
		die("bpf %s, depth %d: %d frames (%lld), fewer than %d", what,
		    depth, nr, (long long)s->len, depth + 2);
	for (i = 0; i <= depth; i++)
		if (s->ips[i + 1] != kb_ra[i])
			die("bpf %s, depth %d: frame %d is %#llx, the call's return address is %#lx",
			    what, depth, i + 1, (unsigned long long)s->ips[i + 1],
			    kb_ra[i]);
}

/*
 * @prog on a perf event of this thread on the tracepoint, enabled.  One
 * at a time: the programs of a tracepoint's perf events are the
 * tracepoint's, and each runs whichever of its events fires.
 */
static struct bpf_link *kb_bpf_attach(struct bpf_program *prog, int *fd)
{
	struct perf_event_attr attr;
	struct bpf_link *link;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = kb_tp_id();
	attr.sample_period = 1;
	*fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (*fd < 0)
		die("perf_event_open: %s", strerror(errno));
	link = bpf_program__attach_perf_event(prog, *fd);
	if (!link)
		die("attach of %s: %s", bpf_program__name(prog), strerror(errno));
	return link;
}

/* What kb_stacks holds at @key after one call at @depth */
static void kb_bpf_check(struct bpf_map *map, __u32 key, int depth,
			 bool uncached, const char *what)
{
	static struct kb_bpf_stack stack;
	struct kb_run r = { .n = 1, .uncached = uncached };

	memset(&stack, 0, sizeof(stack));
	stack.len = -ENODATA;
	if (bpf_map__update_elem(map, &key, sizeof(key), &stack, sizeof(stack), 0))
		die("update of kb_stacks: %s", strerror(errno));
	kb_rec(depth, &r);
	if (bpf_map__lookup_elem(map, &key, sizeof(key), &stack, sizeof(stack), 0))
		die("lookup in kb_stacks: %s", strerror(errno));
	if (stack.ret)
		die("bpf_unwind_user_request(): %lld", (long long)stack.ret);
	kb_check_bpf_stack(&stack, depth, what);
}

static void cmd_bpf(const char *obj_path, int only)
{
	static const int depths[] = { 8, 32, 128, 500 };
	static const char * const modes[] = { "none", "walk", "request" };
	struct bpf_program *progs[3], *deliver;
	struct bpf_link *link, *dlink;
	struct bpf_object *obj;
	struct bpf_map *map;
	unsigned int d, t, m;
	int fd;

	obj = bpf_object__open_file(obj_path, NULL);
	if (!obj || bpf_object__load(obj))
		die("loading %s: %s", obj_path, strerror(errno));
	map = bpf_object__find_map_by_name(obj, "kb_stacks");
	deliver = bpf_object__find_program_by_name(obj, "kb_deliver");
	if (!map || !deliver)
		die("%s has no map kb_stacks or program kb_deliver", obj_path);
	for (m = 0; m < 3; m++) {
		char name[32];

		snprintf(name, sizeof(name), "kb_%s", modes[m]);
		progs[m] = bpf_object__find_program_by_name(obj, name);
		if (!progs[m])
			die("%s has no program %s", obj_path, name);
	}
	dlink = bpf_program__attach(deliver);
	if (!dlink)
		die("attach of kb_deliver: %s", strerror(errno));

	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		int depth = depths[d];
		unsigned long n = iters(200000 / (depth + 16));

		if (only && depth != only)
			continue;
		for (t = 0; t < 2; t++) {
			for (m = 0; m < 3; m++) {
				struct kb_run r = { .n = n, .uncached = t > 0 };

				link = kb_bpf_attach(progs[m], &fd);
				/* One call to check, one loop to time */
				if (m)
					kb_bpf_check(map, m == 1 ? KB_BPF_WALK :
						     KB_BPF_DELIVERED, depth, t > 0,
						     modes[m]);
				kb_rec(depth, &r);
				bpf_link__destroy(link);
				close(fd);
				printf("KB bpf %s %d %s %s %.1f\n", KB_BUILD, depth,
				       kb_temps[t], modes[m], (double)r.ns / n);
			}
		}
	}
	bpf_link__destroy(dlink);
	bpf_object__close(obj);
}

/* ------------------------------------------------------------------ */
/* spin: a program to profile */

static volatile unsigned long kb_spin_sink;

KB_FN void kb_spin_work(unsigned long rounds)
{
	unsigned long i, x = kb_spin_sink;

	for (i = 0; i < rounds * 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	kb_spin_sink = x;
}

KB_FN void kb_spin_rec(int n, unsigned long rounds)
{
	if (n <= 1)
		kb_spin_work(rounds);
	else
		kb_spin_rec(n - 1, rounds);
	asm volatile("" : : : "memory");	/* no tail call */
}

static void cmd_spin(int depth, unsigned long rounds, const char *label,
		     bool hold)
{
	uint64_t t0 = now_ns();

	if (depth < 1 || depth > KB_MAX_DEPTH || !rounds)
		die("spin: depth 1..%d, rounds > 0", KB_MAX_DEPTH);
	kb_spin_rec(depth, rounds);
	printf("KB spin %s %d %s %.1f\n", KB_BUILD, depth, label,
	       (double)(now_ns() - t0) / rounds);
	/* For the profiler to read the program's symbols when it ends */
	while (hold)
		pause();
}

int main(int argc, char **argv)
{
	const char *s = getenv("KBENCH_SCALE");

	if (argc < 2)
		die("usage: kbench frames|growth|threads|codectl|fork|plain|far|bpf|spin|noop");
	if (!strcmp(argv[1], "noop"))
		return 0;
	if (s)
		kb_scale = atof(s);
	kb_self = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* The registry tables count the program's registrations only. */
	if (!strcmp(argv[1], "growth") || !strcmp(argv[1], "threads") ||
	    !strcmp(argv[1], "codectl") || !strcmp(argv[1], "fork") ||
	    !strcmp(argv[1], "far"))
		kb_drop_kernel_regs();

	if (!strcmp(argv[1], "frames"))
		cmd_frames(argc > 2 ? atoi(argv[2]) : 0);
	else if (!strcmp(argv[1], "growth"))
		cmd_growth();
	else if (!strcmp(argv[1], "threads"))
		cmd_threads();
	else if (!strcmp(argv[1], "codectl"))
		cmd_codectl();
	else if (!strcmp(argv[1], "fork"))
		cmd_fork();
	else if (!strcmp(argv[1], "plain"))
		cmd_plain();
	else if (!strcmp(argv[1], "far"))
		cmd_far();
	else if (!strcmp(argv[1], "bpf") && argc >= 3)
		cmd_bpf(argv[2], argc > 3 ? atoi(argv[3]) : 0);
	else if (!strcmp(argv[1], "spin") && (argc == 5 || argc == 6))
		cmd_spin(atoi(argv[2]), strtoul(argv[3], NULL, 0), argv[4],
			 argc == 6 && !strcmp(argv[5], "hold"));
	else if (!strcmp(argv[1], "dump-code") && argc == 4)
		cmd_dump_code(strtoul(argv[2], NULL, 0), argv[3]);
	else
		die("unknown command %s", argv[1]);
	return 0;
}
