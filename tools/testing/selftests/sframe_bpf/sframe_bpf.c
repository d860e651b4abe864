// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks that BPF programs take, checked against ground truth.
 *
 * The programs of sframe_bpf.bpf.c, loaded with libbpf, take the user
 * stack of a test program (sframe_bpf_chain_{fp,v2,v3}) with
 * bpf_get_stack() and bpf_get_stackid():
 *
 *  - at each system call of the known chain of ../sframe, from a
 *    tracepoint program: the stack must be the chain, frame by frame, at
 *    the addresses the chain recorded as it ran, in the SFrame programs;
 *    in the frame pointer program it must be exactly perf's walk of the
 *    same system call, the stack BPF took before SFrame;
 *  - in samples of the program's user time, spinning in a known chain
 *    (spin_leaf, spin_mid, spin_top, main), from a perf_event program, as
 *    bpftrace's and BCC's profilers do: the share of samples whose stack
 *    is the chain is measured and must be at least 95%;
 *  - the same from an event that samples callchains with defer_callchain:
 *    the kernel stack must not hold PERF_CONTEXT_USER_DEFERRED and the
 *    cookie, and the user stack must be the chain;
 *  - at the entry of st_leaf_bare, from a uprobe program and a sleepable
 *    one (where bpf_get_stack() walks in faultable context): the chain,
 *    below st_leaf_bare's first instruction.
 *
 * bpf_get_stackid()'s stack, read from the stack map, must be the one
 * bpf_get_stack() gave.
 *
 * The programs of sframe_bpf_defer.bpf.c ask for complete stacks with
 * bpf_unwind_user_request() and receive them from the
 * bpf_unwind_user_stack tracepoint; each request must be answered once,
 * with its cookie, by the chain (at the system calls) or the spinning
 * chain (in samples, also while another thread keeps dropping the
 * program's .sframe pages from its page tables: then the walk that cannot
 * fault must miss stacks the deferred walk finds); also at exit, from
 * BPF_PROG_TEST_RUN, with programs attached and detached while requests
 * are in flight, and the verifier's refusals.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../kselftest.h"
#include "sframe_bpf.h"

#define CHAIN_RUNS	25
#define SPIN_SECONDS	"3"
#define MAX_RECORDS	20000
#define MAX_LINES	(4 * CHAIN_RUNS + 16)
#define SAMPLE_NS	1000000
/* Of the perf_event samples in spin_leaf, complete and right */
#define TARGET_PCT	95.0

static char dir[PATH_MAX];

struct stack {
	unsigned int nr;
	__u64 ips[SFB_MAX_IPS];
};

static struct sfb_record records[MAX_RECORDS];
static unsigned int nrecords;
static unsigned int dropped;

static int on_record(void *ctx, void *data, size_t len)
{
	(void)ctx;
	if (len < sizeof(struct sfb_record) || nrecords >= MAX_RECORDS) {
		dropped++;
		return 0;
	}
	memcpy(&records[nrecords++], data, sizeof(struct sfb_record));
	return 0;
}

/* What the test program printed */
struct child_out {
	unsigned int ntruth, nperf;
	struct stack truth[2 * CHAIN_RUNS], perf[2 * CHAIN_RUNS];
	unsigned long sym[4][2];	/* spin_leaf, spin_mid, spin_top, main */
	unsigned int nsym;
};

static struct child_out out;

struct child {
	pid_t pid;
	FILE *from;
	int to;
};

static int child_start(struct child *c, const char *prog, const char *mode,
		       const char *arg)
{
	int in[2], outp[2];
	char path[PATH_MAX + 64], line[256];

	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	if (pipe(in) || pipe(outp))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		close(in[1]);
		close(outp[0]);
		execl(path, prog, mode, arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	c->to = in[1];
	c->from = fdopen(outp[0], "r");
	memset(&out, 0, sizeof(out));
	while (fgets(line, sizeof(line), c->from)) {
		char name[32];
		unsigned long s, e;

		if (!strncmp(line, "ready", 5))
			return 0;
		if (sscanf(line, "S %31s %lx %lx", name, &s, &e) == 3 &&
		    out.nsym < 4) {
			out.sym[out.nsym][0] = s;
			out.sym[out.nsym++][1] = e;
		}
	}
	ksft_print_msg("%s %s: no \"ready\"\n", prog, mode);
	return -EIO;
}

static int parse_stack(char *line, struct stack *s)
{
	char *p = line + 1, *end;
	unsigned int i;
	long run, idx;

	run = strtol(p, &end, 10);
	idx = strtol(end, &end, 10);
	s->nr = strtoul(end, &end, 10);
	if (run < 0 || idx < 0 || s->nr > SFB_MAX_IPS)
		return -EINVAL;
	for (i = 0; i < s->nr; i++)
		s->ips[i] = strtoull(end, &end, 16);
	return 0;
}

/* Let the child go, read the rest of what it says, wait for it. */
static int child_finish(struct child *c)
{
	char line[8192];
	int status;

	if (write(c->to, "go\n", 3) != 3)
		return -errno;
	while (fgets(line, sizeof(line), c->from)) {
		if (line[0] == 'T' && out.ntruth < 2 * CHAIN_RUNS)
			parse_stack(line, &out.truth[out.ntruth++]);
		else if (line[0] == 'P' && out.nperf < 2 * CHAIN_RUNS)
			parse_stack(line, &out.perf[out.nperf++]);
		else if (line[0] == 'E')
			ksft_print_msg("child: %s", line);
	}
	fclose(c->from);
	close(c->to);
	if (waitpid(c->pid, &status, 0) != c->pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ksft_print_msg("child exited with status %#x\n", status);
		return -EIO;
	}
	return 0;
}

static int perf_open_clock(pid_t pid, bool callchain)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = SAMPLE_NS,
		.exclude_kernel = 1,
	};
	int fd;

	if (callchain) {
		attr.sample_type = PERF_SAMPLE_CALLCHAIN;
		attr.defer_callchain = 1;
	}
	fd = syscall(__NR_perf_event_open, &attr, pid, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		ksft_print_msg("perf_event_open(task-clock%s): %s\n",
			       callchain ? ", defer_callchain" : "",
			       strerror(errno));
	return fd;
}

