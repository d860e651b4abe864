// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame sidecars of the stock C library, registered by sframe-audit.so.
 *
 * The chain program (codectl_sidecar_chain.c), built with -O2
 * -fomit-frame-pointer, calls through the C library -- qsort() and
 * bsearch() callbacks put its frames in the middle of the stack, write() on
 * top -- and samples its write() with a perf event whose user callchain the
 * kernel unwinds, deferred.  The C library and ld.so have no SFrame
 * section; sframe-gen made sidecars of them when the tests were built:
 * sidecars-v2 (binutils 2.44, SFrame V2) and sidecars-v3 (binutils 2.47,
 * V3), next to this program, which the module finds through
 * SFRAME_SIDECAR_PREFIX.
 *
 * The truth is the chain's own DWARF unwind: this program traces the chain
 * (ptrace), stops it at the entry of that write(), and unwinds it there
 * with libdw, from the CFI of each object, to _start.  The stack the kernel
 * took must be that one, frame by frame, address by address: with V2
 * sidecars, with V3 ones, and for a copy of the program built without
 * SFrame that has a sidecar of its own.  Without sidecars it must stop
 * short, which proves that they matter.  /proc/<pid>/sframe must show the
 * sidecars' registrations (sframe-addr=).  At exit, after ld.so closed
 * every object, the chain samples one more write(), from the C library's
 * flush of its streams: the sidecars must still be registered, and that
 * stack must end in the frames the DWARF unwind ended in, __libc_start_main
 * and _start.
 *
 * On x86-64, codectl_sidecar_lazy takes a stack inside ld.so's
 * lazy-binding trampoline, which realigns the stack with its CFA in rbx:
 * with V3 sidecars it must be whole (see test_lazy()).
 *
 * Hostile sidecars of the C library, made here from the good one: a
 * truncated file, another build ID, another text note, another machine --
 * the module ignores them and says why (SFRAME_AUDIT_DEBUG=1); an SFrame
 * header for AArch64, and a section address beyond user space -- the
 * kernel refuses them (ENOEXEC, EINVAL); functions moved out of the text --
 * registered and harmless: they describe nothing, the registration stays
 * "ok", the chain runs, and its stack stops at the C library as without a
 * sidecar.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "codectl_sidecar.h"
#include "codectl_util.h"

#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif

#define SC_TIMEOUT	120	/* seconds a run may take */
#define SC_MAX_LINES	64	/* of /proc/<pid>/sframe */
#define SC_MIN_FRAMES	10	/* the chain has more */

/* The chain's own functions, from its system call down */
static const char * const chain_funcs[] = {
	"sc_leaf", "sc_key_cmp", "sc_find", "sc_cmp", "sc_sort", "main",
	"_start",
};

/* Where a frame is: the C library, the program, or elsewhere */
enum where { IN_LIBC = 'c', IN_PROG = 'p', IN_OTHER = '?' };

/**
 * struct run - one run of the chain program, traced
 * @nr:		frames of the stack the kernel took
 * @ips:	its addresses, innermost first
 * @ndw:	frames of the DWARF unwind at the write()
 * @dw:		their addresses
 * @dw_where:	where each one is
 * @dw_name:	its function, or module and offset
 * @dw_done:	the DWARF unwind reached the outermost frame
 * @dw_err:	why it did not, or why there is none
 * @stopped:	the chain reached its write() under the tracer
 * @lines:	/proc/<pid>/sframe at the write()
 * @nlines:	their number, or -1
 * @out:	what the chain printed
 * @after_libc:	it printed a codectl registration of the C library
 * @after_ok:	... a sidecar's, that is ok
 * @after_bad:	it printed a line of a registration that is bad
 * @exit_nr:	frames of the stack it took at exit
 * @exit_ips:	their addresses
 * @exit_libc:	the C library's sidecar was registered then, and ok
 * @err:	its stderr: the module's messages
 * @status:	its exit status, or -1
 */
struct run {
	unsigned int nr;
	__u64 ips[SC_MAX_FRAMES];
	unsigned int ndw;
	__u64 dw[SC_MAX_FRAMES];
	char dw_where[SC_MAX_FRAMES];
	char dw_name[SC_MAX_FRAMES][96];
	bool dw_done;
	char dw_err[160];
	bool stopped;
	struct ct_line lines[SC_MAX_LINES];
	int nlines;
	char *out;
	bool after_libc, after_ok, after_bad;
	unsigned int exit_nr;
	__u64 exit_ips[SC_MAX_FRAMES];
	bool exit_libc;
	char *err;
	int status;
};

