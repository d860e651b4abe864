// SPDX-License-Identifier: GPL-2.0
/*
 * The JIT workload of the perf tests (sframe_perf_jit.sh): functions
 * emitted at run time, without frame pointers, between C functions,
 *
 *	main -> sfp_jit_run -> sfp_jit_a (JIT) -> sfp_jit_mid
 *	     -> sfp_jit_b (JIT) -> sfp_jit_leaf -> getppid
 *
 * described to the kernel by a CODECTL_REGISTER_JIT table, so that the
 * deferred user stack goes through them, and to perf by a jitdump file
 * (tools/perf/Documentation/jitdump-specification.txt), which perf inject
 * --jit turns into an ELF object per function, so that perf names them:
 *
 *	sframe_perf_jit DIR N
 *
 * runs the chain N times and writes the ground truth of each system call
 * to DIR/truth.TID, in sframe_perf_work's format (sframe_perf_check.awk),
 * the JIT functions by the names the jitdump gives them.  The jitdump is
 * DIR/jit-PID.dump, mapped executable so that perf record sees it; its
 * timestamps are CLOCK_MONOTONIC's, for perf record -k mono.  The code is
 * written while the mapping is writable and run once it is executable; it
 * is codectl_jit's function, in x86-64 or AArch64 code, with its entries
 * (../codectl/codectl_jit_code.h).  Exit codes: 0 done, 1 something failed
 * (said on stderr).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../codectl/codectl_jit_code.h"

#define SFP_NOIPA	__attribute__((noipa))

/* The frames of the truth: sfp_jit_leaf up to sfp_jit_run */
#define FRAMES		6

/* What the chain's functions record as they run, frame 0 innermost */
struct jit_walk {
	unsigned long ip[FRAMES];	/* ip[0]: after the system call */
	long (*fn[2])(struct jit_walk *w);	/* what sfp_jit_a, _b call */
};

/*
 * The two functions in the code area, their names, and where they record
 * their return addresses: sfp_jit_a returns to frame 4, sfp_jit_b to 2.
 */
static const struct {
	unsigned int off;
	const char *name;
	unsigned int ip;
} jit_funcs[] = {
	{ 0x40, "sfp_jit_a", 4 },
	{ 0x100, "sfp_jit_b", 2 },
};

static long (*sfp_jit_a)(struct jit_walk *w);
static long (*sfp_jit_b)(struct jit_walk *w);