/* @prog on a task-clock event of @pid; the link owns the event's fd */
static struct bpf_link *attach_clock(struct bpf_program *prog, pid_t pid,
				     bool callchain)
{
	struct bpf_link *link;
	int fd = perf_open_clock(pid, callchain);

	if (fd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link)
		close(fd);
	return link;
}

struct loaded {
	struct bpf_object *obj;
	struct bpf_link *links[5];
	struct ring_buffer *rb;
	int stackmap;
};

static void unload(struct loaded *l)
{
	int i;

	for (i = 0; i < 5; i++)
		bpf_link__destroy(l->links[i]);
	ring_buffer__free(l->rb);
	bpf_object__close(l->obj);
	memset(l, 0, sizeof(*l));
}

/*
 * Open @file, the BPF object, for @tgid, and load the programs named in
 * @progs (a NULL-terminated list), none of the others; @log, when not
 * NULL, gets the verifier's log.
 */
static int open_object(struct loaded *l, const char *file, pid_t tgid,
		       const char *const *progs, char *log, size_t log_size)
{
	char path[PATH_MAX + 32];
	struct bpf_program *prog;
	struct bpf_map *rodata;
	unsigned int i;
	size_t size;
	__u32 *tgidp;
	int err;

	memset(l, 0, sizeof(*l));
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	l->obj = bpf_object__open_file(path, NULL);
	if (!l->obj) {
		ksft_print_msg("cannot open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	rodata = bpf_object__find_map_by_name(l->obj, ".rodata");
	tgidp = rodata ? bpf_map__initial_value(rodata, &size) : NULL;
	if (!tgidp || size < sizeof(*tgidp)) {
		ksft_print_msg("no .rodata for target_tgid\n");
		return -EINVAL;
	}
	*tgidp = tgid;
	bpf_object__for_each_program(prog, l->obj) {
		bool want = false;

		for (i = 0; progs[i]; i++)
			want |= !strcmp(progs[i], bpf_program__name(prog));
		bpf_program__set_autoload(prog, want);
		if (want && log)
			bpf_program__set_log_buf(prog, log, log_size);
	}
	err = bpf_object__load(l->obj);
	if (err) {
		if (!log)
			ksft_print_msg("loading %s: %s\n", path, strerror(-err));
		return err;
	}
	l->rb = ring_buffer__new(bpf_object__find_map_fd_by_name(l->obj,
								 "stacks"),
				 on_record, NULL, NULL);
	return l->rb ? 0 : -errno;
}

/*
 * Load the programs of sframe_bpf.bpf.o for @pid, running @binary, and
 * attach them: @spin, the perf_event ones, else the tracepoint and the
 * uprobes.
 */
static int load(struct loaded *l, pid_t pid, const char *binary, bool spin)
{
	static const char *const chain_progs[] = {
		"on_getppid", "on_leaf", "on_leaf_s", NULL
	};
	static const char *const spin_progs[] = {
		"on_sample", "on_sample_pe", NULL
	};
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .func_name = "st_leaf_bare");
	struct bpf_program *prog;
	int err;

	err = open_object(l, "sframe_bpf.bpf.o", pid,
			  spin ? spin_progs : chain_progs, NULL, 0);
	if (err)
		return err;
	l->stackmap = bpf_object__find_map_fd_by_name(l->obj, "stackmap");

	if (!spin) {
		prog = bpf_object__find_program_by_name(l->obj, "on_getppid");
		l->links[0] = bpf_program__attach_tracepoint(prog, "syscalls",
							     "sys_enter_getppid");
		if (!l->links[0])
			return -errno;
		prog = bpf_object__find_program_by_name(l->obj, "on_leaf");
		l->links[3] = bpf_program__attach_uprobe_opts(prog, pid, binary,
							      0, &uopts);
		prog = bpf_object__find_program_by_name(l->obj, "on_leaf_s");
		l->links[4] = bpf_program__attach_uprobe_opts(prog, pid, binary,
							      0, &uopts);
		return l->links[3] && l->links[4] ? 0 : -errno;
	}
	prog = bpf_object__find_program_by_name(l->obj, "on_sample");
	l->links[1] = attach_clock(prog, pid, false);
	prog = bpf_object__find_program_by_name(l->obj, "on_sample_pe");
	l->links[2] = attach_clock(prog, pid, true);
	return l->links[1] && l->links[2] ? 0 : -EIO;
}

static int drain(struct loaded *l)
{
	nrecords = 0;
	dropped = 0;
	return ring_buffer__consume(l->rb) < 0 ? -EIO : 0;
}

/*
 * Run @prog in @mode with the programs loaded for it (see load()), and
 * collect what they recorded.  @l is always left for unload(), and the
 * child killed if the programs could not be attached to it.
 */
typedef int (*loader_t)(struct loaded *l, pid_t pid, const char *binary,
			bool spin);

static int run_child(struct loaded *l, const char *prog, const char *mode,
		     const char *arg, unsigned int nsym, const char *binary,
		     bool spin, loader_t loader)
{
	struct child c = { .pid = -1 };
	int err;

	memset(l, 0, sizeof(*l));
	err = child_start(&c, prog, mode, arg);
	if (!err && out.nsym != nsym) {
		ksft_print_msg("%s %s: %u symbols\n", prog, mode, out.nsym);
		err = -EINVAL;
	}
	if (!err)
		err = loader(l, c.pid, binary, spin);
	if (err) {
		if (c.pid > 0)
			kill(c.pid, SIGKILL);
		return err;
	}
	err = child_finish(&c);
	return err ? err : drain(l);
}

/* The stack of the record's bpf_get_stack(), user */
static void record_stack(const struct sfb_record *r, struct stack *s)
{
	s->nr = r->user_len > 0 ? r->user_len / sizeof(__u64) : 0;
	memcpy(s->ips, r->user, s->nr * sizeof(__u64));
}

/*
 * bpf_get_stackid()'s stack is bpf_get_stack()'s.  Without
 * BPF_F_REUSE_STACKID a bucket keeps the first stack stored in it: the
 * stack of an id that a program got stays there.
 */
static bool stackid_same(const struct loaded *l, const struct sfb_record *r,
			 const struct stack *s)
{
	__u64 ips[SFB_MAX_IPS] = {};
	__u32 id = r->stackid;
	unsigned int i;

	/* Another stack in the bucket: nothing to compare */
	if (r->stackid == -EEXIST)
		return true;
	if (r->stackid < 0 || bpf_map_lookup_elem(l->stackmap, &id, ips))
		return false;
	for (i = 0; i < SFB_MAX_IPS; i++)
		if (ips[i] != (i < s->nr ? s->ips[i] : 0))
			return false;
	return true;
}

static bool prefix_equal(const struct stack *s, const struct stack *t)
{
	unsigned int i;

	if (s->nr < t->nr)
		return false;
	for (i = 0; i < t->nr; i++)
		if (s->ips[i] != t->ips[i])
			return false;
	return true;
}

static bool equal(const struct stack *s, const struct stack *t)
{
	return s->nr == t->nr && prefix_equal(s, t);
}

static void show(const char *what, const struct stack *s)
{
	char buf[1024];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < s->nr && i < 30 && len < sizeof(buf) - 20; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %llx",
				(unsigned long long)s->ips[i]);
	ksft_print_msg("%s (%u):%s\n", what, s->nr, buf);
}

