// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the stacktrace:user trigger tests: tracefs instances, and the
 * trigger's records as the trace file shows them (ftrace_util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "ftrace_util.h"

#define TRACEFS		"/sys/kernel/tracing"

/**
 * ftu_tracefs() - Find tracefs, mounting it if nobody did
 * @buf: receives its directory
 * @len: size of @buf
 *
 * Return: 0, or a negative errno after printing why.
 */
int ftu_tracefs(char *buf, size_t len)
{
	if (access(TRACEFS "/instances", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL)) {
		ksft_print_msg("mount(%s): %s\n", TRACEFS, strerror(errno));
		return -errno;
	}
	if (access(TRACEFS "/instances", F_OK)) {
		ksft_print_msg("%s has no instances/\n", TRACEFS);
		return -ENOENT;
	}
	snprintf(buf, len, "%s", TRACEFS);
	return 0;
}

/**
 * ftu_instance_create() - Make a tracefs instance
 * @in: receives its directory
 * @name: its name; an instance of that name left by an earlier run goes
 *
 * The first one of a process also holds syscalls:sys_enter_getppid on, the
 * event this target's programs trace, for the rest of the process
 * (sft_hold_tracepoint() says why): the instances made and removed after
 * it then never turn the tracepoint off and on again.
 *
 * Return: 0, or a negative errno after printing why.
 */
int ftu_instance_create(struct ftu_instance *in, const char *name)
{
	static int held = -1;
	char top[128];
	int ret;

	if (held < 0) {
		ret = sft_tracepoint_id("syscalls", "sys_enter_getppid");
		if (ret < 0)
			return ret;
		held = sft_hold_tracepoint(ret);
		if (held < 0)
			return -EIO;
	}
	ret = ftu_tracefs(top, sizeof(top));
	if (ret)
		return ret;
	snprintf(in->dir, sizeof(in->dir), "%s/instances/%s", top, name);
	if (!access(in->dir, F_OK))
		rmdir(in->dir);
	if (mkdir(in->dir, 0755)) {
		ret = -errno;
		ksft_print_msg("mkdir(%s): %s\n", in->dir, strerror(errno));
		return ret;
	}
	return 0;
}

/**
 * ftu_instance_remove() - Remove an instance made by ftu_instance_create()
 * @in: the instance
 *
 * Return: 0, or a negative errno after printing why.
 */
int ftu_instance_remove(struct ftu_instance *in)
{
	if (!in->dir[0])
		return 0;
	if (rmdir(in->dir)) {
		ksft_print_msg("rmdir(%s): %s\n", in->dir, strerror(errno));
		return -errno;
	}
	in->dir[0] = '\0';
	return 0;
}

static int write_file(const char *dir, const char *file, const char *text,
		      bool quiet)
{
	char path[512];
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (!quiet)
			ksft_print_msg("open(%s): %s\n", path, strerror(errno));
		return ret;
	}
	n = write(fd, text, len);
	if (n != (ssize_t)len) {
		ret = n < 0 ? -errno : -EIO;
		if (!quiet)
			ksft_print_msg("writing '%s' to %s: %s\n", text, path,
				       strerror(-ret));
	}
	close(fd);
	return ret;
}

/**
 * ftu_write() - Write a string into a tracefs file
 * @dir: the directory
 * @file: the file, relative to @dir
 * @text: what to write
 *
 * Return: 0, or a negative errno after printing why.
 */
int ftu_write(const char *dir, const char *file, const char *text)
{
	return write_file(dir, file, text, false);
}

/**
 * ftu_write_quiet() - ftu_write() that prints nothing
 * @dir: the directory
 * @file: the file, relative to @dir
 * @text: what to write
 *
 * Return: 0, or a negative errno.
 */
int ftu_write_quiet(const char *dir, const char *file, const char *text)
{
	return write_file(dir, file, text, true);
}

/**
 * ftu_read() - Read a tracefs file whole
 * @dir: the directory
 * @file: the file, relative to @dir
 * @len: receives its length, if not NULL
 *
 * Return: its contents, NUL-terminated, malloc()ed; NULL after printing
 * why.
 */
