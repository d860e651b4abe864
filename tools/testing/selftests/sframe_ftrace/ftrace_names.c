// SPDX-License-Identifier: GPL-2.0
/*
 * File names in stacktrace:user stacks cannot forge trace lines.
 *
 * A copy of this program, at a path whose file name holds newlines and
 * what would look like frame lines after them, makes a system call with a
 * stacktrace:user trigger: its first frame is in that file.  The trace must
 * show the name escaped as /proc/<pid>/maps does ("\012" for a newline),
 * with no line of its own for what follows the newline, and so must the
 * record that the raw pages hold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "ftrace_util.h"

#define DIR		"/tmp/sframe_ftrace_names"
#define EVIL		"evil\n => forged+0x1234\n"
#define EVIL_ESCAPED	"evil\\012 => forged+0x1234\\012"

/* getppid() from here, so that the first frame is in this file */
static long leaf(void)
{
	long ret;

#if defined(__x86_64__)
	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 asm("x8") = SYS_getppid;
	register long x0 asm("x0");

	asm volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	ret = x0;
#else
	ret = syscall(SYS_getppid);
#endif
	return ret;
}

/* The frames of @pid's stacks in @t that are in @name; all frames in @n */
static unsigned int frames_in(const struct ftu_trace *t, int pid,
			      const char *name, unsigned int *n,
			      unsigned int *forged)
{
	unsigned int i, j, found = 0;

	*n = 0;
	*forged = 0;
	for (i = 0; i < t->nstacks; i++) {
		if (t->stacks[i].pid != pid)
			continue;
		for (j = 0; j < t->stacks[i].nr; j++) {
			const char *f = t->stacks[i].frames[j].name;

			(*n)++;
			if (!strcmp(f, name))
				found++;
			if (!strcmp(f, "forged"))
				(*forged)++;
		}
	}
	return found;
}

int main(int argc, char **argv)
{
	unsigned int n, forged, in_file;
	struct ftu_instance in;
	int go[2], status;
	struct ftu_trace t;
	char trig[128];
	char *text;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--leaf")) {
		char c;

		/*
		 * A name of its own: the task's comm is its file's name
		 * otherwise, and the trace's lines show comms as they are.
		 */
		prctl(PR_SET_NAME, "ftrace_names");
		/* Wait for the trigger, then the system call */
		if (read(atoi(argv[2]), &c, 1) != 1)
			return 1;
		leaf();
		return 0;
	}

	ksft_print_header();
	ksft_set_plan(2);

	mkdir(DIR, 0755);
	if (ftu_copy_file("/proc/self/exe", DIR "/" EVIL))
		ksft_exit_fail_msg("cannot copy the program to a name with newlines\n");
	if (ftu_instance_create(&in, "sframe_ftrace_names"))
		ksft_exit_fail_msg("no instance\n");
	if (pipe(go))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));

	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", go[0]);
		execl(DIR "/" EVIL, "ftrace_names", "--leaf", fd, NULL);
		_exit(127);
	}
	snprintf(trig, sizeof(trig), "stacktrace:user if common_pid == %d",
		 pid);
	if (ftu_write(in.dir, "events/syscalls/sys_enter_getppid/trigger",
		      trig))
		ksft_exit_fail_msg("cannot set the trigger\n");
	if (write(go[1], "g", 1) != 1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		ksft_exit_fail_msg("the copy did not run\n");

	/* The trace file: the name escaped, no forged frame line */
	text = ftu_read(in.dir, "trace", NULL);
	if (!text || ftu_parse(text, &t))
		ksft_exit_fail_msg("cannot read the trace\n");
	in_file = frames_in(&t, pid, DIR "/" EVIL_ESCAPED, &n, &forged);
	ksft_print_msg("trace: %u frames of task %d, %u in the file, %u forged, %u bad lines\n",
		       n, pid, in_file, forged, t.bad_lines);
	if (!in_file || forged)
		ksft_print_msg("trace:\n%s", text);
	ksft_test_result(in_file && !forged && !t.bad_lines,
			 "trace: the file name escaped, no forged line\n");
	ftu_trace_free(&t);
	free(text);

	/* The record itself, as a reader of the raw pages finds it */
	if (ftu_raw_stacks(in.dir, &t))
		ksft_exit_fail_msg("cannot decode the raw pages\n");
	in_file = frames_in(&t, pid, DIR "/" EVIL_ESCAPED, &n, &forged);
	ksft_print_msg("raw pages: %u frames of task %d, %u in the file\n",
		       n, pid, in_file);
	ksft_test_result(in_file && !forged,
			 "raw record: the file name escaped\n");
	ftu_trace_free(&t);

	ftu_instance_remove(&in);
	unlink(DIR "/" EVIL);
	rmdir(DIR);
	ksft_finished();
}
