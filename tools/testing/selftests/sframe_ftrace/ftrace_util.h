/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the stacktrace:user trigger tests: tracefs instances, and the
 * records of the trigger as the trace file shows them.
 *
 * The trigger writes, after each event it fires on,
 *
 *	<task>-<pid> [cpu] flags time: <user stack deferred> cookie=<hex>
 *
 * and, before the task returns to user space,
 *
 *	<task>-<pid> [cpu] flags time: <user stack> cookie=<hex>
 *	 => <file>+0x<offset>
 *	 ...
 */
#ifndef FTRACE_UTIL_H
#define FTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* The tracefs directory of an instance of ours. */
struct ftu_instance {
	char dir[256];
};

int ftu_tracefs(char *buf, size_t len);
int ftu_instance_create(struct ftu_instance *in, const char *name);
int ftu_instance_remove(struct ftu_instance *in);
int ftu_write(const char *dir, const char *file, const char *text);
int ftu_write_quiet(const char *dir, const char *file, const char *text);
char *ftu_read(const char *dir, const char *file, size_t *len);
int ftu_copy_file(const char *from, const char *to);

struct ftu_frame {
	char *name;			/* "/path/to/file", "[vdso]", ... */
	unsigned long long offset;
};

struct ftu_stack {
	unsigned long long cookie;
	int pid;
	unsigned int nr;
	struct ftu_frame *frames;
	bool truncated;			/* a " => ... N ..." line */
	/* From the raw pages: bytes of the record and of its names */
	unsigned int record_size, names_size;
};

/* An event line, or the cookie record that follows one */
struct ftu_record {
	int pid;
	bool cookie_record;
	bool has_cookie;		/* not "none" */
	unsigned long long cookie;
	char *body;			/* after the time stamp */
};

struct ftu_trace {
	struct ftu_record *recs;
	unsigned int nrecs;
	struct ftu_stack *stacks;
	unsigned int nstacks;
	unsigned int bad_lines;		/* frame lines not understood */
};

int ftu_parse(const char *text, struct ftu_trace *t);
void ftu_trace_free(struct ftu_trace *t);
const struct ftu_stack *ftu_find_stack(const struct ftu_trace *t,
				       unsigned long long cookie, int pid,
				       unsigned int *count);
void ftu_print_stack(const struct ftu_stack *s);

/* A decoder of the raw pages of an instance: what trace-cmd reads */
#define FTU_MAX_CPUS	64

struct ftu_raw {
	int (*on_cookie)(void *ctx, int pid, unsigned long long cookie);
	int (*on_stack)(void *ctx, struct ftu_stack *s);
	void *ctx;
	unsigned int cookies, stacks;	/* records decoded */
	unsigned int bad;		/* records that do not decode */
	/* From the format files */
	unsigned int stack_id, cookie_id;
	unsigned int type_off, pid_off, ccookie_off;
	unsigned int cookie_off, dropped_off, frames_off, names_off;
	unsigned int commit_off, commit_size, data_off, data_size;
	int fds[FTU_MAX_CPUS];
	int ncpus;
	unsigned char *page;
};

int ftu_raw_open(struct ftu_raw *r, const char *dir);
int ftu_raw_read(struct ftu_raw *r);
void ftu_raw_close(struct ftu_raw *r);
int ftu_raw_stacks(const char *dir, struct ftu_trace *t);
bool ftu_same_stack(const struct ftu_stack *a, const struct ftu_stack *b);

#endif /* FTRACE_UTIL_H */
