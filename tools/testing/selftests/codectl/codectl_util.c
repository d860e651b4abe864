// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the codectl(2) selftests.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "codectl_util.h"

extern char **environ;

/* Program headers as ld.so hands them out: glibc's const ElfW(Phdr) *. */
#define ct_phdrs	__typeof__(((struct dl_phdr_info *)0)->dlpi_phdr)

/* An ELF note header: namesz, descsz, type. */
#define CT_NHDR_SIZE	12

/**
 * ct_codectl() - Call codectl(2)
 * @option: CODECTL_* option
 * @info: its argument
 * @size: the size passed for it
 * @flags: the flags argument
 *
 * Return: 0 on success, else the errno the call set.
 */
int ct_codectl(unsigned int option, const void *info, size_t size,
	       unsigned int flags)
{
	long ret;

	errno = 0;
	ret = syscall(__NR_codectl, option, info, size, flags);
	if (!ret)
		return 0;
	if (ret == -1 && errno)
		return errno;
	/* Nothing but 0 and -1 is a valid result: a protocol error. */
	ksft_print_msg("codectl() returned %ld\n", ret);
	errno = EPROTO;
	return errno;
}

/**
 * ct_register() - CODECTL_REGISTER_SFRAME with the whole structure
 * @arg: the registration
 *
 * Return: 0 or the errno.
 */
int ct_register(const struct codectl_sframe *arg)
{
	return ct_codectl(CODECTL_REGISTER_SFRAME, arg, sizeof(*arg), 0);
}

/**
 * ct_unregister() - CODECTL_UNREGISTER of one text range
 * @text_start: its key
 *
 * Return: 0 or the errno.
 */
int ct_unregister(unsigned long text_start)
{
	struct codectl_unregister arg = { .text_start = text_start };

	return ct_codectl(CODECTL_UNREGISTER, &arg, sizeof(arg), 0);
}

