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

struct loaded {
	struct bpf_object *obj;
	struct bpf_link *links[5];
	struct ring_buffer *rb;
	int stackmap;
	int perf_fds[2];
};

static void unload(struct loaded *l)
{
	int i;

	for (i = 0; i < 5; i++)
		bpf_link__destroy(l->links[i]);
	for (i = 0; i < 2; i++)
		if (l->perf_fds[i] >= 0)
			close(l->perf_fds[i]);
	ring_buffer__free(l->rb);
	bpf_object__close(l->obj);
	memset(l, 0, sizeof(*l));
}

static bool chain_prog(const char *name)
{
	return !strcmp(name, "on_getppid") || !strcmp(name, "on_leaf") ||
	       !strcmp(name, "on_leaf_s");
}

/*
 * Load the programs for @pid, running @binary, and attach them: @spin, the
 * perf_event ones, else the tracepoint and the uprobes.
 */
static int load(struct loaded *l, pid_t pid, const char *binary, bool spin)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .func_name = "st_leaf_bare");
	char path[PATH_MAX + 32];
	struct bpf_program *prog;
	struct bpf_map *rodata;
	size_t size;
	__u32 *tgid;
	int err;

	memset(l, 0, sizeof(*l));
	l->perf_fds[0] = -1;
	l->perf_fds[1] = -1;
	snprintf(path, sizeof(path), "%s/sframe_bpf.bpf.o", dir);
	l->obj = bpf_object__open_file(path, NULL);
	if (!l->obj) {
		ksft_print_msg("cannot open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	rodata = bpf_object__find_map_by_name(l->obj, ".rodata");
	tgid = rodata ? bpf_map__initial_value(rodata, &size) : NULL;
	if (!tgid || size < sizeof(*tgid)) {
		ksft_print_msg("no .rodata for target_tgid\n");
		return -EINVAL;
	}
	*tgid = pid;
	bpf_object__for_each_program(prog, l->obj)
		bpf_program__set_autoload(prog, spin !=
					  chain_prog(bpf_program__name(prog)));
	err = bpf_object__load(l->obj);
	if (err) {
		ksft_print_msg("loading %s: %s\n", path, strerror(-err));
		return err;
	}
	l->stackmap = bpf_object__find_map_fd_by_name(l->obj, "stackmap");
	l->rb = ring_buffer__new(bpf_object__find_map_fd_by_name(l->obj,
								 "stacks"),
				 on_record, NULL, NULL);
	if (!l->rb)
		return -errno;

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
	l->perf_fds[0] = perf_open_clock(pid, false);
	l->perf_fds[1] = perf_open_clock(pid, true);
	if (l->perf_fds[0] < 0 || l->perf_fds[1] < 0)
		return -errno;
	prog = bpf_object__find_program_by_name(l->obj, "on_sample");
	l->links[1] = bpf_program__attach_perf_event(prog, l->perf_fds[0]);
	prog = bpf_object__find_program_by_name(l->obj, "on_sample_pe");
	l->links[2] = bpf_program__attach_perf_event(prog, l->perf_fds[1]);
	if (!l->links[1] || !l->links[2])
		return -errno;
	return 0;
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
static int run_child(struct loaded *l, const char *prog, const char *mode,
		     const char *arg, unsigned int nsym, const char *binary,
		     bool spin)
{
	struct child c = { .pid = -1 };
	int err;

	memset(l, 0, sizeof(*l));
	l->perf_fds[0] = -1;
	l->perf_fds[1] = -1;
	err = child_start(&c, prog, mode, arg);
	if (!err && out.nsym != nsym) {
		ksft_print_msg("%s %s: %u symbols\n", prog, mode, out.nsym);
		err = -EINVAL;
	}
	if (!err)
		err = load(l, c.pid, binary, spin);
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
	err = run_child(&l, prog, "chain", runs, 1, path, false);
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
 * as now: spin_leaf keeps no frame record (GCC makes none in a leaf that
 * needs no stack), and the walk misses its caller, spin_mid.
 */
static bool spin_right(const struct stack *s, bool fp)
{
	static const unsigned int chain[] = { 0, 1, 2, 3 };
	static const unsigned int fp_chain[] = { 0, 2, 3 };
	const unsigned int *want = fp ? fp_chain : chain;
	unsigned int k, n = fp ? 3 : 4;

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

	err = run_child(&l, prog, "spin", SPIN_SECONDS, 4, NULL,
			true);
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

int main(void)
{
	char exe[PATH_MAX];
	ssize_t len;

	ksft_print_header();
	ksft_set_plan(3 * 3 + 2 * 3);

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
	ksft_finished();
}
