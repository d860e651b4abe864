// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-profile: sample the user stacks of one process, or of every
 * process, at a frequency, with BPF, and print them folded: one line per
 * distinct stack, "comm;outermost;...;innermost COUNT", the input of flame
 * graph tools.
 *
 * Each sample asks for the complete user stack (bpf_unwind_user_request())
 * and keeps, for when it does not come, the stack taken where the sample
 * was, without faulting.  The complete stack comes from the deferred
 * unwinder on the task's way back to user space, with the cookie of the
 * request (the bpf_unwind_user_stack tracepoint); every sample of that
 * cookie gets it.  On a kernel without deferred stacks, or with -a, the
 * samples keep what the walk that cannot fault found.
 *
 * Symbols come from the ELF symbol tables (.symtab, else .dynsym) of the
 * files the process maps, read when its first stack is final, while it
 * still runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sframe_profile.h"
#include "sframe_profile.skel.h"

#define MAX_CPUS	1024
#define MAX_PENDING	4096
#define FRAMES_MAX	(SP_MAX_IPS * 160)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Symbols */

struct sym {
	unsigned long addr, size;
	size_t name;		/* offset in the object's strings */
};

struct load {			/* a PT_LOAD: file offsets to addresses */
	unsigned long offset, vaddr, filesz;
};

struct object {
	char *path;
	char *strings;		/* the names of syms */
	struct sym *syms;
	size_t nsyms;
	struct load *loads;
	size_t nloads;
	struct object *next;
};

struct mapping {
	unsigned long start, end, offset;
	struct object *obj;	/* NULL: no file ([vdso], anonymous) */
	char name[32];		/* its name when it has no object */
};

struct process {
	__u32 tgid;
	struct mapping *maps;
	size_t nmaps;
	unsigned long maps_poll;	/* the poll they were read in */
	struct process *next;
};