/*
 * What a frame pointer walk gives at a function's first instruction, before
 * SFrame as now: x86-64's perf_callchain_user() reads the return address at
 * the stack pointer when a uprobe hit a function's entry; arm64's reads
 * frame records only, and misses the caller, whose return address is still
 * in the link register.
 */
#ifdef __aarch64__
#define FP_WALK_MISSES_ENTRY_CALLER	true
#else
#define FP_WALK_MISSES_ENTRY_CALLER	false
#endif

static void fp_at_entry(struct stack *s)
{
	if (!FP_WALK_MISSES_ENTRY_CALLER || s->nr < 2)
		return;
	memmove(&s->ips[1], &s->ips[2], (s->nr - 2) * sizeof(s->ips[0]));
	s->nr--;
}

/*
 * The chain at its system calls.  @fp: the program has frame pointers
 * and no SFrame: the stacks must be perf's.
 */
static void test_chain(const char *prog, bool fp)
{
	unsigned int i, right = 0, as_perf = 0, ids = 0, shown = 0, nsys = 0;
	unsigned int nup[2] = {}, upright[2] = {};
	char path[PATH_MAX + 64];
	struct loaded l;
	struct stack s;
	char runs[16];
	int err;

	snprintf(runs, sizeof(runs), "%d", CHAIN_RUNS);
	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	err = run_child(&l, prog, "chain", runs, 1, path, false, load);
	for (i = 0; !err && i < nrecords; i++) {
		const struct sfb_record *r = &records[i];
		unsigned int k = r->kind == SFB_UPROBE_S, n;
		struct stack expect;
		bool ok;

		record_stack(r, &s);
		/* Sleepable programs cannot use stack maps */
		if (r->kind == SFB_UPROBE_S)
			ids++;
		else
			ids += stackid_same(&l, r, &s);
		if (r->kind == SFB_UPROBE || r->kind == SFB_UPROBE_S) {
			/* At st_leaf_bare's entry, in the first leaf's run */
			n = nup[k]++;
			if (2 * n >= out.ntruth)
				continue;
			expect = out.truth[2 * n];
			expect.ips[0] = out.sym[0][0];
			if (fp)
				fp_at_entry(&expect);
			ok = prefix_equal(&s, &expect);
			upright[k] += ok;
			if (!ok && shown++ < 4) {
				ksft_print_msg("uprobe%s %u:\n", k ? ".s" : "", n);
				show("  BPF     ", &s);
				show("  expected", &expect);
			}
			continue;
		}
		if (r->kind != SFB_SYSCALL || nsys >= out.ntruth)
			continue;
		n = nsys++;
		as_perf += equal(&s, &out.perf[n]);
		right += prefix_equal(&s, &out.truth[n]);
		ok = fp ? equal(&s, &out.perf[n]) :
			  prefix_equal(&s, &out.truth[n]);
		if (!ok && shown++ < 4) {
			ksft_print_msg("system call %u:\n", n);
			show("  BPF  ", &s);
			show("  truth", &out.truth[n]);
			show("  perf ", &out.perf[n]);
		}
	}
	unload(&l);
	if (!err && (out.ntruth != 2 * CHAIN_RUNS || nsys != out.ntruth)) {
		ksft_print_msg("%u system calls recorded, %u BPF records of them\n",
			       out.ntruth, nsys);
		err = -EIO;
	}
	if (err) {
		ksft_test_result_fail("%s chain: %s\n", prog, strerror(-err));
		ksft_test_result_fail("%s uprobe\n", prog);
		ksft_test_result_fail("%s uprobe.s\n", prog);
		return;
	}
	ksft_print_msg("%s: uprobe at st_leaf_bare: %u of %u stacks right; uprobe.s: %u of %u\n",
		       prog, upright[0], nup[0], upright[1], nup[1]);
	ksft_print_msg("%s: %u system calls: %u the chain, %u perf's walk; %u stack ids right\n",
		       prog, nsys, right, as_perf, ids);
	if (fp)
		ksft_test_result(as_perf == nsys && ids == nrecords,
				 "%s chain: every stack is perf's frame pointer walk\n",
				 prog);
	else
		ksft_test_result(right == nsys && ids == nrecords &&
				 as_perf < nsys,
				 "%s chain: every stack is the chain, frame by frame\n",
				 prog);
	ksft_test_result(nup[0] == CHAIN_RUNS && upright[0] == nup[0],
			 "%s uprobe: the chain below st_leaf_bare's entry\n", prog);
	ksft_test_result(nup[1] == CHAIN_RUNS && upright[1] == nup[1],
			 "%s uprobe.s: the chain below st_leaf_bare's entry, sleepable\n",
			 prog);
}

