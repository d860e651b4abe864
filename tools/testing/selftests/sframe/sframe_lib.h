/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user stack unwinding selftests: tracepoint lookup,
 * a perf ring buffer reader that pairs samples with their deferred user
 * callchains, a symbolizer for the test program itself, ELF and SFrame
 * reading and damaging, the runs of the known call chain (sframe_chain.h)
 * under perf, checked against the ground truth it records, and the
 * registrations /proc/self/sframe shows.
 */
#ifndef SFRAME_LIB_H
#define SFRAME_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/elf.h>
#include <linux/types.h>

#include "sframe_chain.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	(PT_LOOS + 0x474e554)
#endif

/* More than the kernel's deferred unwind cache holds (510 on 64-bit). */
#define SFT_MAX_IPS	512

/* Largest number of deferred records sft_perf_collect() keeps. */
#define SFT_MAX_DEFERRED	256

double sft_now(void);
int sft_tracepoint_id(const char *group, const char *event);
int sft_hold_tracepoint(int tp);

struct sft_perf {
	int fd;
	void *base;		/* the mmap()ed control page and data */
	size_t map_len;
	__u64 data_offset;
	__u64 data_size;
	/* A tracepoint event's, for sft_perf_missed() to open it again */
	int tp_id;		/* -1: not a tracepoint event */
	bool deferred;
	pid_t pid;
};

int sft_perf_open_tracepoint(struct sft_perf *p, int tp_id, bool deferred);
int sft_perf_open_tracepoint_pid(struct sft_perf *p, int tp_id, bool deferred,
				 pid_t pid);
int sft_perf_open_task_clock(struct sft_perf *p, pid_t pid, __u64 period_ns);
int sft_perf_open_breakpoint(struct sft_perf *p, pid_t pid, unsigned long addr);
bool sft_perf_print_count(const struct sft_perf *p);
bool sft_perf_missed(struct sft_perf *p);
int sft_perf_enable(struct sft_perf *p);
int sft_perf_disable(struct sft_perf *p);
void sft_perf_close(struct sft_perf *p);

/*
 * One PERF_RECORD_SAMPLE, with its user stack: the user part of its own
 * callchain (synchronous unwind), or the IPs of the
 * PERF_RECORD_CALLCHAIN_DEFERRED record that carries its cookie.
 */
struct sft_sample {
	__u32 pid, tid;
	unsigned int chain_nr;		/* words of the sample's callchain */
	unsigned int kernel_ips;	/* IPs outside the user context */
	bool sync_user;			/* had PERF_CONTEXT_USER */
	bool deferred;			/* ended in USER_DEFERRED, cookie */
	bool malformed;			/* USER_DEFERRED not the last pair */
	__u64 cookie;
	bool merged;			/* deferred record found */
	__u32 rec_pid, rec_tid;		/* sample_id of that record */
	unsigned int nr;		/* user IPs, innermost first */
	__u64 ips[SFT_MAX_IPS];
};

struct sft_ring_stats {
	unsigned int samples;
	unsigned int deferred;		/* PERF_RECORD_CALLCHAIN_DEFERRED */
	unsigned int unmatched;		/* deferred records nobody wanted */
	unsigned int duplicates;	/* second record for one cookie */
	unsigned int lost;		/* events counted by PERF_RECORD_LOST */
	unsigned int other;
};

int sft_perf_collect(struct sft_perf *p, struct sft_sample *out,
		     unsigned int max, struct sft_ring_stats *stats);

int sft_read_file(const char *path, char **image, size_t *len);

/* Do @size bytes at offset @off lie within @len bytes? */
static inline bool sft_in_bounds(size_t len, __u64 off, __u64 size)
{
	return off <= len && size <= len - off;
}

struct sft_sym {
	unsigned long start;		/* runtime address */
	unsigned long size;
	const char *name;
	bool global;
};

struct sft_symtab {
	char *image;			/* the ELF file, names point into it */
	struct sft_sym *syms;
	size_t nr;
	unsigned long bias;		/* runtime minus link-time address */
};

int sft_symtab_load_self(struct sft_symtab *st);
void sft_symtab_free(struct sft_symtab *st);
const struct sft_sym *sft_symtab_lookup(const struct sft_symtab *st,
					unsigned long addr);