char *ftu_read(const char *dir, const char *file, size_t *len)
{
	size_t size = 65536, done = 0;
	char path[512], *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ksft_print_msg("open(%s): %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(size);
	while (buf) {
		ssize_t n;

		if (size - done < 4096) {
			char *more = realloc(buf, size * 2);

			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
			size *= 2;
		}
		n = read(fd, buf + done, size - done - 1);
		if (n < 0) {
			ksft_print_msg("read(%s): %s\n", path, strerror(errno));
			free(buf);
			buf = NULL;
			break;
		}
		if (!n)
			break;
		done += n;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[done] = '\0';
	if (len)
		*len = done;
	return buf;
}

/*
 * The pid and the body of a trace line "<comm>-<pid> [cpu] flags time:
 * body"; the comm may hold anything, so the pid is the number before the
 * first " [" that a CPU number follows.
 */
static bool split_line(char *line, int *pid, char **body)
{
	char *cpu = line, *p, *end;

	for (;;) {
		cpu = strstr(cpu, " [");
		if (!cpu)
			return false;
		if (cpu[2] >= '0' && cpu[2] <= '9')
			break;
		cpu += 2;
	}
	p = cpu;
	while (p > line && p[-1] == ' ')
		p--;
	end = p;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || p == line || p[-1] != '-')
		return false;
	*pid = atoi(p);
	p = strstr(cpu, ": ");
	if (!p)
		return false;
	*body = p + 2;
	return true;
}

static void *grow(void *array, unsigned int n, size_t size)
{
	/* Room for a power of two of elements */
	if (n && (n & (n - 1)))
		return array;
	return realloc(array, (n ? 2 * n : 1) * size);
}

/* " => <name>+0x<offset>": 1, " => ... N more frames...": 0, else -1 */
static int parse_frame(const char *line, struct ftu_frame *f)
{
	const char *plus;
	char *end;

	if (!strncmp(line, " => ... ", 8))
		return 0;
	line += 4;
	plus = strstr(line, "+0x");
	while (plus && strstr(plus + 1, "+0x"))
		plus = strstr(plus + 1, "+0x");
	if (!plus || plus == line)
		return -1;
	f->offset = strtoull(plus + 3, &end, 16);
	if (end == plus + 3 || *end)
		return -1;
	f->name = strndup(line, plus - line);
	return f->name ? 1 : -1;
}

/**
 * ftu_parse() - Parse the text of a trace file
 * @text: its contents; lines are split in place
 * @t: receives the records (events and cookie records) in order, and the
 *     stacks; free with ftu_trace_free()
 *
 * Return: 0, or -ENOMEM.
 */
int ftu_parse(const char *text, struct ftu_trace *t)
{
	char *copy = strdup(text), *line, *next;
	struct ftu_stack *cur = NULL;

	memset(t, 0, sizeof(*t));
	if (!copy)
		return -ENOMEM;
	for (line = copy; line && *line; line = next) {
		struct ftu_record *r;
		char *body;
		int pid;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, " => ", 4)) {
			struct ftu_frame f;
			int ret;

			if (!cur) {
				t->bad_lines++;
				continue;
			}
			ret = parse_frame(line, &f);
			if (ret < 0) {
				t->bad_lines++;
			} else if (!ret) {
				cur->truncated = true;
			} else {
				cur->frames = grow(cur->frames, cur->nr,
						   sizeof(f));
				if (!cur->frames)
					goto nomem;
				cur->frames[cur->nr++] = f;
			}
			continue;
		}
		cur = NULL;
		if (line[0] == '#' || !split_line(line, &pid, &body))
			continue;
		if (!strncmp(body, "<user stack> cookie=", 20)) {
			t->stacks = grow(t->stacks, t->nstacks,
					 sizeof(*t->stacks));
			if (!t->stacks)
				goto nomem;
			cur = &t->stacks[t->nstacks++];
			memset(cur, 0, sizeof(*cur));
			cur->cookie = strtoull(body + 20, NULL, 16);
			cur->pid = pid;
			continue;
		}
		t->recs = grow(t->recs, t->nrecs, sizeof(*t->recs));
		if (!t->recs)
			goto nomem;
		r = &t->recs[t->nrecs++];
		memset(r, 0, sizeof(*r));
		r->pid = pid;
		r->body = strdup(body);
		if (!r->body)
			goto nomem;
		if (!strncmp(body, "<user stack deferred> ", 22)) {
			r->cookie_record = true;
			if (!strncmp(body + 22, "cookie=", 7)) {
				r->has_cookie = true;
				r->cookie = strtoull(body + 29, NULL, 16);
			}
		}
	}
	free(copy);
	return 0;