static bool in_sym(unsigned int k, __u64 ip)
{
	return ip >= out.sym[k][0] && ip < out.sym[k][1];
}

/*
 * The frames from spin_leaf down to main, each where it must be.  In the
 * frame pointer program, what a frame pointer walk gives, before SFrame
 * as now.  On x86-64 spin_leaf keeps no frame record (GCC makes none in
 * a leaf that needs no stack), and the walk misses its caller, spin_mid;
 * on arm64 -mno-omit-leaf-frame-pointer gives the leaf its record, and
 * the walk has every frame.
 */
static bool spin_right(const struct stack *s, bool fp)
{
	static const unsigned int chain[] = { 0, 1, 2, 3 };
#ifdef __aarch64__
	static const unsigned int fp_chain[] = { 0, 1, 2, 3 };
#else
	static const unsigned int fp_chain[] = { 0, 2, 3 };
#endif
	const unsigned int *want = fp ? fp_chain : chain;
	unsigned int k, n = fp ? ARRAY_SIZE(fp_chain) : ARRAY_SIZE(chain);

	if (s->nr < n)
		return false;
	for (k = 0; k < n; k++)
		if (!in_sym(want[k], k ? s->ips[k] - 1 : s->ips[k]))
			return false;
	return true;
}

static void test_spin(const char *prog, bool fp, double target)
{
	unsigned int n[2] = {}, leaf[2] = {}, right[2] = {}, ids = 0;
	unsigned int kernel_bad = 0, shown = 0, i;
	struct loaded l;
	struct stack s;
	int err;

	err = run_child(&l, prog, "spin", SPIN_SECONDS, 4, NULL, true, load);
	for (i = 0; !err && i < nrecords; i++) {
		const struct sfb_record *r = &records[i];
		unsigned int k = r->kind == SFB_SAMPLE_PE, j;

		record_stack(r, &s);
		n[k]++;
		ids += stackid_same(&l, r, &s);
		if (k) {
			/* No kernel frames: the samples are of user time */
			bool bad = r->kernel_len != 0;

			for (j = 0; j < 16 && j < r->kernel_len / 8; j++)
				bad |= r->kernel[j] >= (__u64)PERF_CONTEXT_MAX;
			kernel_bad += bad;
			if (bad && shown++ < 3)
				ksft_print_msg("sample %u: kernel stack of %lld bytes, first word %#llx\n",
					       i, (long long)r->kernel_len,
					       (unsigned long long)r->kernel[0]);
		}
		if (!s.nr || !in_sym(0, s.ips[0]))
			continue;
		leaf[k]++;
		if (spin_right(&s, fp)) {
			right[k]++;
		} else if (shown++ < 3) {
			ksft_print_msg("sample %u (%s):\n", i, k ? "pe" : "plain");
			show("  BPF", &s);
		}
	}
	unload(&l);
	if (err) {
		ksft_test_result_fail("%s samples: %s\n", prog, strerror(-err));
		ksft_test_result_fail("%s deferred callchain samples\n", prog);
		return;
	}
	for (i = 0; i < 2; i++)
		ksft_print_msg("%s, %s: %u samples, %u in spin_leaf, %u complete and right: %.1f%%\n",
			       prog, i ? "defer_callchain event" : "plain event",
			       n[i], leaf[i], right[i],
			       leaf[i] ? 100.0 * right[i] / leaf[i] : 0.0);
	ksft_print_msg("%u of %u stack ids right; %u kernel stacks with deferred markers\n",
		       ids, n[0] + n[1], kernel_bad);
	ksft_test_result(leaf[0] >= 20 && 100.0 * right[0] >= target * leaf[0] &&
			 ids == n[0] + n[1],
			 "%s samples: at least %.0f%% of the stacks in spin_leaf %s\n",
			 prog, target, fp ? "the frame pointer walk's" :
			 "complete and right");
	ksft_test_result(leaf[1] >= 20 && !kernel_bad &&
			 100.0 * right[1] >= target * leaf[1],
			 "%s deferred callchain samples: no marker in the kernel stack, user stack complete\n",
			 prog);
}