static struct object *objects;
/* Ring buffer polls so far: maps are read again at most once a poll */
static unsigned long polls;
static struct process *processes;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Read the function symbols and PT_LOADs of @obj->path */
static void object_read(struct object *obj)
{
	size_t cap = 0, strsz = 0, strcap = 0, i, nph;
	Elf_Scn *scn = NULL, *symtab = NULL;
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf *elf;
	int fd;

	fd = open(obj->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nph))
		goto out;
	obj->loads = calloc(nph, sizeof(*obj->loads));
	for (i = 0; obj->loads && i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		obj->loads[obj->nloads++] = (struct load){
			ph.p_offset, ph.p_vaddr, ph.p_filesz
		};
	}
	/* .symtab when the file has one, else .dynsym */
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB ||
		    (shdr.sh_type == SHT_DYNSYM && !symtab))
			symtab = scn;
	}
	if (!symtab || !gelf_getshdr(symtab, &shdr) || !shdr.sh_entsize)
		goto out;
	data = elf_getdata(symtab, NULL);
	if (!data)
		goto out;
	for (i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
		const char *name;
		GElf_Sym s;
		size_t len;

		if (!gelf_getsym(data, i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
			continue;
		name = elf_strptr(elf, shdr.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		len = strlen(name) + 1;
		if (obj->nsyms == cap) {
			cap = cap ? 2 * cap : 1024;
			obj->syms = realloc(obj->syms, cap * sizeof(*obj->syms));
		}
		if (strsz + len > strcap) {
			strcap = (strsz + len) * 2;
			obj->strings = realloc(obj->strings, strcap);
		}
		if (!obj->syms || !obj->strings)
			break;
		memcpy(obj->strings + strsz, name, len);
		obj->syms[obj->nsyms++] = (struct sym){
			s.st_value, s.st_size, strsz
		};
		strsz += len;
	}
	if (!obj->syms || !obj->strings)
		obj->nsyms = 0;
	qsort(obj->syms, obj->nsyms, sizeof(*obj->syms), cmp_sym);
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct object *object_get(const char *path)
{
	struct object *obj;

	for (obj = objects; obj; obj = obj->next)
		if (!strcmp(obj->path, path))
			return obj;
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	obj->path = strdup(path);
	if (obj->path)
		object_read(obj);
	obj->next = objects;
	objects = obj;
	return obj;
}

/* The executable mappings of @p, from /proc/PID/maps */
static void process_read_maps(struct process *p)
{
	char path[64], line[4096];
	size_t cap = 0;
	FILE *f;

	free(p->maps);
	p->maps = NULL;
	p->nmaps = 0;
	p->maps_poll = polls;
	snprintf(path, sizeof(path), "/proc/%u/maps", p->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, offset;
		char perms[8], file[4096] = "";
		struct mapping *m;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start,
			   &end, perms, &offset, file) < 4 || perms[2] != 'x')
			continue;
		if (p->nmaps == cap) {
			cap = cap ? 2 * cap : 64;
			m = realloc(p->maps, cap * sizeof(*m));
			if (!m)
				break;
			p->maps = m;
		}
		m = &p->maps[p->nmaps++];
		*m = (struct mapping){ start, end, offset, NULL, "" };
		if (file[0] == '/')
			m->obj = object_get(file);
		else
			snprintf(m->name, sizeof(m->name), "%s",
				 file[0] ? file : "[anon]");
	}
	fclose(f);
}

static struct process *process_get(__u32 tgid)
{
	struct process *p;

	for (p = processes; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	process_read_maps(p);
	p->next = processes;
	processes = p;
	return p;
}

static const struct mapping *find_mapping(const struct process *p,
					  unsigned long ip)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (ip >= p->maps[i].start && ip < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* The name of the function at @ip, in @buf */
static void symbolize(struct process *p, unsigned long ip, char *buf,
		      size_t len)
{
	const struct mapping *m = find_mapping(p, ip);
	unsigned long off, addr;
	const struct object *obj;
	size_t lo, hi, i;

	if (!m && p->maps_poll != polls) {
		/*
		 * Mapped since the maps were read (dlopen()); not again for
		 * every frame of a junk address
		 */
		process_read_maps(p);
		m = find_mapping(p, ip);
	}
	if (!m) {
		snprintf(buf, len, "[unknown]");
		return;
	}
	obj = m->obj;
	if (!obj) {
		snprintf(buf, len, "%s", m->name);
		return;
	}
	off = ip - m->start + m->offset;
	for (i = 0; i < obj->nloads; i++) {
		const struct load *l = &obj->loads[i];

		if (off < l->offset || off - l->offset >= l->filesz)
			continue;
		addr = l->vaddr + off - l->offset;
		lo = 0;
		hi = obj->nsyms;
		while (lo < hi) {	/* the last symbol at or below addr */
			size_t mid = (lo + hi) / 2;

			if (obj->syms[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr - obj->syms[lo - 1].addr <
			  (obj->syms[lo - 1].size ?: 1)) {
			snprintf(buf, len, "%s",
				 obj->strings + obj->syms[lo - 1].name);
			return;
		}
		break;
	}
	snprintf(buf, len, "[%s]", strrchr(obj->path, '/') + 1);
}

/* Folded stacks */

static char **folded;
static size_t nfolded, capfolded;

static struct {
	unsigned long samples, complete, no_request, empty, pending, unusable;
} stats;

static void fold(const struct sp_event *s, const __u64 *ips, __u32 nr)
{
	static char line[FRAMES_MAX];
	struct process *p = process_get(s->tgid);
	size_t len;
	__u32 i;

	len = snprintf(line, sizeof(line), "%.*s", SP_COMM_LEN, s->comm);
	for (i = nr; p && i-- > 0;) {
		char name[256];

		/* A return address: its call is the instruction before */
		symbolize(p, ips[i] - (i ? 1 : 0), name, sizeof(name));
		len += snprintf(line + len, sizeof(line) - len, ";%s", name);
		if (len >= sizeof(line))
			return;
	}
	if (nfolded == capfolded) {
		char **f;

		capfolded = capfolded ? 2 * capfolded : 4096;
		f = realloc(folded, capfolded * sizeof(*f));
		if (!f)
			return;
		folded = f;
	}
	folded[nfolded] = strdup(line);
	if (folded[nfolded])
		nfolded++;
}

/* Samples waiting for their deferred stack, oldest first */
static struct sp_event *pending;
static size_t npending;

static void fold_sample(const struct sp_event *s)
{
	stats.samples++;
	fold(s, s->ips, s->nr);
}

/*
 * The last deferred stack of each thread, by tid.  A request in a kernel
 * entry whose stack was delivered already (a sample taken while the
 * deferred unwinder ran, before the task went back to user space) gets
 * that entry's cookie, and its stack does not come again.
 */
#define LAST_SLOTS	4096
static struct sp_event *last_stack[LAST_SLOTS];

/* Sample s gets the deferred stack t: complete, or empty (s keeps its own) */
static void take(const struct sp_event *s, const struct sp_event *t)
{
	stats.samples++;
	if (t->nr) {
		stats.complete++;
		fold(s, t->ips, t->nr);
	} else {
		stats.empty++;
		fold(s, s->ips, s->nr);
	}
}

static void keep_last(const struct sp_event *t)
{
	struct sp_event **slot = &last_stack[t->tid % LAST_SLOTS];

	if (!*slot)
		*slot = malloc(sizeof(**slot));
	if (*slot)
		**slot = *t;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct sp_event *e = data, *t;
	size_t i, kept = 0;

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	if (e->kind == SP_SAMPLE) {
		if (e->request < 0 || !e->cookie) {
			stats.no_request++;
			fold_sample(e);
			return 0;
		}
		t = last_stack[e->tid % LAST_SLOTS];
		if (t && t->tid == e->tid && t->tgid == e->tgid &&
		    t->cookie == e->cookie) {
			take(e, t);
			return 0;
		}
		if (npending == MAX_PENDING) {
			/* Never answered: the oldest keeps its own stack */
			stats.unusable++;
			fold_sample(&pending[0]);
			memmove(pending, pending + 1,
				--npending * sizeof(*pending));
		}
		pending[npending++] = *e;
		return 0;
	}
	/* A deferred stack: for every sample of its cookie */
	for (i = 0; i < npending; i++) {
		const struct sp_event *s = &pending[i];

		if (s->cookie != e->cookie || s->tgid != e->tgid)
			pending[kept++] = *s;
		else
			take(s, e);
	}
	npending = kept;
	keep_last(e);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct count {
	const char *stack;
	size_t n;
};

static int cmp_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

static void print_folded(void)
{
	struct count *counts = calloc(nfolded + 1, sizeof(*counts));
	size_t i, n = 0;

	qsort(folded, nfolded, sizeof(*folded), cmp_str);
	for (i = 0; counts && i < nfolded; i++) {
		if (n && !strcmp(counts[n - 1].stack, folded[i]))
			counts[n - 1].n++;
		else
			counts[n++] = (struct count){ folded[i], 1 };
	}
	if (counts)
		qsort(counts, n, sizeof(*counts), cmp_count);
	for (i = 0; counts && i < n; i++)
		printf("%s %zu\n", counts[i].stack, counts[i].n);
	free(counts);
}

static int open_cpu_clock(int cpu, unsigned long hz)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = hz,
	};

	return syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: sframe-profile [-p PID] [-F HZ] [-d SECONDS] [-a]\n"
		"Sample user stacks with BPF and print them folded\n"
		"(comm;outermost;...;innermost COUNT), the input of flame graphs.\n"
		"  -p PID      only this process (default: every process)\n"
		"  -F HZ       samples a second on each CPU (default 99)\n"
		"  -d SECONDS  how long (default 10; SIGINT stops earlier)\n"
		"  -a          no deferred stacks: each sample keeps the stack\n"
		"              taken where it was, without faulting\n");
}

int main(int argc, char **argv)
{
	static struct bpf_link *links[MAX_CPUS];
	unsigned long hz = 99, seconds = 10, pid = 0;
	struct bpf_link *deliver_link = NULL;
	struct sframe_profile_bpf *skel;
	struct ring_buffer *rb = NULL;
	bool atomic_only = false, deferred;
	int ncpus, cpu, nlinks = 0, opt, err = 1;
	struct timespec end, now;
	size_t i;

	while ((opt = getopt(argc, argv, "p:F:d:ah")) != -1) {
		switch (opt) {
		case 'p':
			pid = strtoul(optarg, NULL, 10);
			break;
		case 'F':
			hz = strtoul(optarg, NULL, 10);
			break;
		case 'd':
			seconds = strtoul(optarg, NULL, 10);
			break;
		case 'a':
			atomic_only = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !hz || !seconds || pid > UINT32_MAX) {
		print_usage(stderr);
		return 2;
	}
	elf_version(EV_CURRENT);
	pending = calloc(MAX_PENDING, sizeof(*pending));
	if (!pending)
		return 1;

	skel = sframe_profile_bpf__open();
	if (!skel) {
		fprintf(stderr, "sframe-profile: cannot open the BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = pid;
	skel->rodata->atomic_only = atomic_only;
	/* Deferred stacks need the tracepoint and the kfunc of the series */
	deferred = !atomic_only &&
		   libbpf_find_vmlinux_btf_id("bpf_unwind_user_stack",
					      BPF_TRACE_RAW_TP) > 0;
	if (!deferred)
		bpf_program__set_autoload(skel->progs.deliver, false);
	if (!atomic_only && !deferred)
		fprintf(stderr, "sframe-profile: this kernel has no deferred user stacks (bpf_unwind_user_stack): stacks as taken without faulting\n");
	if (sframe_profile_bpf__load(skel)) {
		fprintf(stderr, "sframe-profile: cannot load the BPF programs: %s\n",
			strerror(errno));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL,
			      NULL);
	if (!rb)
		goto out;
	/* The deliverer first: a request before it would go unanswered */
	if (deferred) {
		deliver_link = bpf_program__attach(skel->progs.deliver);
		if (!deliver_link) {
			fprintf(stderr, "sframe-profile: cannot attach to bpf_unwind_user_stack: %s\n",
				strerror(errno));
			goto out;
		}
	}
	ncpus = libbpf_num_possible_cpus();
	for (cpu = 0; cpu < ncpus && cpu < MAX_CPUS; cpu++) {
		int fd = open_cpu_clock(cpu, hz);

		if (fd < 0) {
			if (errno == ENODEV)	/* offline */
				continue;
			fprintf(stderr, "sframe-profile: perf_event_open(cpu-clock, CPU %d): %s\n",
				cpu, strerror(errno));
			goto out;
		}
		links[nlinks] = bpf_program__attach_perf_event(skel->progs.sample,
							       fd);
		if (!links[nlinks]) {
			close(fd);
			goto out;
		}
		nlinks++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "sframe-profile: sampling %s at %lu Hz on %d CPUs for %lu s%s\n",
		pid ? "one process" : "every process", hz, nlinks, seconds,
		deferred ? ", with deferred stacks" : "");
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	while (!stop) {
		polls++;
		if (ring_buffer__poll(rb, 100) < 0 && errno != EINTR)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
	}
	/* Stop sampling, then take the stacks still on their way */
	for (i = 0; i < (size_t)nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	polls++;
	ring_buffer__poll(rb, 200);
	ring_buffer__consume(rb);
	for (i = 0; i < npending; i++) {
		stats.pending++;
		fold_sample(&pending[i]);
	}
	print_folded();
	fprintf(stderr, "sframe-profile: %lu samples: %lu deferred stacks, %lu taken without faulting (%lu without a request, %lu whose deferred walk found nothing, %lu never answered); %llu lost\n",
		stats.samples, stats.complete,
		stats.samples - stats.complete, stats.no_request, stats.empty,
		stats.pending + stats.unusable,
		(unsigned long long)skel->bss->lost);
	err = 0;
out:
	for (i = 0; i < (size_t)nlinks; i++)
		bpf_link__destroy(links[i]);
	bpf_link__destroy(deliver_link);
	ring_buffer__free(rb);
	sframe_profile_bpf__destroy(skel);
	return err;
}