const struct sft_sym *sft_symtab_find(const struct sft_symtab *st,
				      const char *name);
void sft_describe(const struct sft_symtab *st, char *buf, size_t len,
		  unsigned int frame, __u64 ip);

/* One expected frame: a function name and, if not 0, the exact address. */
struct sft_frame {
	const char *func;
	unsigned long addr;
};

bool sft_stack_matches(const struct sft_symtab *st,
		       const struct sft_frame *expect, unsigned int n,
		       const __u64 *ips, unsigned int nr);

/* ELF files (sframe_elf.c) */

struct sft_elf {
	char *image;
	size_t len;
	struct elf64_phdr *phdr;	/* inside image */
	unsigned int phnum;
};

int sft_elf_load(struct sft_elf *e, const char *path);
void sft_elf_free(struct sft_elf *e);
int sft_elf_save(const struct sft_elf *e, const char *path);
struct elf64_phdr *sft_elf_find_phdr(const struct sft_elf *e, __u32 type);

#define SFT_SFRAME_HDR_SIZE	28
/* The SFrame ABI of the running architecture: AMD64 or AArch64, LE */
#if defined(__aarch64__)
#define SFT_SFRAME_ABI		2
#else
#define SFT_SFRAME_ABI		3
#endif
#define SFT_SFRAME_F_PCREL	0x4
#define SFT_V2_FDE_SIZE		20
#define SFT_V3_FDE_SIZE		16
#define SFT_V3_ATTR_SIZE	5

/* An SFrame section inside a loaded file; offsets from its start. */
struct sft_sframe {
	unsigned char *base;		/* inside the file's image */
	__u64 size;
	__u64 vaddr;			/* link-time address */
	unsigned int version, flags, hdr_size;
	__u32 num_fdes, num_fres, fre_len;
	__u64 fdes, fres;		/* the two sub-sections */
};

struct sft_fde {
	__u64 start;			/* link-time address */
	__u32 size;
	__u32 fre_off;			/* from the FRE sub-section */
	__u32 num_fres;
	bool flex;			/* V3 flexible FDE */
	__u8 info;			/* FRE type, key B, ... */
	__u64 fres;			/* section offset of its first FRE */
};

int sft_sframe_parse(const struct sft_elf *e, struct sft_sframe *s);
int sft_sframe_fde(const struct sft_sframe *s, __u32 i, struct sft_fde *fde);
int sft_sframe_find(const struct sft_sframe *s, unsigned long addr,
		    struct sft_fde *fde);
int sft_sframe_fre_info(const struct sft_sframe *s, const struct sft_fde *fde,
			unsigned long addr);

/* FRE info: data words (CFA, then the RA if the ABI tracks it, the FP) */
#define SFT_FRE_NWORDS(info)	(((info) >> 1) & 0xf)

/* Runs of the chain under perf (sframe_run.c) */

/*
 * What a run's user stacks were.  Also the exit codes of a probe (a copy
 * of a test program run with --probe).
 */
enum sft_verdict {
	SFT_TRUTH = 0,	/* the real chain, frame by frame, address by address */
	SFT_FP = 1,	/* what the frame pointer unwinder gives, not the chain */
	SFT_OTHER = 2,	/* neither (a complete, bounded stack all the same) */
	SFT_BROKEN = 3,	/* a sample or its deferred stack is missing or bad */
	SFT_ANY = -1,	/* an expectation: anything but SFT_BROKEN */
};

const char *sft_verdict_name(int v);

/* Room for the samples of one run (and a few strays, to report them). */
#define SFT_RUN_MAX_SAMPLES	8

struct sft_run {
	struct sft_perf ev;
	struct sft_walk walk;
	struct sft_sample samples[SFT_RUN_MAX_SAMPLES];
	int nsamples;
	struct sft_ring_stats stats;
	int verdict[SFT_CHAIN_SAMPLES];
};

int sft_run_open(struct sft_run *r);
void sft_run_close(struct sft_run *r);
int sft_run_begin(struct sft_run *r);
int sft_run_end(struct sft_run *r, int err);
int sft_run_verdict(struct sft_run *r, const struct sft_symtab *syms,
		    int expect, bool quiet);