/*
 * Deferred stacks (sframe_bpf_defer.bpf.c): programs that cannot fault ask
 * with bpf_unwind_user_request(), and the bpf_unwind_user_stack
 * tracepoint delivers the stack on the task's way back to user space.
 * The requests of one kernel entry share a cookie, whose stack comes
 * exactly once.
 */
static const char *const defer_chain_progs[] = {
	"req_getppid", "req_exit", "req_exiting", "deliver", NULL
};

static const char *const defer_spin_progs[] = {
	"req_sample", "deliver", NULL
};

/* Detach in the reverse order of attach_defer(): the deliverer last */
static void detach(struct loaded *l)
{
	unsigned int i;

	for (i = 5; i-- > 0;) {
		bpf_link__destroy(l->links[i]);
		l->links[i] = NULL;
	}
}

/* Attach @prog if it was loaded; req_sample to a task-clock event of @pid */
static int attach_one(struct loaded *l, unsigned int *n,
		      struct bpf_program *prog, pid_t pid)
{
	const char *name = bpf_program__name(prog);
	struct bpf_link *link;

	if (!bpf_program__autoload(prog) || !strcmp(name, "req_test_run"))
		return 0;
	if (!strcmp(name, "req_sample"))
		link = attach_clock(prog, pid, false);
	else
		link = bpf_program__attach(prog);
	if (!link || *n >= 5) {
		ksft_print_msg("attaching %s: %s\n", name, strerror(errno));
		bpf_link__destroy(link);
		return -EIO;
	}
	l->links[(*n)++] = link;
	return 0;
}

/*
 * Attach the loaded programs, deliver first: a request made before it is
 * attached would be answered to nobody.
 */
static int attach_defer(struct loaded *l, pid_t pid)
{
	struct bpf_program *prog, *deliver;
	unsigned int n = 0;
	int err;

	deliver = bpf_object__find_program_by_name(l->obj, "deliver");
	err = attach_one(l, &n, deliver, pid);
	bpf_object__for_each_program(prog, l->obj)
		if (!err && prog != deliver)
			err = attach_one(l, &n, prog, pid);
	return err;
}

static int load_defer(struct loaded *l, pid_t pid, const char *binary,
		      bool spin)
{
	int err;

	(void)binary;
	err = open_object(l, "sframe_bpf_defer.bpf.o", pid,
			  spin ? defer_spin_progs : defer_chain_progs, NULL, 0);
	return err ? err : attach_defer(l, pid);
}

/* The first delivery of @cookie, and in *@count how many there were */
static const struct sfb_record *delivery(__u64 cookie, unsigned int *count)
{
	const struct sfb_record *found = NULL;
	unsigned int i;

	*count = 0;
	for (i = 0; i < nrecords; i++) {
		if (records[i].kind != SFB_DELIVERED ||
		    records[i].cookie != cookie)
			continue;
		if (!found)
			found = &records[i];
		(*count)++;
	}
	return found;
}

