// SPDX-License-Identifier: GPL-2.0
/*
 * audit_test: the program audit.sh runs under sframe-audit.so, and the
 * helpers that put it in the situations the tests need.
 *
 *   audit_test
 *	The audited program: prints "ran ctty=yes|no" (whether it has a
 *	controlling terminal) and exits 0.
 *   audit_test pty LINK CMD...
 *	Makes LINK a symbolic link to a new pseudo-terminal, runs CMD in a
 *	new session (no controlling terminal) and exits with its status.
 *   audit_test shrink SIDECAR SIZE CMD...
 *	Runs CMD (whose leading NAME=VALUE words go to its environment, here
 *	and for pty) traced: once CMD has opened SIDECAR (that very path) and
 *	fstat()ed it, truncates the file to SIZE bytes, before CMD reads it.
 *	Prints "truncated" if it did, and how CMD ended; exits 0 if it did
 *	and CMD exited 0.
 *   audit_test secure AUDIT_SO
 *	Loads AUDIT_SO with dlopen() and calls its la_version() and
 *	la_objopen() for this program, as ld.so would: run as a setgid copy,
 *	in a secure-execution process.  Prints "secure=N" (AT_SECURE).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

static int run(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY);

	printf("ran ctty=%s\n", fd >= 0 ? "yes" : "no");
	return 0;
}

/* Run CMD: its leading NAME=VALUE words go to its environment. */
static void exec_cmd(char **cmd)
{
	for (; *cmd && strchr(*cmd, '=') && **cmd != '/'; cmd++)
		putenv(*cmd);
	if (*cmd)
		execvp(cmd[0], cmd);
	_exit(127);
}

static int status_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "audit_test: ended by signal %d\n", WTERMSIG(st));
	return 128 + WTERMSIG(st);
}

static int pty(const char *link, char **cmd)
{
	int master, st;
	pid_t pid;
	char *name;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	name = master < 0 || grantpt(master) || unlockpt(master) ? NULL :
	       ptsname(master);
	if (!name) {
		perror("audit_test: a pseudo-terminal");
		return 2;
	}
	if (symlink(name, link)) {
		perror(link);
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		close(master);
		if (setsid() < 0)
			_exit(126);
		exec_cmd(cmd);
	}
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 2;
	}
	return status_of(st);
}

/* The NUL-terminated string at @addr in @pid, at most @len bytes */
static bool read_str(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	struct iovec local = { buf, len - 1 }, remote = { (void *)addr, len - 1 };
	ssize_t n;

	/* A read across the end of its mapping stops short: fine. */
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Does the system call stat the descriptor @fd? */
static bool is_fstat(const struct __ptrace_syscall_info *e, long fd)
{
	if (fd < 0 || (long)e->entry.args[0] != fd)
		return false;
	switch (e->entry.nr) {
#ifdef __NR_fstat
	case __NR_fstat:
		return true;
#endif
#ifdef __NR_newfstatat
	case __NR_newfstatat:
		return e->entry.args[3] & AT_EMPTY_PATH;
#endif
	case __NR_statx:
		return e->entry.args[2] & AT_EMPTY_PATH;
	}
	return false;
}

static int shrink(const char *sidecar, off_t size, char **cmd)
{
	struct __ptrace_syscall_info info, entry = { 0 };
	bool truncated = false;
	int st, sig = 0;
	long fd = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		exec_cmd(cmd);
	}
	/* The stop at exec */
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))) {
		perror("audit_test: trace");
		kill(pid, SIGKILL);
		return 2;
	}
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			break;
		sig = 0;
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st);	/* its own: pass it on */
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info),
			   &info) <= 0) {
			perror("PTRACE_GET_SYSCALL_INFO");
			kill(pid, SIGKILL);
			break;
		}
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
			entry = info;
			continue;
		}
		if (info.op != PTRACE_SYSCALL_INFO_EXIT || truncated)
			continue;
		if (entry.entry.nr == __NR_openat && !info.exit.is_error) {
			char path[4096];

			if (read_str(pid, entry.entry.args[1], path,
				     sizeof(path)) && !strcmp(path, sidecar))
				fd = info.exit.rval;
			continue;
		}
		if (is_fstat(&entry, fd) && !info.exit.is_error) {
			if (truncate(sidecar, size)) {
				perror(sidecar);
				kill(pid, SIGKILL);
				break;
			}
			truncated = true;
			printf("truncated %s to %lld bytes after its fstat()\n",
			       sidecar, (long long)size);
			fflush(stdout);
		}
	}
	while (waitpid(pid, &st, 0) == pid && !WIFEXITED(st) &&
	       !WIFSIGNALED(st))
		;
	if (WIFSIGNALED(st))
		printf("ended by signal %d (%s)\n", WTERMSIG(st),
		       strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st))
		printf("exited %d\n", WEXITSTATUS(st));
	return truncated && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

/* The module's entry points, as ld.so calls them */
typedef unsigned int (*la_version_fn)(unsigned int version);
typedef unsigned int (*la_objopen_fn)(struct link_map *map, Lmid_t lmid,
				      uintptr_t *cookie);

static int secure(const char *audit_so)
{
	la_version_fn version;
	la_objopen_fn objopen;
	struct link_map *lm;
	uintptr_t cookie = 0;
	void *h, *self;

	printf("%s=%lu\n", __func__, getauxval(AT_SECURE));
	fflush(stdout);
	h = dlopen(audit_so, RTLD_NOW);
	self = dlopen(NULL, RTLD_NOW);
	if (!h || !self || dlinfo(self, RTLD_DI_LINKMAP, &lm)) {
		printf("dlopen: %s\n", dlerror());
		return 2;
	}
	version = (la_version_fn)dlsym(h, "la_version");
	objopen = (la_objopen_fn)dlsym(h, "la_objopen");
	if (!version || !objopen) {
		printf("dlsym: %s\n", dlerror());
		return 2;
	}
	version(LAV_CURRENT);
	objopen(lm, LM_ID_BASE, &cookie);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return run();
	if (argc > 3 && !strcmp(argv[1], "pty"))
		return pty(argv[2], argv + 3);
	if (argc > 4 && !strcmp(argv[1], "shrink"))
		return shrink(argv[2], atol(argv[3]), argv + 4);
	if (argc == 3 && !strcmp(argv[1], "secure"))
		return secure(argv[2]);
	fprintf(stderr, "usage: audit_test [pty LINK CMD... | %s | %s]\n",
		"shrink SIDECAR SIZE CMD...", "secure AUDIT_SO");
	return 2;
}
