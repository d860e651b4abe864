/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the codectl(2) selftests: the system call, /proc/<pid>/sframe,
 * program headers of loaded objects, and child processes.
 */
#ifndef CODECTL_UTIL_H
#define CODECTL_UTIL_H

#include <assert.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/codectl.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/* The documented limit of registrations per process (SFRAME_MAX_SECTIONS). */
#define CT_MAX_SECTIONS	1024

/*
 * The documented ABI: struct codectl_sframe is CODECTL_SFRAME_SIZE_VER2 (64)
 * bytes, 56 (CODECTL_SFRAME_SIZE_VER1) without sframe_addr, the longest
 * build ID CODECTL_BUILD_ID_MAX (20).  The tests use the documented values;
 * the header must agree with them.
 */
#define CT_SFRAME_SIZE_VER1	56
#define CT_SFRAME_SIZE_VER2	64
#define CT_BUILD_ID_MAX		20
static_assert(sizeof(struct codectl_sframe) == CT_SFRAME_SIZE_VER2 &&
	      sizeof(struct codectl_sframe) == CODECTL_SFRAME_SIZE_VER2,
	      "struct codectl_sframe is not the documented 64 bytes");
static_assert(offsetof(struct codectl_sframe, sframe_addr) ==
	      CT_SFRAME_SIZE_VER1 &&
	      offsetof(struct codectl_sframe, sframe_addr) ==
	      CODECTL_SFRAME_SIZE_VER1,
	      "sframe_addr is not at the documented offset 56");
static_assert(CODECTL_BUILD_ID_MAX == CT_BUILD_ID_MAX,
	      "CODECTL_BUILD_ID_MAX is not the documented 20");

/* The i386 system call number of codectl(), for int $0x80. */
#define CT_NR_CODECTL_I386	473

/* The longest line of /proc/<pid>/sframe a path of PATH_MAX bytes makes */
#define CT_PATH_SHOWN_MAX	(4 * PATH_MAX)

/* The audit module, installed next to the tests. */
#define CT_AUDIT_SO	"sframe-audit.so"

/* The --gsframe library of the dlopen and stack tests. */
#define CT_LIB_SO	"libcodectl_chain.so"

/* codectl() as the kernel sees it.  Returns 0, or the errno it set. */
int ct_codectl(unsigned int option, const void *info, size_t size,
	       unsigned int flags);
int ct_register(const struct codectl_sframe *arg);
int ct_unregister(unsigned long text_start);

/* One line of /proc/<pid>/sframe. */
struct ct_line {
	unsigned long text_start, text_end;
	unsigned long sframe_start, sframe_end;
	unsigned int version;		/* 0 for a JIT registration ("jit") */
	char source[16];		/* "exec" or "codectl" */
	char state[16];			/* "ok" or "bad" */
	unsigned long sframe_addr;	/* sframe-addr=, or 0 if not shown */
	char build_id[2 * CODECTL_BUILD_ID_MAX + 1];	/* hex, or "" */
	char path[CT_PATH_SHOWN_MAX + 1];	/* as shown, or "" */
};

/*
 * Read /proc/self/sframe: the number of lines, or -1 after printing why.
 * The line of the registration at @text_start goes to @found (and *@nfound
 * counts such lines); with @text_start 0, every line is such a line, and
 * @found gets the last.  @source, if not NULL, counts only lines of that
 * source.
 */
int ct_sframe_lines(unsigned long text_start, struct ct_line *found,
		    int *nfound, const char *source);
/* The same for /proc/@pid/sframe. */
int ct_sframe_lines_of(pid_t pid, unsigned long text_start,
		       struct ct_line *found, int *nfound, const char *source);

/* All lines of /proc/self/sframe, into @lines (room for @max). */
int ct_sframe_all(struct ct_line *lines, int max);
/* The same for /proc/@pid/sframe. */
int ct_sframe_all_of(pid_t pid, struct ct_line *lines, int max);

/* Unregister every registration made at exec.  Returns how many, or -1. */
int ct_drop_exec(void);

/*
 * @path as /proc/<pid>/sframe shows it: space, tab, newline and backslash
 * as \ooo, into @buf of @len bytes (at most 4 * strlen(@path) + 1 needed).
 */
void ct_escape(char *buf, size_t len, const char *path);

/* Print /proc/self/sframe, as diagnostics. */
void ct_sframe_dump(void);

/*
 * The executable PT_LOAD segments and the PT_GNU_SFRAME segment of a
 * loaded object, at run time.
 */
#define CT_MAX_TEXT	8

struct ct_object {
	unsigned long sframe_start, sframe_end;	/* 0 if none */
	unsigned int ntext;
	unsigned long text_start[CT_MAX_TEXT], text_end[CT_MAX_TEXT];
	unsigned char build_id[CODECTL_BUILD_ID_MAX];
	unsigned int build_id_len;	/* 0 if none or too long */
	unsigned int build_id_note_len;	/* the note's length, even if too long */
};

/* The running program itself.  Returns 0, or -1 after printing why. */
int ct_self_object(struct ct_object *obj);
/* An object dlopen() returned.  Returns 0, or -1 after printing why. */
int ct_dl_object(void *handle, struct ct_object *obj);

/* The directory of /proc/self/exe, where the test's files are. */
int ct_exe_dir(char *buf, size_t len);

/*
 * Run /proc/self/exe with @argv[1..] (argv[0] is its name), with the
 * environment variable @env ("NAME=value", or NULL) added, and wait at most
 * @timeout_s seconds.  @err_out, when not NULL, gets what the child wrote on
 * its standard error (malloc()ed, NUL-terminated).  Returns its exit status
 * (0-255), or -1 after printing why (killed, timed out, not started).
 */
int ct_run_self(char *const argv[], const char *env, int timeout_s,
		char **err_out);
/* The same for the program at @path. */
int ct_run(const char *path, char *const argv[], const char *env,
	   int timeout_s, char **err_out);

/* The path of the program's interpreter (PT_INTERP), or NULL. */
const char *ct_interp(void);

/* Hex string of @len bytes at @p, into @buf of at least 2 * @len + 1. */
void ct_hex(char *buf, const unsigned char *p, unsigned int len);

/*
 * Keep the tracepoint @tp (syscalls:sys_enter_getppid) on for the rest of
 * the process, and check that it fires.  Returns the event's file
 * descriptor, or -1 after printing why.
 */

#endif /* CODECTL_UTIL_H */
