/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user stack unwinding selftests: tracepoint lookup,
 * a perf ring buffer reader that pairs samples with their deferred user
 * callchains, a symbolizer for the test program itself, and a comparison of
 * an unwound stack against the call chain the program really made.
 */
#ifndef SFRAME_LIB_H
#define SFRAME_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* More than the kernel's deferred unwind cache holds (510 on 64-bit). */
#define SFT_MAX_IPS	512

/* Largest number of deferred records sft_perf_collect() keeps. */
#define SFT_MAX_DEFERRED	64

int sft_tracefs_dir(char *buf, size_t len);
int sft_tracepoint_id(const char *group, const char *event);

struct sft_perf {
	int fd;
	void *base;		/* the mmap()ed control page and data */
	size_t map_len;
	__u64 data_offset;
	__u64 data_size;
	bool deferred;		/* opened with defer_callchain/defer_output */
};

int sft_perf_open_tracepoint(struct sft_perf *p, int tp_id, bool deferred);
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

/* One expected frame: a function name and, if not 0, the exact address. */
struct sft_frame {
	const char *func;
	unsigned long addr;
};

bool sft_stack_matches(const struct sft_symtab *st,
		       const struct sft_frame *expect, unsigned int n,
		       const __u64 *ips, unsigned int nr);

#endif /* SFRAME_LIB_H */