/* What the test knows of the C library: its path, build ID and sidecar */
static struct {
	char path[PATH_MAX];
	const char *base;	/* libc.so.6 */
	unsigned char id[CODECTL_BUILD_ID_MAX];
	unsigned int id_len;
	char rel[128];		/* .build-id/xx/yyyy.sframe */
} libc;

static char dir[PATH_MAX], audit_so[PATH_MAX + 64], tmpdir[64] =
	"/tmp/codectl_sidecar.XXXXXX";
static const char *prog_name;	/* of the run in progress */
static pid_t child;

static void on_alarm(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- The DWARF unwind, with libdw ----------------------------------- */

static int dw_frame(Dwfl_Frame *state, void *arg)
{
	Dwfl *dwfl = dwfl_thread_dwfl(dwfl_frame_thread(state));
	const char *name = NULL, *file = NULL;
	Dwarf_Addr pc, adj, start = 0;
	struct run *r = arg;
	Dwfl_Module *mod;
	GElf_Off off = 0;
	GElf_Sym sym;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act)) {
		snprintf(r->dw_err, sizeof(r->dw_err), "dwfl_frame_pc: %s",
			 dwfl_errmsg(-1));
		return DWARF_CB_ABORT;
	}
	if (r->ndw == SC_MAX_FRAMES) {
		snprintf(r->dw_err, sizeof(r->dw_err), "over %d frames",
			 SC_MAX_FRAMES);
		return DWARF_CB_ABORT;
	}
	/* A return address: the call is the byte before. */
	adj = act ? pc : pc - 1;
	mod = dwfl_addrmodule(dwfl, adj);
	if (mod) {
		name = dwfl_module_addrinfo(mod, adj, &off, &sym, NULL, NULL,
					    NULL);
		file = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL,
					NULL, NULL);
	}
	r->dw[r->ndw] = pc;
	if (file && !strcmp(basename_of(file), libc.base))
		r->dw_where[r->ndw] = IN_LIBC;
	else if (file && !strcmp(basename_of(file), prog_name))
		r->dw_where[r->ndw] = IN_PROG;
	else
		r->dw_where[r->ndw] = IN_OTHER;
	if (name)
		snprintf(r->dw_name[r->ndw], sizeof(r->dw_name[0]), "%s+%#lx",
			 name, (unsigned long)off);
	else
		snprintf(r->dw_name[r->ndw], sizeof(r->dw_name[0]), "%s+%#lx",
			 file ? basename_of(file) : "?",
			 (unsigned long)(adj - start));
	r->ndw++;
	return DWARF_CB_OK;
}

/* Unwind the stopped tracee @pid with libdw, from its CFI. */
static void dw_unwind(pid_t pid, struct run *r)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	int ret;

	if (!dwfl) {
		snprintf(r->dw_err, sizeof(r->dw_err), "dwfl_begin: %s",
			 dwfl_errmsg(-1));
		return;
	}
	if (dwfl_linux_proc_report(dwfl, pid) ||
	    dwfl_report_end(dwfl, NULL, NULL)) {
		snprintf(r->dw_err, sizeof(r->dw_err),
			 "dwfl_linux_proc_report: %s", dwfl_errmsg(-1));
		goto out;
	}
	/* Stopped by us already: libdw need not attach. */
	if (dwfl_linux_proc_attach(dwfl, pid, true)) {
		snprintf(r->dw_err, sizeof(r->dw_err),
			 "dwfl_linux_proc_attach: %s", dwfl_errmsg(-1));
		goto out;
	}
	ret = dwfl_getthread_frames(dwfl, pid, dw_frame, r);
	/* 0: the unwind reached a frame whose return address is undefined */
	r->dw_done = !ret;
	if (ret && !r->dw_err[0])
		snprintf(r->dw_err, sizeof(r->dw_err),
			 "dwfl_getthread_frames: %s", dwfl_errmsg(-1));
out:
	dwfl_end(dwfl);
}

/* ---- Running the chain ---------------------------------------------- */

static char *read_memfd(int fd)
{
	struct stat st;
	char *s;

	if (fstat(fd, &st))
		return strdup("");
	s = calloc(1, st.st_size + 1);
	if (s && st.st_size && pread(fd, s, st.st_size, 0) < 0)
		s[0] = '\0';
	return s ? s : strdup("");
}