/* A request answered by exactly one delivery, of a non-empty stack */
static const struct sfb_record *delivered_once(const struct sfb_record *r)
{
	const struct sfb_record *d;
	unsigned int count;

	if (r->ret < 0 || !r->cookie)
		return NULL;
	d = delivery(r->cookie, &count);
	return count == 1 && d->ret > 0 ? d : NULL;
}

/*
 * The chain's system calls, each asking for its stack at sys_enter: every
 * stack delivered once, and the chain; at exit_group, the request pending
 * when the task exits is delivered on its way out; at sched_process_exit,
 * the exiting task gets -EINVAL.
 */
static void test_defer_chain(const char *prog)
{
	unsigned int i, nsys = 0, once = 0, right = 0, shown = 0;
	unsigned int nexit = 0, exit_ok = 0, nexiting = 0, exiting_ok = 0;
	char path[PATH_MAX + 64];
	struct loaded l;
	char runs[16];
	int err;

	snprintf(runs, sizeof(runs), "%d", CHAIN_RUNS);
	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	err = run_child(&l, prog, "chain", runs, 1, path, false, load_defer);
	for (i = 0; !err && i < nrecords; i++) {
		const struct sfb_record *r = &records[i], *d;
		struct stack s = {};
		unsigned int n;

		d = r->kind == SFB_DELIVERED ? NULL : delivered_once(r);
		if (r->kind == SFB_REQ_EXIT) {
			nexit++;
			exit_ok += r->ret == 0 && d;
		} else if (r->kind == SFB_REQ_EXITING) {
			nexiting++;
			exiting_ok += r->ret == -EINVAL && !r->cookie;
		}
		if (r->kind != SFB_REQ_SYSCALL)
			continue;
		n = nsys++;
		once += r->ret == 0 && d;
		if (d)
			record_stack(d, &s);
		if (d && n < out.ntruth && prefix_equal(&s, &out.truth[n])) {
			right++;
		} else if (shown++ < 4) {
			ksft_print_msg("system call %u: request %lld, cookie %#llx\n",
				       n, (long long)r->ret,
				       (unsigned long long)r->cookie);
			show("  delivered", &s);
			if (n < out.ntruth)
				show("  truth    ", &out.truth[n]);
		}
	}
	unload(&l);
	if (!err && (out.ntruth != 2 * CHAIN_RUNS || nsys != out.ntruth)) {
		ksft_print_msg("%u system calls recorded, %u requests of them\n",
			       out.ntruth, nsys);
		err = -EIO;
	}
	if (err) {
		ksft_test_result_fail("%s deferred chain: %s\n", prog,
				      strerror(-err));
		ksft_test_result_fail("%s deferred at exit\n", prog);
		return;
	}
	ksft_print_msg("%s: %u requests at system calls, %u delivered once, %u the chain; exit_group %u of %u, sched_process_exit %u of %u\n",
		       prog, nsys, once, right, exit_ok, nexit, exiting_ok,
		       nexiting);
	ksft_test_result(once == nsys && right == nsys,
			 "%s deferred chain: each request delivered once, with its cookie, the chain frame by frame\n",
			 prog);
	ksft_test_result(nexit == 1 && exit_ok == 1 && nexiting == 1 &&
			 exiting_ok == 1,
			 "%s deferred at exit: a pending request is delivered on the way out, an exiting task gets -EINVAL\n",
			 prog);
}

/*
 * Samples of the program's user time from a perf_event program: each
 * request delivered once, the stacks complete; the figures of the walk
 * that cannot fault, in the same samples, for comparison.  @evict: while
 * the program keeps dropping its .sframe pages from its page tables, the
 * walk that cannot fault must miss some stacks (or the test tests
 * nothing), the deferred walk none.
 */
static void test_defer_spin(const char *prog, bool evict)
{
	const char *mode = evict ? "spin-evict" : "spin";
	unsigned int n = 0, once = 0, leaf = 0, right = 0, now_right = 0;
	unsigned int shown = 0, i;
	struct loaded l;
	int err;

	err = run_child(&l, prog, mode, SPIN_SECONDS, 4, NULL, true,
			load_defer);
	for (i = 0; !err && i < nrecords; i++) {
		const struct sfb_record *r = &records[i], *d;
		struct stack s, now;

		if (r->kind != SFB_REQ_SAMPLE)
			continue;
		n++;
		d = delivered_once(r);
		once += !!d;
		if (!d) {
			unsigned int count = 0;

			if (r->cookie)
				delivery(r->cookie, &count);
			if (shown++ < 3)
				ksft_print_msg("request %u: returned %lld, cookie %#llx, %u deliveries\n",
					       n, (long long)r->ret,
					       (unsigned long long)r->cookie,
					       count);
			continue;
		}
		record_stack(d, &s);
		record_stack(r, &now);
		if (!s.nr || !in_sym(0, s.ips[0]))
			continue;
		leaf++;
		now_right += spin_right(&now, false);
		if (spin_right(&s, false)) {
			right++;
		} else if (shown++ < 3) {
			ksft_print_msg("sample %u:\n", n);
			show("  delivered", &s);
		}
	}
	unload(&l);
	if (err) {
		ksft_test_result_fail("%s deferred samples, %s: %s\n", prog,
				      mode, strerror(-err));
		return;
	}
	ksft_print_msg("%s %s: %u requests, %u delivered once; in spin_leaf %u: deferred %u complete and right (%.1f%%), the walk that cannot fault %u (%.1f%%)\n",
		       prog, mode, n, once, leaf, right,
		       leaf ? 100.0 * right / leaf : 0.0, now_right,
		       leaf ? 100.0 * now_right / leaf : 0.0);
	ksft_test_result(n >= 20 && once == n && leaf >= 20 && right == leaf &&
			 (!evict || now_right < leaf),
			 "%s deferred samples%s: each request delivered once, every stack complete and right\n",
			 prog, evict ? ", .sframe evicted" : "");
}