nomem:
	free(copy);
	ftu_trace_free(t);
	return -ENOMEM;
}

/**
 * ftu_trace_free() - Free what ftu_parse() allocated
 * @t: the parsed trace
 */
void ftu_trace_free(struct ftu_trace *t)
{
	unsigned int i, j;

	for (i = 0; i < t->nstacks; i++) {
		for (j = 0; j < t->stacks[i].nr; j++)
			free(t->stacks[i].frames[j].name);
		free(t->stacks[i].frames);
	}
	for (i = 0; i < t->nrecs; i++)
		free(t->recs[i].body);
	free(t->stacks);
	free(t->recs);
	memset(t, 0, sizeof(*t));
}

/**
 * ftu_find_stack() - Find the stack of a cookie
 * @t: the parsed trace
 * @cookie: the cookie
 * @pid: the task that must have written it
 * @count: receives the number of stacks with that cookie and pid
 *
 * Return: the first, or NULL.
 */
const struct ftu_stack *ftu_find_stack(const struct ftu_trace *t,
				       unsigned long long cookie, int pid,
				       unsigned int *count)
{
	const struct ftu_stack *found = NULL;
	unsigned int i;

	*count = 0;
	for (i = 0; i < t->nstacks; i++) {
		if (t->stacks[i].cookie != cookie || t->stacks[i].pid != pid)
			continue;
		if (!found)
			found = &t->stacks[i];
		(*count)++;
	}
	return found;
}

/**
 * ftu_print_stack() - Print a stack as the test found it, as diagnostics
 * @s: the stack
 */
void ftu_print_stack(const struct ftu_stack *s)
{
	unsigned int i;

	ksft_print_msg("stack of cookie %llx, task %d, %u frames%s:\n",
		       s->cookie, s->pid, s->nr,
		       s->truncated ? " and more" : "");
	for (i = 0; i < s->nr; i++)
		ksft_print_msg("  %2u  %s+0x%llx\n", i, s->frames[i].name,
			       s->frames[i].offset);
}

/*
 * The binary side: the pages of per_cpu/cpuN/trace_pipe_raw, decoded with
 * what the format files say, as trace-cmd and libtraceevent would.
 */

/* Offset and size of field @name in format file text @fmt; false if none */
static bool fmt_field(const char *fmt, const char *name, unsigned int *off,
		      unsigned int *size)
{
	size_t len = strlen(name);
	const char *p = fmt;

	while ((p = strstr(p, "field:"))) {
		const char *semi = strchr(p, ';'), *q;

		if (!semi)
			return false;
		/*
		 * The name is the last word before ';', without the "[N]"
		 * of an array ("__data_loc u64[] frames;" has no such end)
		 */
		q = semi;
		if (q > p && q[-1] == ']')
			while (q > p && *q != '[')
				q--;
		if ((size_t)(q - p) > len && !strncmp(q - len, name, len) &&
		    (q[-len - 1] == ' ' || q[-len - 1] == '\t')) {
			const char *o = strstr(semi, "offset:");
			const char *z = strstr(semi, "size:");

			if (!o || !z)
				return false;
			*off = strtoul(o + 7, NULL, 10);
			*size = strtoul(z + 5, NULL, 10);
			return true;
		}
		p = semi;
	}
	return false;
}