/* Parse one line; false if it does not have the documented format. */
static bool parse_line(char *s, struct ct_line *l)
{
	char *tok, *save = NULL;
	int n = 0;

	memset(l, 0, sizeof(*l));
	s[strcspn(s, "\n")] = '\0';
	/* A JIT registration (CODECTL_REGISTER_JIT) says "jit": version 0 */
	if ((sscanf(s, "%lx-%lx %lx-%lx v%u %15s %15s%n", &l->text_start,
		    &l->text_end, &l->sframe_start, &l->sframe_end,
		    &l->version, l->source, l->state, &n) != 7 || !n) &&
	    (sscanf(s, "%lx-%lx %lx-%lx jit %15s %15s%n", &l->text_start,
		    &l->text_end, &l->sframe_start, &l->sframe_end,
		    l->source, l->state, &n) != 6 || !n))
		return false;
	if (strcmp(l->source, "exec") && strcmp(l->source, "codectl"))
		return false;
	if (strcmp(l->state, "ok") && strcmp(l->state, "bad"))
		return false;
	for (tok = strtok_r(s + n, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		/* sframe-addr= comes first, then build-id=, then the path */
		if (!strncmp(tok, "sframe-addr=", 12) && !l->sframe_addr &&
		    !l->build_id[0] && !l->path[0]) {
			char *end;

			l->sframe_addr = strtoul(tok + 12, &end, 16);
			if (*end || !l->sframe_addr ||
			    l->sframe_addr == l->sframe_start)
				return false;
			continue;
		}
		if (!strncmp(tok, "build-id=", 9) && !l->build_id[0] &&
		    !l->path[0]) {
			/* No longer than the longest build ID, in hex */
			if (strlen(tok + 9) >= sizeof(l->build_id))
				return false;
			strcpy(l->build_id, tok + 9);
			continue;
		}
		/* The path is last; escaped, so it has no spaces. */
		if (l->path[0] || strlen(tok) >= sizeof(l->path))
			return false;
		strcpy(l->path, tok);
	}
	return true;
}

/**
 * ct_sframe_lines_of() - Read and check /proc/<pid>/sframe
 * @pid: the process, 0 for this one
 * @text_start: the registration to look for, or 0 for any
 * @found: receives its line (with @text_start 0, the last line counted), if
 *	   not NULL
 * @nfound: receives the number of lines of @text_start, if not NULL
 * @source: count only lines of this source ("exec", "codectl"), or NULL
 *
 * Return: the number of (matching) lines, or -1 after printing why: the
 * file is missing or a line has not the documented format.
 */
int ct_sframe_lines_of(pid_t pid, unsigned long text_start,
		       struct ct_line *found, int *nfound, const char *source)
{
	static struct ct_line l;
	char *buf = NULL, name[64];
	size_t cap = 0;
	int count = 0;
	FILE *f;

	if (nfound)
		*nfound = 0;
	if (pid)
		snprintf(name, sizeof(name), "/proc/%d/sframe", (int)pid);
	else
		snprintf(name, sizeof(name), "/proc/self/sframe");
	f = fopen(name, "re");
	if (!f) {
		ksft_print_msg("%s: %s\n", name, strerror(errno));
		return -1;
	}
	while (getline(&buf, &cap, f) > 0) {
		if (!parse_line(buf, &l)) {
			ksft_print_msg("%s: bad line '%.200s'\n", name, buf);
			count = -1;
			break;
		}
		if (source && strcmp(l.source, source))
			continue;
		count++;
		if (!text_start || l.text_start == text_start) {
			if (found)
				*found = l;
			if (nfound)
				(*nfound)++;
		}
	}
	free(buf);
	fclose(f);
	return count;
}

/**
 * ct_sframe_all_of() - Read all lines of /proc/<pid>/sframe at once
 * @pid: the process, 0 for this one
 * @lines: receives the lines, in the file's (address) order
 * @max: room in @lines
 *
 * Return: the number of lines (more than @max if they did not all fit), or
 * -1 after printing why.
 */
int ct_sframe_all_of(pid_t pid, struct ct_line *lines, int max)
{
	static struct ct_line l;
	char *buf = NULL, name[64];
	size_t cap = 0;
	int count = 0;
	FILE *f;

	if (pid)
		snprintf(name, sizeof(name), "/proc/%d/sframe", (int)pid);
	else
		snprintf(name, sizeof(name), "/proc/self/sframe");
	f = fopen(name, "re");
	if (!f) {
		ksft_print_msg("%s: %s\n", name, strerror(errno));
		return -1;
	}
	while (getline(&buf, &cap, f) > 0) {
		if (!parse_line(buf, &l)) {
			ksft_print_msg("%s: bad line '%.200s'\n", name, buf);
			count = -1;
			break;
		}
		if (count < max)
			lines[count] = l;
		count++;
	}
	free(buf);
	fclose(f);
	return count;
}

/**
 * ct_sframe_all() - Read all lines of /proc/self/sframe at once
 * @lines: receives the lines, in the file's (address) order
 * @max: room in @lines
 *
 * Return: the number of lines (more than @max if they did not all fit), or
 * -1 after printing why.
 */
int ct_sframe_all(struct ct_line *lines, int max)
{
	return ct_sframe_all_of(0, lines, max);
}

/**
 * ct_sframe_lines() - Read and check /proc/self/sframe
 * @text_start: the registration to look for, or 0 for any
 * @found: receives its line, see ct_sframe_lines_of()
 * @nfound: receives the number of lines of @text_start, if not NULL
 * @source: count only lines of this source ("exec", "codectl"), or NULL
 *
 * Return: the number of (matching) lines, or -1 after printing why.
 */
int ct_sframe_lines(unsigned long text_start, struct ct_line *found,
		    int *nfound, const char *source)
{
	return ct_sframe_lines_of(0, text_start, found, nfound, source);
}

/**
 * ct_drop_exec() - Unregister the registrations made at exec
 *
 * For the tests that need every one of the SFRAME_MAX_SECTIONS slots.
 *
 * Return: how many were removed, or -1 after printing why.
 */
int ct_drop_exec(void)
{
	struct ct_line l;
	int n, ret, done = 0;

	while ((n = ct_sframe_lines(0, &l, NULL, "exec")) > 0) {
		ret = ct_unregister(l.text_start);
		if (ret) {
			ksft_print_msg("unregister of %#lx, made at exec: %s\n",
				       l.text_start, strerror(ret));
			return -1;
		}
		done++;
	}
	return n < 0 ? -1 : done;
}

/**
 * ct_escape() - A path as /proc/<pid>/sframe shows it
 * @buf: receives it
 * @len: size of @buf
 * @path: the path
 *
 * Space, tab, newline and backslash become octal escapes (\040, \011,
 * \012, \134); every other byte is shown as it is.
 */
void ct_escape(char *buf, size_t len, const char *path)
{
	size_t o = 0;

	for (; *path && o + 4 < len; path++) {
		if (strchr(" \t\n\\", *path))
			o += snprintf(buf + o, len - o, "\\%03o",
				      (unsigned char)*path);
		else
			buf[o++] = *path;
	}
	buf[o] = '\0';
}

/**
 * ct_sframe_dump() - Print /proc/self/sframe as diagnostics
 */
void ct_sframe_dump(void)
{
	char line[PATH_MAX + 256];
	FILE *f;

	f = fopen("/proc/self/sframe", "re");
	if (!f)
		return;
	ksft_print_msg("/proc/self/sframe:\n");
	while (fgets(line, sizeof(line), f))
		ksft_print_msg("  %s", line);
	fclose(f);
}

/* Is [vaddr, vaddr + size) in the file-backed part of a PT_LOAD? */
static bool loaded(ct_phdrs phdr, unsigned int phnum, unsigned long vaddr,
		   unsigned long size)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		ct_phdrs p = &phdr[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
		    vaddr - p->p_vaddr <= p->p_filesz &&
		    size <= p->p_filesz - (vaddr - p->p_vaddr))
			return true;
	}
	return false;
}