static bool in_executable_mapping(__u64 ip)
{
	unsigned long start, end;
	char line[512], perms[8];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 &&
			perms[2] == 'x' && ip >= start && ip < end;
	fclose(f);
	return found;
}

/*
 * A raw_tp program run by BPF_PROG_TEST_RUN asks in this process's bpf()
 * system calls: one delivery each, on their way back, each entry with a
 * cookie of its own, the innermost frame in this process's code.
 */
static void test_defer_test_run(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	static const char *const progs[] = { "req_test_run", "deliver", NULL };
	unsigned int i, nreq = 0, ok = 0;
	__u64 cookies[2] = {};
	struct loaded l;
	int err, fd;

	err = open_object(&l, "sframe_bpf_defer.bpf.o", getpid(), progs,
			  NULL, 0);
	err = err ?: attach_defer(&l, getpid());
	fd = err ? -1 : bpf_program__fd(bpf_object__find_program_by_name(l.obj,
							"req_test_run"));
	for (i = 0; !err && i < 2; i++)
		err = bpf_prog_test_run_opts(fd, &topts);
	err = err ?: drain(&l);
	for (i = 0; !err && i < nrecords; i++) {
		const struct sfb_record *r = &records[i], *d;

		if (r->kind != SFB_REQ_TEST_RUN)
			continue;
		d = delivered_once(r);
		if (nreq < 2)
			cookies[nreq] = r->cookie;
		nreq++;
		ok += r->ret == 0 && d && in_executable_mapping(d->user[0]);
	}
	unload(&l);
	if (!err)
		ksft_print_msg("BPF_PROG_TEST_RUN: %u requests, %u delivered once, cookies %#llx %#llx\n",
			       nreq, ok, (unsigned long long)cookies[0],
			       (unsigned long long)cookies[1]);
	ksft_test_result(!err && nreq == 2 && ok == 2 &&
			 cookies[0] != cookies[1],
			 "deferred in bpf(): each system call delivered once, with a cookie of its own\n");
}

/* What the verifier must refuse, and why */
static void test_defer_verifier(void)
{
	static const struct {
		const char *prog, *why, *what;
	} cases[] = {
		{ "bad_null", "Possibly NULL pointer passed",
		  "a NULL cookie" },
		{ "bad_prog_type",
		  "calling kernel function bpf_unwind_user_request is not allowed",
		  "a socket filter" },
	};
	static char log[65536];
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const char *progs[] = { cases[i].prog, NULL };
		struct loaded l;
		bool refused;
		int err;

		log[0] = '\0';
		err = open_object(&l, "sframe_bpf_defer.bpf.o", getpid(), progs,
				  log, sizeof(log));
		unload(&l);
		refused = err && strstr(log, cases[i].why);
		if (!refused)
			ksft_print_msg("%s: load returned %d, log:\n%.2000s\n",
				       cases[i].prog, err, log);
		ksft_test_result(refused,
				 "verifier: bpf_unwind_user_request() refused for %s: \"%s\"\n",
				 cases[i].what, cases[i].why);
	}
	libbpf_set_print(old);
}

/*
 * Attach and detach the requesting and delivering programs in a loop
 * while the program spins and is sampled: requests are in flight at each
 * detach.  The stacks delivered are whole, and the kernel says nothing
 * (the guest fails on any splat).
 */