static int raw_layout(const char *top, struct ftu_raw *r)
{
	char *fmt, *cfmt, *hdr, *ev;
	unsigned int size;
	const char *id, *cid;
	bool ok;

	fmt = ftu_read(top, "events/ftrace/user_stack_deferred/format", NULL);
	cfmt = ftu_read(top, "events/ftrace/user_stack_cookie/format", NULL);
	hdr = ftu_read(top, "events/header_page", NULL);
	ev = ftu_read(top, "events/header_event", NULL);
	ok = fmt && cfmt && hdr && ev;
	id = ok ? strstr(fmt, "ID: ") : NULL;
	cid = ok ? strstr(cfmt, "ID: ") : NULL;
	ok = id && cid &&
	     fmt_field(fmt, "common_type", &r->type_off, &size) && size == 2 &&
	     fmt_field(fmt, "common_pid", &r->pid_off, &size) && size == 4 &&
	     fmt_field(fmt, "cookie", &r->cookie_off, &size) && size == 8 &&
	     fmt_field(fmt, "dropped", &r->dropped_off, &size) && size == 4 &&
	     fmt_field(fmt, "frames", &r->frames_off, &size) && size == 4 &&
	     fmt_field(fmt, "names", &r->names_off, &size) && size == 4 &&
	     strstr(fmt, "field:__data_loc u64[] frames;") &&
	     strstr(fmt, "field:__data_loc char[] names;") &&
	     fmt_field(cfmt, "cookie", &r->ccookie_off, &size) && size == 8 &&
	     fmt_field(hdr, "commit", &r->commit_off, &r->commit_size) &&
	     (r->commit_size == 4 || r->commit_size == 8) &&
	     fmt_field(hdr, "data", &r->data_off, &r->data_size) &&
	     strstr(ev, "type_len    :    5 bits") &&
	     strstr(ev, "time_delta  :   27 bits") &&
	     strstr(ev, "padding     : type == 29");
	if (ok) {
		r->stack_id = strtoul(id + 4, NULL, 10);
		r->cookie_id = strtoul(cid + 4, NULL, 10);
	} else {
		ksft_print_msg("the format files are not what the decoder knows\n");
	}
	free(fmt);
	free(cfmt);
	free(hdr);
	free(ev);
	return ok ? 0 : -EINVAL;
}

static unsigned long long get_le(const unsigned char *p, unsigned int size)
{
	unsigned long long v = 0;

	while (size--)
		v = v << 8 | p[size];
	return v;
}

/*
 * The bytes of the __data_loc array at @off of record @rec, @size bytes
 * long: NULL if they are not inside it.
 */
static const unsigned char *data_loc(const unsigned char *rec,
				     unsigned int size, unsigned int off,
				     unsigned int *len)
{
	unsigned int loc = get_le(rec + off, 4);

	*len = loc >> 16;
	if ((loc & 0xffff) + *len > size)
		return NULL;
	return rec + (loc & 0xffff);
}