static void die(const char *what)
{
	fprintf(stderr, "sframe_perf_jit: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- The jitdump ------------------------------------------------------ */

#define JITDUMP_MAGIC		0x4A695444	/* "JiTD" */
#define JITDUMP_VERSION		1
#define JIT_CODE_LOAD		0

struct jitdump_header {
	uint32_t magic;
	uint32_t version;
	uint32_t total_size;
	uint32_t elf_mach;
	uint32_t pad1;
	uint32_t pid;
	uint64_t timestamp;
	uint64_t flags;
};

struct jitdump_code_load {
	uint32_t id;
	uint32_t total_size;
	uint64_t timestamp;
	uint32_t pid;
	uint32_t tid;
	uint64_t vma;
	uint64_t code_addr;
	uint64_t code_size;
	uint64_t code_index;
	/* the name, NUL-terminated, then the code */
};

static void write_all(int fd, const void *p, size_t len)
{
	if (write(fd, p, len) != (ssize_t)len)
		die("writing the jitdump");
}

/*
 * DIR/jit-PID.dump: its header, mapped executable (how perf record learns
 * of it), then a code load record for each function.
 */
static int jitdump_open(const char *dir)
{
	struct jitdump_header h = {
		.magic = JITDUMP_MAGIC,
		.version = JITDUMP_VERSION,
		.total_size = sizeof(h),
#if defined(__x86_64__)
		.elf_mach = EM_X86_64,
#else
		.elf_mach = EM_AARCH64,
#endif
		.pid = getpid(),
		.timestamp = now_ns(),
	};
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	write_all(fd, &h, sizeof(h));
	if (mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE, fd, 0) == MAP_FAILED)
		die("mmap of the jitdump");
	return fd;
}

static void jitdump_load(int fd, const char *name, const void *code,
			 size_t size, uint64_t index)
{
	struct jitdump_code_load r = {
		.id = JIT_CODE_LOAD,
		.total_size = sizeof(r) + strlen(name) + 1 + size,
		.timestamp = now_ns(),
		.pid = getpid(),
		.tid = gettid(),
		.vma = (unsigned long)code,
		.code_addr = (unsigned long)code,
		.code_size = size,
		.code_index = index,
	};

	write_all(fd, &r, sizeof(r));
	write_all(fd, name, strlen(name) + 1);
	write_all(fd, code, size);
}

/* ---- The code and its table ------------------------------------------- */

/*
 * Emit both functions into a new code area, register their table, and
 * describe them in the jitdump.
 */
static void emit(const char *dir)
{
	struct codectl_jit_table *t;
	struct codectl_jit arg;
	size_t page = sysconf(_SC_PAGESIZE), tsize;
	unsigned char *code;
	unsigned int f;
	int fd;

	code = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		die("mmap of the code area");
	tsize = codectl_jit_table_bytes(CODECTL_JIT_ENTRY_MIN, 16);
	t = mmap(NULL, tsize, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		die("mmap of the JIT table");
	codectl_jit_table_init(t, CODECTL_JIT_ENTRY_MIN, 16);

	for (f = 0; f < ARRAY_SIZE(jit_funcs); f++)
		jt_emit(code + jit_funcs[f].off,
			offsetof(struct jit_walk, ip) +
			jit_funcs[f].ip * sizeof(long),
			offsetof(struct jit_walk, fn) + f * sizeof(void *));
	__builtin___clear_cache((char *)code, (char *)code + page);
	if (mprotect(code, page, PROT_READ | PROT_EXEC))
		die("mprotect of the code area");

	for (f = 0; f < ARRAY_SIZE(jit_funcs); f++) {
		if (jt_append_fn(t, jit_funcs[f].off) < 0) {
			fprintf(stderr, "sframe_perf_jit: the table is full\n");
			exit(1);
		}
	}
	arg = (struct codectl_jit){
		.text_start = (unsigned long)code,
		.text_end = (unsigned long)code + page,
		.table = (unsigned long)t,
		.table_size = tsize,
	};
	if (syscall(__NR_codectl, CODECTL_REGISTER_JIT, &arg, sizeof(arg), 0))
		die("CODECTL_REGISTER_JIT");

	fd = jitdump_open(dir);
	for (f = 0; f < ARRAY_SIZE(jit_funcs); f++)
		jitdump_load(fd, jit_funcs[f].name, code + jit_funcs[f].off,
			     JIT_SIZE, f);
	if (close(fd))
		die("closing the jitdump");
	sfp_jit_a = (void *)(code + jit_funcs[0].off);
	sfp_jit_b = (void *)(code + jit_funcs[1].off);
}

/* ---- The chain --------------------------------------------------------- */

SFP_NOIPA static long sfp_jit_leaf(struct jit_walk *w)
{
	unsigned long ip;
	long ret;

	w->ip[1] = (unsigned long)__builtin_return_address(0);
	JT_GETPPID(ret, ip);
	w->ip[0] = ip;
	return ret + 1;
}

SFP_NOIPA static long sfp_jit_mid(struct jit_walk *w)
{
	long r;

	w->ip[3] = (unsigned long)__builtin_return_address(0);
	r = sfp_jit_b(w);
	asm volatile("" : "+r" (r) : : "memory");	/* not a tail call */
	return r + 1;
}

SFP_NOIPA static long sfp_jit_run(struct jit_walk *w)
{
	long r;

	w->ip[5] = (unsigned long)__builtin_return_address(0);
	r = sfp_jit_a(w);
	asm volatile("" : "+r" (r) : : "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	static const char * const names[FRAMES] = {
		"sfp_jit_leaf", "sfp_jit_b", "sfp_jit_mid", "sfp_jit_a",
		"sfp_jit_run", "main",
	};
	char path[4096];
	struct jit_walk w;
	long n, i;
	FILE *f;
	int j;

	n = argc == 3 ? atol(argv[2]) : 0;
	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: sframe_perf_jit DIR N\n");
		return 1;
	}
	emit(argv[1]);
	snprintf(path, sizeof(path), "%s/truth.%d", argv[1], gettid());
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < n; i++) {
		memset(&w, 0, sizeof(w));
		w.fn[0] = sfp_jit_mid;
		w.fn[1] = sfp_jit_leaf;
		if (sfp_jit_run(&w) < 0)
			return 1;
		/*
		 * The names of the frames: the function each address is in,
		 * where it returns to for the callers (ip[k] is the return
		 * address from frame k - 1, in frame k)
		 */
		fprintf(f, "%d %d %d", getpid(), gettid(), FRAMES);
		for (j = 0; j < FRAMES; j++)
			fprintf(f, " %#lx:%s", w.ip[j], names[j]);
		fputc('\n', f);
	}
	if (fclose(f))
		die("writing the truth");
	return 0;
}