/* SFB_CHURN_SECONDS: longer runs, on the debug kernel (default 10) */
static unsigned int churn_seconds(void)
{
	const char *env = getenv("SFB_CHURN_SECONDS");
	long secs = env ? strtol(env, NULL, 10) : 0;

	return secs > 0 && secs < 3600 ? secs : 10;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

struct tally {
	unsigned int requests;	/* distinct cookies of requests */
	unsigned int delivered;	/* ... answered */
	unsigned int extra;	/* deliveries of a cookie twice, or unasked */
	unsigned int empty;	/* deliveries of no stack */
};

/*
 * Match the requests of the records with their deliveries, by cookie, add
 * to @t, and empty the records for the next batch: a batch holds the
 * deliveries of its requests.
 */
static void tally_deliveries(struct tally *t)
{
	static __u64 req[MAX_RECORDS], del[MAX_RECORDS];
	unsigned int nreq = 0, ndel = 0, i, j = 0;

	for (i = 0; i < nrecords; i++) {
		const struct sfb_record *r = &records[i];

		if (r->kind == SFB_DELIVERED) {
			del[ndel++] = r->cookie;
			t->empty += r->ret <= 0;
		} else if (r->ret >= 0) {
			req[nreq++] = r->cookie;
		}
	}
	qsort(req, nreq, sizeof(*req), cmp_u64);
	qsort(del, ndel, sizeof(*del), cmp_u64);
	for (i = 0; i < nreq; i++) {
		if (i && req[i] == req[i - 1])
			continue;	/* requests of one entry */
		t->requests++;
		for (; j < ndel && del[j] < req[i]; j++)
			t->extra++;
		if (j < ndel && del[j] == req[i]) {
			t->delivered++;
			for (j++; j < ndel && del[j] == req[i]; j++)
				t->extra++;
		}
	}
	t->extra += ndel - j;
	nrecords = 0;
}

static void test_defer_churn(const char *prog, unsigned int seconds)
{
	unsigned int cycles = 0, i;
	struct tally t = {};
	struct child c = { .pid = -1 };
	char secs[16];
	struct loaded l = {};
	int err, status;

	nrecords = 0;
	dropped = 0;
	snprintf(secs, sizeof(secs), "%u", seconds);
	err = child_start(&c, prog, "spin", secs);
	err = err ?: open_object(&l, "sframe_bpf_defer.bpf.o", c.pid,
				 defer_spin_progs, NULL, 0);
	if (!err && write(c.to, "go\n", 3) != 3)
		err = -errno;
	while (!err && c.pid > 0 && waitpid(c.pid, &status, WNOHANG) == 0) {
		err = attach_defer(&l, c.pid);
		usleep(20000);
		detach(&l);
		/*
		 * Ended while the programs were being attached: a task that
		 * exits takes no new perf event (ESRCH) before it can be
		 * waited for.
		 */
		for (i = 0; err && i < 20; i++) {
			if (waitpid(c.pid, &status, WNOHANG) == c.pid) {
				err = 0;
				c.pid = -1;
				break;
			}
			usleep(100000);
		}
		err = err ?: (ring_buffer__consume(l.rb) < 0 ? -EIO : 0);
		tally_deliveries(&t);
		cycles++;
	}
	if (c.pid > 0 && err) {
		kill(c.pid, SIGKILL);
		waitpid(c.pid, &status, 0);
	}
	if (c.from)
		fclose(c.from);
	if (c.to > 0)
		close(c.to);
	err = err ?: (ring_buffer__consume(l.rb) < 0 ? -EIO : 0);
	unload(&l);
	tally_deliveries(&t);
	ksft_print_msg("%s: %u attach/detach cycles in %u s: %u requests, %u delivered, %u not (a detach in between), %u deliveries twice or unasked, %u empty; %u records lost\n",
		       prog, cycles, seconds, t.requests, t.delivered,
		       t.requests - t.delivered, t.extra, t.empty, dropped);
	ksft_test_result(!err && cycles >= 10 && t.delivered && !t.extra &&
			 !t.empty && !dropped,
			 "%s deferred: attach and detach with requests in flight\n",
			 prog);
}

int main(void)
{
	char exe[PATH_MAX];
	ssize_t len;

	ksft_print_header();
	ksft_set_plan(3 * 3 + 2 * 3 + 2 * 2 + 4 + 1 + 2 + 1);

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		ksft_exit_fail_msg("readlink(/proc/self/exe): %s\n",
				   strerror(errno));
	exe[len] = '\0';
	snprintf(dir, sizeof(dir), "%s", dirname(exe));
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);

	test_chain("sframe_bpf_chain_fp", true);
	test_chain("sframe_bpf_chain_v2", false);
	test_chain("sframe_bpf_chain_v3", false);
	/* The frame pointer program: the stacks it always had */
	test_spin("sframe_bpf_chain_fp", true, TARGET_PCT);
	test_spin("sframe_bpf_chain_v2", false, TARGET_PCT);
	test_spin("sframe_bpf_chain_v3", false, TARGET_PCT);
	/* Deferred stacks: they need the kernel's BTF, as every kfunc does */
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		ksft_print_msg("no /sys/kernel/btf/vmlinux: bpf_unwind_user_request() cannot be called (CONFIG_DEBUG_INFO_BTF)\n");
	test_defer_chain("sframe_bpf_chain_v2");
	test_defer_chain("sframe_bpf_chain_v3");
	test_defer_spin("sframe_bpf_chain_v2", false);
	test_defer_spin("sframe_bpf_chain_v3", false);
	test_defer_spin("sframe_bpf_chain_v2", true);
	test_defer_spin("sframe_bpf_chain_v3", true);
	test_defer_test_run();
	test_defer_verifier();
	test_defer_churn("sframe_bpf_chain_v2", churn_seconds());
	ksft_finished();
}
