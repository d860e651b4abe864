// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of a stacktrace:user stack whose frames alternate between many
 * files deep in the directory tree: each distinct file is to be named once
 * per stack, not once per frame.
 *
 * libftrace_hop.so is copied to NLIBS files, each under a chain of
 * directories, and a call chain DEPTH calls deep goes from one to the next
 * at each call, so that consecutive frames are never in the same file.  A
 * getppid() at its end has a stacktrace:user trigger.  Two layouts:
 *
 *   short: paths of about 100 bytes, so that all names fit in the record:
 *          the stack must name all NLIBS files, with the right paths;
 *   long:  paths of about 4000 bytes, longer than a record can hold, so
 *          that no name fits: the most work per frame for a kernel that
 *          names each frame's file again.
 *
 * For each, the time per stack: the time per chain with the trigger, less
 * the time without it, printed as a measurement.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../kselftest.h"
#include "ftrace_util.h"

#define BASE		"/tmp/sframe_ftrace_deep"
#define NLIBS		16
#define DEPTH		520
#define COMPONENT	"/ddddddddddddddddddd"	/* 20 bytes */
#define RUN_SECONDS	3.0

/* The steps of the chain: ftrace_hop() of each copy */
struct hop {
	long (*fn)(unsigned int depth, const struct hop *hops, unsigned int n);
};

static char paths[NLIBS][PATH_MAX];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Copy @lib to NLIBS files under @depth directories each; open them */
static int make_libs(const char *lib, const char *layout, unsigned int depth,
		     struct hop *fns)
{
	unsigned int i, d;

	mkdir(BASE, 0755);
	for (i = 0; i < NLIBS; i++) {
		char *p = paths[i];
		void *h;

		snprintf(p, PATH_MAX, "%s/%s%02u", BASE, layout, i);
		mkdir(p, 0755);
		for (d = 0; d < depth; d++) {
			strcat(p, COMPONENT);
			if (mkdir(p, 0755) && errno != EEXIST) {
				ksft_print_msg("mkdir(%.60s...): %s\n", p,
					       strerror(errno));
				return -1;
			}
		}
		strcat(p, "/libhop.so");
		if (ftu_copy_file(lib, p)) {
			ksft_print_msg("cannot copy %s\n", lib);
			return -1;
		}
		h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
		fns[i].fn = h ? dlsym(h, "ftrace_hop") : NULL;
		if (!fns[i].fn) {
			ksft_print_msg("dlopen(%.60s...): %s\n", p, dlerror());
			return -1;
		}
	}
	return 0;
}

/* Chains per second for RUN_SECONDS */
static double chains_per_s(const struct hop *fns)
{
	double t0 = now_s(), t;
	unsigned long n = 0;

	do {
		fns[0].fn(DEPTH, fns, NLIBS);
		n++;
		t = now_s();
	} while (t - t0 < RUN_SECONDS);
	return n / (t - t0);
}

/* The stack of one chain: its frames, and how many of our files it names */
static int one_stack(const struct ftu_instance *in, const struct hop *fns,
		     unsigned int *frames, unsigned int *named,
		     unsigned int *wrong)
{
	bool seen[NLIBS] = { };
	const struct ftu_stack *s = NULL;
	unsigned int i, k;
	struct ftu_trace t;
	char *text;

	if (ftu_write(in->dir, "trace", "") ||
	    ftu_write(in->dir, "events/syscalls/sys_enter_getppid/trigger",
		      "stacktrace:user:1"))
		return -1;
	fns[0].fn(DEPTH, fns, NLIBS);
	text = ftu_read(in->dir, "trace", NULL);
	if (!text || ftu_parse(text, &t)) {
		free(text);
		return -1;
	}
	for (i = 0; i < t.nstacks; i++)
		if (t.stacks[i].pid == getpid())
			s = &t.stacks[i];
	*frames = 0;
	*named = 0;
	*wrong = 0;
	for (i = 0; s && i < s->nr; i++) {
		const char *name = s->frames[i].name;

		for (k = 0; k < NLIBS; k++)
			if (!strcmp(name, paths[k]))
				break;
		if (k < NLIBS)
			seen[k] = true;
		else if (name[0] == '/')
			(*wrong)++;
	}
	for (k = 0; k < NLIBS; k++)
		*named += seen[k];
	if (s)
		*frames = s->nr;
	ftu_trace_free(&t);
	free(text);
	ftu_write_quiet(in->dir, "events/syscalls/sys_enter_getppid/trigger",
			"!stacktrace:user");
	return s ? 0 : -1;
}

static void layout(const char *lib, const char *name, unsigned int depth,
		   unsigned int min_named)
{
	unsigned int frames, named, wrong;
	struct ftu_instance in;
	struct hop fns[NLIBS];
	double with, without;
	char trig[64];

	if (make_libs(lib, name, depth, fns))
		ksft_exit_fail_msg("cannot make the libraries\n");
	ksft_print_msg("%s: %d libraries, paths of %zu bytes, chains %d deep\n",
		       name, NLIBS, strlen(paths[0]), DEPTH);
	if (ftu_instance_create(&in, "sframe_ftrace_deep"))
		ksft_exit_fail_msg("no instance\n");

	if (one_stack(&in, fns, &frames, &named, &wrong))
		ksft_exit_fail_msg("no stack\n");
	ksft_print_msg("%s: a stack of %u frames names %u of the %d files (%u other files)\n",
		       name, frames, named, NLIBS, wrong);
	ksft_test_result(frames >= NLIBS && named >= min_named && !wrong,
			 "%s: the stack names the files\n", name);

	snprintf(trig, sizeof(trig), "stacktrace:user if common_pid == %d",
		 getpid());
	if (ftu_write(in.dir, "events/syscalls/sys_enter_getppid/trigger",
		      trig))
		ksft_exit_fail_msg("cannot set the trigger\n");
	with = chains_per_s(fns);
	ftu_write(in.dir, "events/syscalls/sys_enter_getppid/trigger",
		  "!stacktrace:user");
	without = chains_per_s(fns);
	ksft_print_msg("%s: %.1f chains/s with the trigger, %.1f without: %.3f ms per stack\n",
		       name, with, without, 1e3 / with - 1e3 / without);
	ftu_instance_remove(&in);
}

int main(void)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n;

	ksft_print_header();
	ksft_set_plan(2);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		ksft_exit_fail_msg("readlink: %s\n", strerror(errno));
	exe[n] = '\0';
	snprintf(lib, sizeof(lib), "%s/libftrace_hop.so", dirname(exe));

	/* All names fit: all of them must be there */
	layout(lib, "short", 4, NLIBS);
	/* No name fits: the most work per frame */
	layout(lib, "long", 202, 0);
	ksft_finished();
}