/* Is @line, of /proc/<pid>/sframe, a codectl registration of the C library? */
static bool is_libc_line(const char *line)
{
	size_t n = strlen(line), b = strlen(libc.base);

	return strstr(line, " codectl ") && n > b &&
	       !strcmp(line + n - b, libc.base) && line[n - b - 1] == '/';
}

/* ... and one of its sidecar, that is ok? */
static bool is_libc_sidecar(const char *line)
{
	return is_libc_line(line) && strstr(line, " codectl ok sframe-addr=");
}

/* Parse "N IP..." into @ips, at most SC_MAX_FRAMES; return N */
static unsigned int parse_stack(const char *p, __u64 *ips)
{
	char *end;
	unsigned int i, nr = strtoul(p, &end, 10);

	if (nr > SC_MAX_FRAMES)
		nr = SC_MAX_FRAMES;
	for (i = 0; i < nr; i++)
		ips[i] = strtoull(end, &end, 16);
	return nr;
}

/*
 * The chain's printed stacks, and its /proc/self/sframe after the unwind
 * and at exit
 */
static void parse_out(struct run *r)
{
	char *copy = strdup(r->out), *line = copy, *next;

	for (; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, SC_EXIT_SFRAME " ",
			     sizeof(SC_EXIT_SFRAME))) {
			r->exit_libc |= is_libc_sidecar(line);
			continue;
		}
		if (!strncmp(line, SC_EXIT_STACK " ", sizeof(SC_EXIT_STACK))) {
			r->exit_nr = parse_stack(line + sizeof(SC_EXIT_STACK),
						 r->exit_ips);
			continue;
		}
		if (!strncmp(line, SC_SFRAME " ", sizeof(SC_SFRAME))) {
			r->after_bad |= !!strstr(line, " bad ");
			r->after_libc |= is_libc_line(line);
			r->after_ok |= is_libc_sidecar(line);
			continue;
		}
		if (!strncmp(line, SC_STACK " ", sizeof(SC_STACK)))
			r->nr = parse_stack(line + sizeof(SC_STACK), r->ips);
	}
	free(copy);
}

/*
 * Run the chain program @prog with sidecars under @prefix; if @trace, traced:
 * at the entry of its write() to SC_MARKER_FD, unwind it with libdw and read
 * its /proc/<pid>/sframe; then let it finish.
 */
static bool run_chain(const char *prog, const char *prefix, bool trace,
		      struct run *r)
{
	char path[PATH_MAX + 64], env_prefix[PATH_MAX + 64];
	char *const argv[] = { (char *)prog, NULL };
	struct __ptrace_syscall_info info;
	char *envp[5];
	int out, err, st = 0, sig = 0;
	bool ended = false;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->nlines = -1;
	prog_name = prog;
	envp[0] = audit_so;
	envp[1] = env_prefix;
	envp[2] = "SFRAME_AUDIT_DEBUG=1";
	envp[3] = "PATH=/usr/bin:/bin";
	envp[4] = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	snprintf(env_prefix, sizeof(env_prefix), "SFRAME_SIDECAR_PREFIX=%s",
		 prefix);
	out = memfd_create("chain-out", MFD_CLOEXEC);
	err = memfd_create("chain-err", MFD_CLOEXEC);
	if (out < 0 || err < 0) {
		ksft_perror("memfd_create");
		return false;
	}
	fflush(stdout);
	child = fork();
	if (child < 0) {
		ksft_perror("fork");
		return false;
	}
	if (!child) {
		if (dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
		    (trace && ptrace(PTRACE_TRACEME, 0, NULL, NULL)))
			_exit(126);
		execve(path, argv, envp);
		_exit(127);
	}
	signal(SIGALRM, on_alarm);
	alarm(SC_TIMEOUT);
	if (!trace)
		goto wait;
	/* The stop at exec */
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st)) {
		ksft_print_msg("%s: did not stop at exec (status %#x)\n", prog,
			       st);
		kill(child, SIGKILL);
		goto wait;
	}
	if (ptrace(PTRACE_SETOPTIONS, child, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))) {
		ksft_perror("PTRACE_SETOPTIONS");
		kill(child, SIGKILL);
		goto wait;
	}
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, child, NULL, (void *)(long)sig)) {
			ksft_perror("PTRACE_SYSCALL");
			kill(child, SIGKILL);
			break;
		}
		sig = 0;
		if (waitpid(child, &st, 0) != child) {
			kill(child, SIGKILL);
			break;
		}
		if (!WIFSTOPPED(st)) {
			ended = true;	/* before its write() */
			break;
		}
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st);	/* its own signal: pass it on */
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, child,
			   (void *)sizeof(info), &info) <= 0) {
			ksft_perror("PTRACE_GET_SYSCALL_INFO");
			kill(child, SIGKILL);
			break;
		}
		if (info.op != PTRACE_SYSCALL_INFO_ENTRY ||
		    info.entry.nr != __NR_write ||
		    info.entry.args[0] != SC_MARKER_FD ||
		    info.entry.args[2] != SC_MARKER_LEN)
			continue;
		r->stopped = true;
		dw_unwind(child, r);
		r->nlines = ct_sframe_all_of(child, r->lines, SC_MAX_LINES);
		if (ptrace(PTRACE_DETACH, child, NULL, NULL)) {
			ksft_perror("PTRACE_DETACH");
			kill(child, SIGKILL);
		}
		break;
	}
