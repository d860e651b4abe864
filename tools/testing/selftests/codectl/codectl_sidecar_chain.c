// SPDX-License-Identifier: GPL-2.0
/*
 * The program codectl_sidecar traces.  Built with -O2 -fomit-frame-pointer,
 * with -Wa,--gsframe (codectl_sidecar_chain) or without
 * (codectl_sidecar_chain_nosf), it runs a chain through the C library:
 *
 *	main -> sc_sort -> qsort() -> ... -> sc_cmp -> sc_find -> bsearch()
 *	     -> sc_key_cmp -> sc_leaf -> write() -> ... -> the system call
 *
 * so that frames of the C library are on top of the stack and in the middle
 * of it, and samples that write() with a perf event on its tracepoint, whose
 * user callchain is deferred.  Then it prints the stack the kernel took and
 * its /proc/self/sframe (codectl_sidecar.h), and exits 0; or says why not on
 * stderr and exits 1.
 *
 * On its way out it samples one more write(), from a stream's write
 * function that the C library calls when it flushes its streams at exit,
 * after ld.so has closed every object (la_objclose()), and prints that
 * stack and /proc/self/sframe there too (SC_EXIT_STACK, SC_EXIT_SFRAME).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "../sframe/sframe_lib.h"
#include "codectl_sidecar.h"

static int sc_done;	/* times the chain reached its write() */
static long sc_written;
static struct sft_perf sc_ev;	/* the write()s' perf event */

/*
 * A pointer to a function of the C library, hidden from the compiler, so
 * that the call goes to the library: at -O2, glibc's stdlib.h has an inline
 * bsearch(), which would take it off the stack.
 */
static void *sc_hide(void *fn)
{
	asm("" : "+r" (fn));
	return fn;
}

/* noipa, and work after each call: no call becomes a jump. */
__attribute__((noipa)) static long sc_leaf(void)
{
	long r = write(SC_MARKER_FD, SC_MARKER, SC_MARKER_LEN);

	sc_written = r;
	return r + 1;
}

/* bsearch()'s callback */
__attribute__((noipa)) static int sc_key_cmp(const void *key,
					     const void *elem)
{
	long r = sc_leaf();

	sc_done++;
	return (r != SC_MARKER_LEN + 1) +
	       (*(const int *)key - *(const int *)elem);
}

__attribute__((noipa)) static int sc_find(int v)
{
	static const int one[1] = { 42 };
	__typeof__(bsearch) *find = sc_hide(bsearch);
	const int *p;
	int key = 42;

	p = find(&key, one, 1, sizeof(one[0]), sc_key_cmp);
	return p ? *p + v : -1;
}

/* qsort()'s callback: the first comparison runs the rest of the chain */
__attribute__((noipa)) static int sc_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!sc_done)
		x += sc_find(0) - 42;
	return (x > y) - (x < y);
}

__attribute__((noipa)) static int sc_sort(void)
{
	__typeof__(qsort) *sort = sc_hide(qsort);
	int v[2] = { 2, 1 };

	sort(v, 2, sizeof(v[0]), sc_cmp);
	return v[0] * 10 + v[1];
}

/* Print the text of @s with write(): exit has closed stdio by now */
static void sc_put(const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(STDOUT_FILENO, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/* /proc/self/sframe, each line after @prefix and a space, by write() */
static void sc_put_sframe(const char *prefix)
{
	static char buf[1 << 16];
	char *line, *nl;
	size_t have = 0;
	ssize_t n;
	int fd = open("/proc/self/sframe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while (have < sizeof(buf) - 1 &&
	       (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += n;
	close(fd);
	buf[have] = '\0';
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		sc_put(prefix);
		sc_put(" ");
		sc_put(line);
		sc_put("\n");
	}
}

/* "@prefix N IP..." of the stack of @sample, or of none: N is 0 */
static void sc_put_stack(const char *prefix, const struct sft_sample *sample)
{
	unsigned int i, nr = sample ? sample->nr : 0;
	char word[32];

	snprintf(word, sizeof(word), "%s %u", prefix, nr);
	sc_put(word);
	for (i = 0; i < nr; i++) {
		snprintf(word, sizeof(word), " %llx",
			 (unsigned long long)sample->ips[i]);
		sc_put(word);
	}
	sc_put("\n");
}

/*
 * The write function of the stream main() leaves unflushed: the C library
 * calls it at exit.  Samples a write() here, and prints its stack and the
 * registrations.
 */
static ssize_t sc_exit_write(void *cookie, const char *data, size_t len)
{
	static struct sft_sample samples[2];
	struct sft_ring_stats stats;
	bool ok;
	int n;

	(void)cookie;
	(void)data;
	if (sft_perf_enable(&sc_ev))
		return -1;
	sc_leaf();
	sft_perf_disable(&sc_ev);
	n = sft_perf_collect(&sc_ev, samples, 2, &stats);
	ok = n == 1 && samples[0].deferred && samples[0].merged;
	if (!ok)
		fprintf(stderr, "at exit: %d samples, %u deferred stacks\n",
			n, stats.deferred);
	sc_put_stack(SC_EXIT_STACK, ok ? &samples[0] : NULL);
	sc_put_sframe(SC_EXIT_SFRAME);
	return len;
}

int main(void)
{
	static struct sft_sample samples[SFT_RUN_MAX_SAMPLES];
	cookie_io_functions_t at_exit = { .write = sc_exit_write };
	struct sft_ring_stats stats;
	struct sft_perf *ev = &sc_ev;
	FILE *exit_stream;
	int tp, fd, n, r;

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, SC_MARKER_FD) != SC_MARKER_FD) {
		perror("/dev/null");
		return 1;
	}
	tp = sft_tracepoint_id("syscalls", "sys_enter_write");
	if (tp < 0 || sft_perf_open_tracepoint(ev, tp, true))
		return 1;
	if (sft_perf_enable(ev))
		return 1;
	r = sc_sort();
	sft_perf_disable(ev);
	n = sft_perf_collect(ev, samples, SFT_RUN_MAX_SAMPLES, &stats);

	if (r != SC_SORTED || sc_done != 1 ||
	    sc_written != (long)SC_MARKER_LEN) {
		fprintf(stderr, "the chain: sorted %d, %d writes, wrote %ld\n",
			r, sc_done, sc_written);
		return 1;
	}
	if (n != 1 || stats.lost || stats.deferred != 1 ||
	    !samples[0].deferred || !samples[0].merged || !samples[0].nr) {
		fprintf(stderr, "%d samples, %u deferred stacks, %u lost: want 1, 1, 0\n",
			n, stats.deferred, stats.lost);
		return 1;
	}
	fflush(stdout);
	sc_put_stack(SC_STACK, &samples[0]);
	sc_put_sframe(SC_SFRAME);

	/* A byte that the C library's exit flushes, through sc_exit_write() */
	exit_stream = fopencookie(NULL, "w", at_exit);
	if (!exit_stream || fputc('x', exit_stream) == EOF) {
		perror("fopencookie");
		return 1;
	}
	return 0;
}