static void find_build_id(unsigned long bias, ct_phdrs phdr,
			  unsigned int phnum, struct ct_object *obj)
{
	unsigned int i;

	for (i = 0; i < phnum; i++) {
		const unsigned char *pos, *end;

		if (phdr[i].p_type != PT_NOTE ||
		    !loaded(phdr, phnum, phdr[i].p_vaddr, phdr[i].p_filesz))
			continue;
		pos = (const unsigned char *)(bias + phdr[i].p_vaddr);
		end = pos + phdr[i].p_filesz;
		while (end - pos >= CT_NHDR_SIZE) {
			size_t name, desc, left = end - pos - CT_NHDR_SIZE;
			__u32 n[3];

			memcpy(n, pos, sizeof(n));
			name = (n[0] + 3UL) & ~3UL;
			desc = (n[1] + 3UL) & ~3UL;
			if (name > left || desc > left - name)
				break;
			if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 &&
			    !memcmp(pos + CT_NHDR_SIZE, "GNU", 4)) {
				obj->build_id_note_len = n[1];
				if (n[1] > CODECTL_BUILD_ID_MAX)
					return;
				memcpy(obj->build_id, pos + CT_NHDR_SIZE + name,
				       n[1]);
				obj->build_id_len = n[1];
				return;
			}
			pos += CT_NHDR_SIZE + name + desc;
		}
	}
}

static int fill_object(unsigned long bias, ct_phdrs phdr, unsigned int phnum,
		       struct ct_object *obj)
{
	unsigned int i;

	memset(obj, 0, sizeof(*obj));
	for (i = 0; i < phnum; i++) {
		ct_phdrs p = &phdr[i];

		if (p->p_type == PT_GNU_SFRAME) {
			obj->sframe_start = bias + p->p_vaddr;
			obj->sframe_end = obj->sframe_start + p->p_memsz;
		}
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		if (obj->ntext == CT_MAX_TEXT) {
			ksft_print_msg("more than %d executable segments\n",
				       CT_MAX_TEXT);
			return -1;
		}
		obj->text_start[obj->ntext] = bias + p->p_vaddr;
		obj->text_end[obj->ntext] = bias + p->p_vaddr + p->p_memsz;
		obj->ntext++;
	}
	find_build_id(bias, phdr, phnum, obj);
	return 0;
}

static int self_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ct_object *obj = data;

	(void)size;
	/* The first object is the program itself. */
	if (fill_object(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum,
			obj))
		return -1;
	return 1;
}

/**
 * ct_self_object() - Describe the running program's text and SFrame
 * @obj: receives the description
 *
 * Return: 0, or -1 after printing why.
 */
int ct_self_object(struct ct_object *obj)
{
	if (dl_iterate_phdr(self_cb, obj) != 1)
		return -1;
	if (!obj->ntext) {
		ksft_print_msg("the program has no executable segment\n");
		return -1;
	}
	return 0;
}

/**
 * ct_dl_object() - Describe the text and SFrame of a dlopen()ed object
 * @handle: what dlopen() returned
 * @obj: receives the description
 *
 * Return: 0, or -1 after printing why.
 */