wait:
	/* The alarm kills it if it does not end */
	while (!ended) {
		if (waitpid(child, &st, 0) != child) {
			ksft_perror("waitpid");
			break;
		}
		ended = WIFEXITED(st) || WIFSIGNALED(st);
	}
	alarm(0);
	child = 0;
	if (ended && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	else if (ended)
		ksft_print_msg("%s: ended by signal %d\n", prog, WTERMSIG(st));
	r->out = read_memfd(out);
	r->err = read_memfd(err);
	close(out);
	close(err);
	parse_out(r);
	return true;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* ---- Verdicts ------------------------------------------------------- */

/* How many frames, from the top, the kernel's stack has right */
static unsigned int frames_right(const struct run *r)
{
	unsigned int i;

	for (i = 0; i < r->nr && i < r->ndw; i++)
		if (r->ips[i] != r->dw[i])
			break;
	return i;
}

/* Print both stacks side by side */
static void show(const struct run *r)
{
	unsigned int i, n = r->nr > r->ndw ? r->nr : r->ndw;

	ksft_print_msg("%-3s %-18s %-18s %c %s\n", "#", "kernel", "DWARF",
		       ' ', "function (DWARF)");
	for (i = 0; i < n; i++) {
		char k[20] = "-", d[20] = "-";

		if (i < r->nr)
			snprintf(k, sizeof(k), "%llx",
				 (unsigned long long)r->ips[i]);
		if (i < r->ndw)
			snprintf(d, sizeof(d), "%llx",
				 (unsigned long long)r->dw[i]);
		ksft_print_msg("%-3u %-18s %-18s %c %s%s\n", i, k, d,
			       i < r->ndw ? r->dw_where[i] : ' ',
			       i < r->ndw ? r->dw_name[i] : "",
			       i < r->nr && i < r->ndw &&
			       r->ips[i] == r->dw[i] ? "" : "  <--");
	}
	if (!r->dw_done)
		ksft_print_msg("the DWARF unwind did not complete: %s\n",
			       r->dw_err[0] ? r->dw_err : "?");
}

static void show_child(const struct run *r)
{
	ksft_print_msg("exit status %d; its stderr:\n", r->status);
	if (r->err && r->err[0])
		fprintf(stdout, "%s", r->err);
}

/*
 * Is the DWARF unwind what the chain is: complete, the C library on top,
 * then the program, the C library (bsearch), the program, the C library
 * (qsort), the program, the C library (__libc_start_main), the program
 * (_start); the program's frames the chain's functions?
 */
static bool dw_is_chain(const struct run *r)
{
	char runs[SC_MAX_FRAMES + 1];
	unsigned int i, n = 0, f = 0;

	if (!r->stopped) {
		ksft_print_msg("the chain never reached its write()\n");
		return false;
	}
	if (!r->dw_done || r->ndw < SC_MIN_FRAMES) {
		ksft_print_msg("the DWARF unwind: %u frames, %s\n", r->ndw,
			       r->dw_done ? "complete" : r->dw_err);
		return false;
	}
	for (i = 0; i < r->ndw; i++) {
		if (!n || runs[n - 1] != r->dw_where[i])
			runs[n++] = r->dw_where[i];
		if (r->dw_where[i] != IN_PROG)
			continue;
		if (f == ARRAY_SIZE(chain_funcs) ||
		    strncmp(r->dw_name[i], chain_funcs[f],
			    strlen(chain_funcs[f])) ||
		    r->dw_name[i][strlen(chain_funcs[f])] != '+') {
			ksft_print_msg("DWARF frame %u is %s, not the chain's %s\n",
				       i, r->dw_name[i],
				       f < ARRAY_SIZE(chain_funcs) ?
				       chain_funcs[f] : "end");
			return false;
		}
		f++;
	}
	runs[n] = '\0';
	if (strcmp(runs, "cpcpcpcp") || f != ARRAY_SIZE(chain_funcs)) {
		ksft_print_msg("the DWARF unwind is not the chain: %s, %u of its functions\n",
			       runs, f);
		return false;
	}
	return true;
}

/* The registration whose path ends in @name, from @source; NULL if none */
static const struct ct_line *find_line(const struct run *r, const char *name,
				       const char *source)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < r->nlines && i < SC_MAX_LINES; i++) {
		const struct ct_line *l = &r->lines[i];
		size_t len = strlen(l->path);

		if (!strcmp(l->source, source) && len >= n &&
		    !strcmp(l->path + len - n, name) &&
		    (len == n || l->path[len - n - 1] == '/'))
			return l;
	}
	return NULL;
}