/*
 * Run the chain once from the calling function (main), sampling its two
 * system calls.  Evaluates to 0 or a negative errno; then see
 * sft_run_verdict().
 */
#define SFT_RECORD_CHAIN_ONCE(r)					\
({									\
	struct sft_run *__r = (r);					\
	int __err = sft_run_begin(__r);					\
									\
	if (!__err)							\
		__err = SFT_RUN_CHAIN(&__r->walk);			\
	sft_run_end(__r, __err);					\
})

/* Once more when the event missed the run: see sft_perf_missed() */
#define SFT_RECORD_CHAIN(r)						\
({									\
	int __ret = SFT_RECORD_CHAIN_ONCE(r);				\
									\
	if (__ret == -EAGAIN)						\
		__ret = SFT_RECORD_CHAIN_ONCE(r);			\
	__ret;								\
})

/*
 * Probe mode: "PROGRAM --probe EXPECT [BIAS]" runs the chain once, prints
 * what it got and exits with its verdict; EXPECT is truth, fp or any and
 * only decides what gets explained; BIAS, in hex, is the load bias the
 * program must have (else SFT_BROKEN).  Every test program starts with
 * SFT_PROBE_MAIN(argc, argv), so that a copy of it, damaged or not, can be
 * run and judged by the test.
 */
struct sft_probe {
	struct sft_symtab syms;
	struct sft_run run;
	int expect;
	int err;
};

bool sft_probe_init(struct sft_probe *p, int argc, char **argv);
void sft_probe_setup(struct sft_probe *p, int expect);
int sft_probe_finish(struct sft_probe *p, int err);

#define SFT_PROBE_MAIN(argc, argv)					\
do {									\
	static struct sft_probe __probe;				\
									\
	if (sft_probe_init(&__probe, (argc), (argv)))			\
		exit(sft_probe_finish(&__probe,				\
				      SFT_RECORD_CHAIN(&__probe.run)));	\
} while (0)

/*
 * Probe this process here and exit with the verdict: for a child that
 * changed its mappings after fork().  Must be used in main().
 */
#define SFT_PROBE_HERE(expect)						\
do {									\
	static struct sft_probe __probe;				\
									\
	sft_probe_setup(&__probe, (expect));				\
	exit(sft_probe_finish(&__probe,					\
			      SFT_RECORD_CHAIN(&__probe.run)));		\
} while (0)

/* Child processes (sft_wait() and sft_spawn() in sframe_lib.c) */

int sft_wait(pid_t pid, int timeout_s, const char *what);
int sft_spawn(char *const argv[], const char *env, int timeout_s);
int sft_run_probe(const char *path, int expect, const char *bias,
		  int timeout_s);
int sft_exe_dir(char *buf, size_t len);
void sft_tmp_copy(char *path, size_t len, const char *tag);

/*
 * A page of its own in the text of every test program, which nothing
 * executes: the lifetime test unmaps or reprotects it (sframe_run.c).
 */
extern char sft_spare_page[];

/* The ELF image of this program, its SFrame section and where it runs. */
struct sft_self {
	struct sft_elf elf;
	struct sft_sframe sframe;
	bool has_sframe;
	unsigned long bias;
	unsigned long sframe_start, sframe_end;	/* runtime */
};

int sft_self_load(struct sft_self *self, const struct sft_symtab *syms);
void sft_self_free(struct sft_self *self);
bool sft_self_text(const struct sft_self *self, const struct sft_symtab *syms,
		   unsigned long *start, unsigned long *end);
bool sft_self_sframe_pages(const struct sft_self *self,
			   const struct sft_symtab *syms,
			   unsigned long *start, unsigned long *len);

/* Registrations of this process, from /proc/self/sframe (sframe_lib.c) */

struct sft_reg {
	unsigned long text_start, text_end;
	unsigned long sframe_start, sframe_end;
	unsigned int version;
	bool user;		/* registered by codectl(2), not at exec */
	bool bad;		/* the unwinder found the section corrupt */
};

int sft_regs_read(struct sft_reg *regs, unsigned int max);
const struct sft_reg *sft_regs_find(const struct sft_reg *regs,
				    unsigned int n, unsigned long text_start);
void sft_regs_dump(void);

#endif /* SFRAME_LIB_H */