int ct_dl_object(void *handle, struct ct_object *obj)
{
	struct link_map *map;
	ct_phdrs phdr;
	int phnum;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &map)) {
		ksft_print_msg("dlinfo(RTLD_DI_LINKMAP): %s\n", dlerror());
		return -1;
	}
	phnum = dlinfo(handle, RTLD_DI_PHDR, &phdr);
	if (phnum <= 0) {
		ksft_print_msg("dlinfo(RTLD_DI_PHDR): %s\n", dlerror());
		return -1;
	}
	return fill_object(map->l_addr, phdr, phnum, obj);
}

/**
 * ct_exe_dir() - The directory of the running program
 * @buf: receives it
 * @len: size of @buf
 *
 * Return: 0, or -1 after printing why.
 */
int ct_exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0) {
		ksft_print_msg("readlink(/proc/self/exe): %s\n",
			       strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash) {
		ksft_print_msg("/proc/self/exe is '%s'\n", buf);
		return -1;
	}
	*slash = '\0';
	return 0;
}

static char *read_fd(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return NULL;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	return buf;
}

/**
 * ct_run_self() - Run this program again, as a child, and wait for it
 * @argv: its arguments, argv[0] first
 * @env: "NAME=value" to add to the environment, or NULL
 * @timeout_s: seconds it may take
 * @err_out: receives its standard error output, if not NULL
 *
 * Return: the child's exit status, or -1 after printing why.
 */
int ct_run_self(char *const argv[], const char *env, int timeout_s,
		char **err_out)
{
	return ct_run("/proc/self/exe", argv, env, timeout_s, err_out);
}

static int interp_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const char **interp = data;
	unsigned int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			*interp = (const char *)(info->dlpi_addr +
						 info->dlpi_phdr[i].p_vaddr);
	return 1;
}

/**
 * ct_interp() - The program interpreter of the running program
 *
 * Return: its path from PT_INTERP, or NULL.
 */
const char *ct_interp(void)
{
	const char *interp = NULL;

	dl_iterate_phdr(interp_cb, &interp);
	return interp;
}

/**
 * ct_run() - Run a program as a child and wait for it
 * @path: the program
 * @argv: its arguments, argv[0] first
 * @env: "NAME=value" to add to the environment, or NULL
 * @timeout_s: seconds it may take
 * @err_out: receives its standard error output, if not NULL
 *
 * Return: the child's exit status, or -1 after printing why.
 */
int ct_run(const char *path, char *const argv[], const char *env,
	   int timeout_s, char **err_out)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	int errfd = -1, status, waited_ms = 0;
	size_t nenv = 0, i;
	char **envp;
	pid_t pid, w;

	while (environ[nenv])
		nenv++;
	envp = calloc(nenv + 2, sizeof(*envp));
	if (!envp)
		return -1;
	for (i = 0; i < nenv; i++)
		envp[i] = environ[i];
	envp[nenv] = (char *)env;

	if (err_out) {
		*err_out = NULL;
		errfd = memfd_create("child-stderr", MFD_CLOEXEC);
		if (errfd < 0) {
			ksft_print_msg("memfd_create: %s\n", strerror(errno));
			free(envp);
			return -1;
		}
	}

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		free(envp);
		return -1;
	}
	if (!pid) {
		if (errfd >= 0 && dup2(errfd, STDERR_FILENO) < 0)
			_exit(126);
		execve(path, argv, envp);
		fprintf(stderr, "execve(%s): %s\n", path, strerror(errno));
		_exit(127);
	}
	free(envp);

	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0) {
			ksft_print_msg("waitpid: %s\n", strerror(errno));
			return -1;
		}
		if (waited_ms >= timeout_s * 1000) {
			ksft_print_msg("child %s %s: no exit after %d s, killed\n",
				       argv[0], argv[1] ? argv[1] : "",
				       timeout_s);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		nanosleep(&tick, NULL);
		waited_ms += 10;
	}

	if (errfd >= 0) {
		*err_out = read_fd(errfd);
		close(errfd);
	}
	if (WIFSIGNALED(status)) {
		ksft_print_msg("child %s %s: killed by signal %d\n", argv[0],
			       argv[1] ? argv[1] : "", WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}

/**
 * ct_hex() - Format bytes as lower-case hex
 * @buf: receives 2 * @len digits and a NUL
 * @p: the bytes
 * @len: their number
 */
void ct_hex(char *buf, const unsigned char *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	buf[2 * len] = '\0';
}