/* Is @name registered from its sidecar, and well? */
static bool sidecar_line(const struct run *r, const char *name)
{
	const struct ct_line *l = find_line(r, name, "codectl");

	if (l && l->sframe_addr && !strcmp(l->state, "ok"))
		return true;
	ksft_print_msg("/proc/<pid>/sframe: no sidecar of %s, ok%s\n", name,
		       l ? "" : " (no registration at all)");
	return false;
}

static void show_lines(const struct run *r)
{
	int i;

	for (i = 0; i < r->nlines && i < SC_MAX_LINES; i++) {
		const struct ct_line *l = &r->lines[i];
		char addr[32] = "";

		if (l->sframe_addr)
			snprintf(addr, sizeof(addr), " sframe-addr=%lx",
				 l->sframe_addr);
		ksft_print_msg("sframe: %lx-%lx %lx-%lx v%u %s %s%s %s\n",
			       l->text_start, l->text_end, l->sframe_start,
			       l->sframe_end, l->version, l->source, l->state,
			       addr, l->path);
	}
}

/*
 * At exit, once ld.so closed every object, the C library's sidecar is
 * still registered, and the stack of the write() there (write, sc_leaf,
 * sc_exit_write, the C library's flush, exit, __libc_start_call_main)
 * ends as the DWARF unwind of the chain does: in __libc_start_main and
 * _start, at the same return addresses.
 */
static bool exit_complete(const struct run *r)
{
	unsigned int i;

	if (!r->exit_libc) {
		ksft_print_msg("at exit the C library's sidecar is not registered, or not ok\n");
		return false;
	}
	if (r->exit_nr < 6 || r->ndw < 2 ||
	    r->exit_ips[r->exit_nr - 1] != r->dw[r->ndw - 1] ||
	    r->exit_ips[r->exit_nr - 2] != r->dw[r->ndw - 2]) {
		ksft_print_msg("the stack at exit does not end in __libc_start_main and _start:\n");
		for (i = 0; i < r->exit_nr; i++)
			ksft_print_msg("exit %-3u %llx\n", i,
				       (unsigned long long)r->exit_ips[i]);
		return false;
	}
	return true;
}

/*
 * A run with good sidecars: the stack is the DWARF unwind, all of it;
 * the C library and ld.so, and the program if @prog_sidecar, are
 * registered from their sidecars, in SFrame version @version.
 */
static void test_complete(const char *what, const char *prog,
			  const char *prefix, bool prog_sidecar,
			  unsigned int version)
{
	const struct ct_line *l;
	struct run r;
	bool ok;

	if (!run_chain(prog, prefix, true, &r)) {
		ksft_test_result_fail("%s: the chain did not run\n", what);
		return;
	}
	ok = r.status == 0 && dw_is_chain(&r);
	ok &= sidecar_line(&r, libc.base) &&
	      sidecar_line(&r, "ld-linux-x86-64.so.2");
	if (prog_sidecar)
		ok &= sidecar_line(&r, prog);
	l = find_line(&r, libc.base, "codectl");
	if (l && l->version != version) {
		ksft_print_msg("the C library's sidecar is SFrame V%u, not V%u\n",
			       l->version, version);
		ok = false;
	}
	if (ok && (r.nr != r.ndw || frames_right(&r) != r.ndw))
		ok = false;
	show(&r);
	ok &= exit_complete(&r);
	if (!ok) {
		show_lines(&r);
		show_child(&r);
	}
	ksft_test_result(ok,
			 "%s: the stack at write() is the DWARF one: %u of %u frames, to _start; at exit %u frames\n",
			 what, frames_right(&r), r.ndw, r.exit_nr);
	run_free(&r);
}