/* Decode a stack record of @size bytes at @rec into @s */
static int raw_stack(const struct ftu_raw *r, const unsigned char *rec,
		     unsigned int size, struct ftu_stack *s)
{
	const unsigned char *frames, *names;
	unsigned int nr, nnames, i, flen, nlen;
	const char *name[256], *p, *end;
	size_t name_len[256];

	memset(s, 0, sizeof(*s));
	if (size < r->names_off + 4 || size < r->dropped_off + 4)
		return -EINVAL;
	frames = data_loc(rec, size, r->frames_off, &flen);
	names = data_loc(rec, size, r->names_off, &nlen);
	if (!frames || !names || flen % 8 || !nlen || names[nlen - 1])
		return -EINVAL;
	nr = flen / 8;
	/* The names: one string, '|' between them, none if empty */
	p = (const char *)names;
	end = p + nlen - 1;
	for (nnames = 0; p < end && nnames < 253; nnames++) {
		const char *sep = memchr(p, '|', end - p);

		name[nnames] = p;
		name_len[nnames] = (sep ? sep : end) - p;
		p = sep ? sep + 1 : end;
	}
	if (p < end)
		return -EINVAL;

	s->record_size = size;
	s->names_size = nlen;
	s->cookie = get_le(rec + r->cookie_off, 8);
	s->pid = get_le(rec + r->pid_off, 4);
	s->truncated = get_le(rec + r->dropped_off, 4) != 0;
	s->frames = calloc(nr ? nr : 1, sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		unsigned long long w = get_le(frames + 8 * i, 8);
		unsigned int obj = w >> 56;
		const char *nm;
		size_t len;

		if (obj == 0)
			nm = "[unknown]";
		else if (obj == 1)
			nm = "[anon]";
		else if (obj == 255)
			nm = "[unnamed]";
		else if (obj - 2 < nnames)
			nm = name[obj - 2];
		else
			return -EINVAL;
		len = obj >= 2 && obj < 255 ? name_len[obj - 2] : strlen(nm);
		s->frames[i].name = strndup(nm, len);
		s->frames[i].offset = w & ((1ULL << 56) - 1);
		if (!s->frames[i].name)
			return -ENOMEM;
		s->nr++;
	}
	return 0;
}

static void stack_free(struct ftu_stack *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		free(s->frames[i].name);
	free(s->frames);
	memset(s, 0, sizeof(*s));
}

/* Decode one record: a cookie record, a stack, or something else */
static int raw_record(struct ftu_raw *r, const unsigned char *rec,
		      unsigned int size)
{
	unsigned int type;
	struct ftu_stack s;
	int ret;

	if (size < r->pid_off + 4)
		return 0;
	type = get_le(rec + r->type_off, 2);
	if (type == r->cookie_id) {
		if (size < r->ccookie_off + 8) {
			r->bad++;
			return 0;
		}
		r->cookies++;
		return r->on_cookie ? r->on_cookie(r->ctx,
				get_le(rec + r->pid_off, 4),
				get_le(rec + r->ccookie_off, 8)) : 0;
	}
	if (type != r->stack_id)
		return 0;
	ret = raw_stack(r, rec, size, &s);
	if (ret == -EINVAL)
		r->bad++;
	else if (!ret)
		r->stacks++;
	if (!ret && r->on_stack)
		ret = r->on_stack(r->ctx, &s);
	stack_free(&s);
	return ret == -EINVAL ? 0 : ret;
}