/* Without sidecars: the stack stops early, and nothing is registered. */
static void test_without(const char *prefix)
{
	struct run r;
	bool ok;

	if (!run_chain(SC_CHAIN, prefix, true, &r)) {
		ksft_test_result_fail("without sidecars: the chain did not run\n");
		return;
	}
	ok = r.status == 0 && dw_is_chain(&r) && r.nr &&
	     frames_right(&r) < r.ndw;
	if (find_line(&r, libc.base, "codectl")) {
		ksft_print_msg("the C library is registered without a sidecar\n");
		ok = false;
	}
	show(&r);
	if (!ok)
		show_child(&r);
	ksft_test_result(ok,
			 "without sidecars: a stack of %u frames, %u of %u right: they matter\n",
			 r.nr, frames_right(&r), r.ndw);
	run_free(&r);
}

/* ---- Hostile sidecars of the C library -------------------------------- */

enum hostile {
	H_TRUNCATED, H_BUILD_ID, H_TEXT_NOTE, H_MACHINE, H_SFRAME_ABI,
	H_ADDR, H_FDES_OUT,
};

static const struct {
	const char *what;
	const char *expect;	/* in the module's messages */
	bool registered;	/* the kernel takes it */
} hostile[] = {
	[H_TRUNCATED] = {
		"a truncated sidecar",
		"ignored: section headers outside the file",
	},
	[H_BUILD_ID] = {
		"a sidecar of another build ID",
		"ignored: another build ID",
	},
	[H_TEXT_NOTE] = {
		"a sidecar of other executable segments",
		"ignored: a text note of other executable segments",
	},
	[H_MACHINE] = {
		"a sidecar for another machine",
		"ignored: an ELF file for another machine",
	},
	/* The module does not read the section: the kernel refuses it. */
	[H_SFRAME_ABI] = {
		"an SFrame header for AArch64",
		"Exec format error",
	},
	[H_ADDR] = {
		"a section address beyond user space",
		"Invalid argument",
	},
	/* Valid, and describes nothing of the text */
	[H_FDES_OUT] = {
		"functions moved 1 GiB out of the text",
		NULL, true,
	},
};

static unsigned char *good;	/* the C library's V2 sidecar */
static size_t good_len;

static bool shdr_of(const unsigned char *f, size_t len, const char *name,
		    Elf64_Shdr *out)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	const Elf64_Shdr *sh, *str;
	unsigned int i;

	if (len < sizeof(*eh) || eh->e_shoff > len ||
	    eh->e_shnum * sizeof(*sh) > len - eh->e_shoff ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	str = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name < str->sh_size &&
		    !strcmp((const char *)f + str->sh_offset + sh[i].sh_name,
			    name)) {
			*out = sh[i];
			return true;
		}
	}
	return false;
}

/* A damaged copy of the good sidecar, in a prefix of its own */
static bool make_hostile(enum hostile h, char *prefix, size_t len)
{
	unsigned char *f = malloc(good_len);
	size_t flen = good_len;
	Elf64_Shdr sh;
	char path[PATH_MAX + 256];
	unsigned int i;
	bool ok = false;
	int fd;

	if (!f)
		return false;
	memcpy(f, good, good_len);
	switch (h) {
	case H_TRUNCATED:
		flen = good_len / 2;
		break;
	case H_BUILD_ID:
		if (!shdr_of(f, flen, ".note.gnu.build-id", &sh))
			goto out;
		/* namesz 4, "GNU\0": the ID follows; change its last byte */
		f[sh.sh_offset + 16 + libc.id_len - 1] ^= 0x5a;
		break;
	case H_TEXT_NOTE:
		if (!shdr_of(f, flen, ".note.sframe.text", &sh))
			goto out;
		/* namesz 7, "SFrame\0" padded to 8: p_memsz of the first */
		f[sh.sh_offset + 12 + 8 + 8] ^= 0x10;
		break;
	case H_MACHINE:
		((Elf64_Ehdr *)f)->e_machine = EM_AARCH64;
		break;
	case H_SFRAME_ABI:
		if (!shdr_of(f, flen, ".sframe", &sh))
			goto out;
		f[sh.sh_offset + 4] = 2;	/* AArch64, little-endian */
		break;
	case H_ADDR: {
		Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
		Elf64_Shdr *s = (Elf64_Shdr *)(f + eh->e_shoff);

		for (i = 0; i < eh->e_shnum; i++)
			if (s[i].sh_type == SHT_GNU_SFRAME)
				s[i].sh_addr = 1UL << 62;
		break;
	}
	case H_FDES_OUT: {
		unsigned int nfdes, fdes, ver, esize;
		unsigned char *sf;

		if (!shdr_of(f, flen, ".sframe", &sh))
			goto out;
		sf = f + sh.sh_offset;
		ver = sf[2];
		esize = ver == 2 ? 20 : 16;
		memcpy(&nfdes, sf + 8, 4);
		memcpy(&fdes, sf + 20, 4);
		/* The good sidecar is V2: s32 offsets, here 1 GiB more */
		for (i = 0; i < nfdes; i++) {
			unsigned char *e = sf + 28 + sf[7] + fdes + i * esize;
			uint32_t start;

			memcpy(&start, e, 4);
			start += 1U << 30;
			memcpy(e, &start, 4);
		}
		break;
	}
	}
	snprintf(prefix, len, "%s/%d", tmpdir, h);
	snprintf(path, sizeof(path), "%s/.build-id", prefix);
	if (mkdir(prefix, 0755) || mkdir(path, 0755))
		goto out;
	/* .build-id/xx */
	snprintf(path, sizeof(path), "%s/%.12s", prefix, libc.rel);
	if (mkdir(path, 0755))
		goto out;
	snprintf(path, sizeof(path), "%s/%s", prefix, libc.rel);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		goto out;
	ok = write(fd, f, flen) == (ssize_t)flen;
	ok &= !close(fd);
out:
	if (!ok)
		ksft_print_msg("cannot make %s: %s\n", hostile[h].what,
			       strerror(errno));
	free(f);
	return ok;
}

static void test_hostile(enum hostile h)
{
	char prefix[PATH_MAX];
	struct run r;
	bool ok;

	/* Not traced: what it says is the point, not where it stops. */
	if (!make_hostile(h, prefix, sizeof(prefix)) ||
	    !run_chain(SC_CHAIN, prefix, false, &r)) {
		ksft_test_result_fail("hostile sidecar: %s\n", hostile[h].what);
		return;
	}
	/*
	 * The chain runs on, and its stack, taken through the C library
	 * with frame pointers, stops early, as without a sidecar.
	 */
	ok = r.status == 0 && r.nr && r.nr < SC_MIN_FRAMES;
	if (!ok)
		ksft_print_msg("exit status %d, a stack of %u frames\n",
			       r.status, r.nr);
	if (hostile[h].registered) {
		/* Registered, and still ok after the unwind */
		if (!r.after_ok || r.after_bad) {
			ksft_print_msg("the sidecar is not registered, or not ok after it\n");
			ok = false;
		}
	} else {
		if (r.after_libc) {
			ksft_print_msg("the sidecar is registered\n");
			ok = false;
		}
		if (!strstr(r.err, hostile[h].expect) ||
		    !strstr(r.err, libc.base)) {
			ksft_print_msg("the module did not say \"%s\" of the C library\n",
				       hostile[h].expect);
			ok = false;
		}
	}
	if (!ok) {
		ksft_print_msg("its output:\n");
		fprintf(stdout, "%s", r.out);
		show_child(&r);
	}
	ksft_test_result(ok, "hostile sidecar, %s: %s; the chain runs, a stack of %u frames\n",
			 hostile[h].what,
			 hostile[h].registered ? "registered, harmless" :
			 hostile[h].expect, r.nr);
	run_free(&r);
}

#ifdef __x86_64__
/*
 * A stack taken inside ld.so's lazy-binding trampoline, whose CFA is in rbx
 * (codectl_sidecar_lazy.c): with V3 sidecars, whose flexible FDEs describe
 * that frame, the whole stack, which the program checks.  V2 sidecars leave
 * the realigned part without a rule: the kernel falls back to frame
 * pointers there, which the program does not keep; what it gets is said,
 * not tested.
 */