/* Decode one page of trace_pipe_raw */
static int raw_page(struct ftu_raw *r, const unsigned char *page, size_t len)
{
	unsigned long long commit;
	const unsigned char *p, *end;

	if (len < r->data_off)
		return -EINVAL;
	commit = get_le(page + r->commit_off, r->commit_size) &
		 ((1ULL << 30) - 1);
	if (commit > len - r->data_off)
		return -EINVAL;
	p = page + r->data_off;
	end = p + commit;
	while (p + 4 <= end) {
		unsigned int hdr = get_le(p, 4), type_len = hdr & 31;
		const unsigned char *rec;
		unsigned int size;
		int ret;

		if (type_len == 29) {		/* padding */
			if (!(hdr >> 5) || p + 8 > end)
				break;
			p += 4 + get_le(p + 4, 4);
			continue;
		}
		if (type_len == 30 || type_len == 31) {	/* time */
			p += 8;
			continue;
		}
		if (type_len) {
			size = type_len * 4;
			rec = p + 4;
		} else {
			if (p + 8 > end || get_le(p + 4, 4) < 4)
				return -EINVAL;
			size = get_le(p + 4, 4) - 4;
			rec = p + 8;
		}
		if (rec + size > end)
			return -EINVAL;
		p = rec + size;
		ret = raw_record(r, rec, size);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ftu_raw_open() - Open the raw pages of an instance, to decode them
 * @r: the reader; its on_cookie, on_stack and ctx are kept
 * @dir: the instance's directory
 *
 * Return: 0, or a negative errno after printing why.
 */
int ftu_raw_open(struct ftu_raw *r, const char *dir)
{
	char top[128], path[512];
	int ret;

	r->ncpus = 0;
	r->bad = 0;
	r->cookies = 0;
	r->stacks = 0;
	r->page = NULL;
	ret = ftu_tracefs(top, sizeof(top));
	if (!ret)
		ret = raw_layout(top, r);
	if (ret)
		return ret;
	r->page = malloc(r->data_off + r->data_size);
	if (!r->page)
		return -ENOMEM;
	while (r->ncpus < FTU_MAX_CPUS) {
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
			 dir, r->ncpus);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			break;
		r->fds[r->ncpus++] = fd;
	}
	if (!r->ncpus) {
		ksft_print_msg("%s has no per_cpu/cpu0/trace_pipe_raw\n", dir);
		ftu_raw_close(r);
		return -ENOENT;
	}
	return 0;
}

/**
 * ftu_raw_read() - Decode what the raw pages hold now, consuming them
 * @r: the reader
 *
 * Calls @r->on_cookie for each cookie record and @r->on_stack for each
 * stack.
 *
 * Return: the number of pages read, or a negative errno.
 */
int ftu_raw_read(struct ftu_raw *r)
{
	int cpu, pages = 0, ret;

	for (cpu = 0; cpu < r->ncpus; cpu++) {
		for (;;) {
			ssize_t n = read(r->fds[cpu], r->page,
					 r->data_off + r->data_size);

			if (n < 0 && errno != EAGAIN)
				return -errno;
			if (n <= 0)
				break;
			pages++;
			ret = raw_page(r, r->page, n);
			if (ret)
				return ret;
		}
	}
	return pages;
}

/**
 * ftu_raw_close() - Close what ftu_raw_open() opened
 * @r: the reader
 */
void ftu_raw_close(struct ftu_raw *r)
{
	while (r->ncpus)
		close(r->fds[--r->ncpus]);
	free(r->page);
	r->page = NULL;
}

static int collect_stack(void *ctx, struct ftu_stack *s)
{
	struct ftu_trace *t = ctx;

	t->stacks = grow(t->stacks, t->nstacks, sizeof(*t->stacks));
	if (!t->stacks)
		return -ENOMEM;
	t->stacks[t->nstacks++] = *s;
	/* The trace owns the frames now */
	memset(s, 0, sizeof(*s));
	return 0;
}

/**
 * ftu_raw_stacks() - Decode the stacks of an instance from its raw pages
 * @dir: the instance's directory; its buffer is consumed
 * @t: receives the stacks (pid, cookie, frames with their names)
 *
 * Return: 0, or a negative errno after printing why.
 */
int ftu_raw_stacks(const char *dir, struct ftu_trace *t)
{
	struct ftu_raw r = { .on_stack = collect_stack, .ctx = t };
	int ret;

	memset(t, 0, sizeof(*t));
	ret = ftu_raw_open(&r, dir);
	if (ret)
		return ret;
	ret = ftu_raw_read(&r);
	if (ret >= 0 && r.bad) {
		ksft_print_msg("%u records do not decode\n", r.bad);
		ret = -EINVAL;
	}
	ftu_raw_close(&r);
	if (ret < 0) {
		ftu_trace_free(t);
		return ret;
	}
	return 0;
}

/**
 * ftu_same_stack() - Do two stacks have the same frames?
 * @a: one
 * @b: the other
 *
 * Return: true if the same names and offsets, frame by frame.
 */
bool ftu_same_stack(const struct ftu_stack *a, const struct ftu_stack *b)
{
	unsigned int i;

	if (a->nr != b->nr || a->truncated != b->truncated)
		return false;
	for (i = 0; i < a->nr; i++)
		if (strcmp(a->frames[i].name, b->frames[i].name) ||
		    a->frames[i].offset != b->frames[i].offset)
			return false;
	return true;
}

/* Copy the file @from to @to, made executable; 0 or a negative errno */
int ftu_copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		ret = -errno;
	while (!ret && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ret = -EIO;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -errno;
	return ret;
}