static void test_lazy(const char *v2, const char *v3)
{
	struct run r;
	bool ok;

	run_chain(SC_LAZY, v3, false, &r);
	ok = r.status == 0;
	if (!ok) {
		ksft_print_msg("its output:\n");
		fprintf(stdout, "%s", r.out);
		show_child(&r);
	}
	ksft_test_result(ok, "V3 sidecars: the stack inside ld.so's lazy-binding trampoline (CFA in rbx), %u frames\n",
			 r.nr);
	run_free(&r);
	run_chain(SC_LAZY, v2, false, &r);
	ksft_print_msg("the same with V2 sidecars: exit %d, %u frames\n",
		       r.status, r.nr);
	run_free(&r);
}
#define LAZY_TESTS	1
#else
#define LAZY_TESTS	0
#endif

/* ---- Setup ---------------------------------------------------------- */

/* The C library this program uses, which the chain uses too */
static bool find_libc(void)
{
	struct link_map *lm;
	struct ct_object obj;
	unsigned int i;
	void *h;
	int n;

	h = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) || ct_dl_object(h, &obj)) {
		ksft_print_msg("libc.so.6: %s\n", dlerror() ?: "no build ID");
		return false;
	}
	snprintf(libc.path, sizeof(libc.path), "%s", lm->l_name);
	libc.base = basename_of(libc.path);
	if (!obj.build_id_len) {
		ksft_print_msg("%s has no build ID\n", libc.path);
		return false;
	}
	memcpy(libc.id, obj.build_id, obj.build_id_len);
	libc.id_len = obj.build_id_len;
	n = snprintf(libc.rel, sizeof(libc.rel), ".build-id/%02x/", libc.id[0]);
	for (i = 1; i < libc.id_len; i++)
		n += snprintf(libc.rel + n, sizeof(libc.rel) - n, "%02x",
			      libc.id[i]);
	snprintf(libc.rel + n, sizeof(libc.rel) - n, ".sframe");
	return true;
}

static bool load_good(const char *prefix)
{
	char path[PATH_MAX + 256];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", prefix, libc.rel);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ksft_print_msg("%s: %s: the sidecar of %s, made when the tests were built\n",
			       path, strerror(errno), libc.path);
		return false;
	}
	good_len = st.st_size;
	good = malloc(good_len);
	if (!good || read(fd, good, good_len) != (ssize_t)good_len) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

static void rm_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		ksft_print_msg("%s\n", cmd);
}

int main(void)
{
	char v2[PATH_MAX + 32], v3[PATH_MAX + 32], none[PATH_MAX + 32];
	unsigned int h;
	bool have;

	ksft_print_header();
	ksft_set_plan(4 + LAZY_TESTS + ARRAY_SIZE(hostile));
	if (ct_exe_dir(dir, sizeof(dir)))
		ksft_exit_fail_msg("cannot find the test's directory\n");
	snprintf(audit_so, sizeof(audit_so), "LD_AUDIT=%s/%s", dir,
		 CT_AUDIT_SO);
	snprintf(v2, sizeof(v2), "%s/sidecars-v2", dir);
	snprintf(v3, sizeof(v3), "%s/sidecars-v3", dir);
	if (!find_libc() || !mkdtemp(tmpdir))
		ksft_exit_fail_msg("cannot set up\n");
	snprintf(none, sizeof(none), "%s/none", tmpdir);
	if (mkdir(none, 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", none, strerror(errno));
	ksft_print_msg("the C library: %s, build ID sidecar %s\n", libc.path,
		       libc.rel);

	have = load_good(v2);
	if (have)
		test_complete("V2 sidecars", SC_CHAIN, v2, false, 2);
	else
		ksft_test_result_fail("V2 sidecars: none in %s\n", v2);
	test_complete("V3 sidecars", SC_CHAIN, v3, false, 3);
	test_complete("the program without .sframe, V2 sidecars",
		      SC_CHAIN_NOSF, v2, true, 2);
	test_without(none);
#ifdef __x86_64__
	test_lazy(v2, v3);
#endif
	for (h = 0; h < ARRAY_SIZE(hostile); h++) {
		if (have)
			test_hostile(h);
		else
			ksft_test_result_fail("hostile sidecar, %s: no good sidecar to damage\n",
					      hostile[h].what);
	}
	rm_tree();
	ksft_finished();
}
