// SPDX-License-Identifier: GPL-2.0
/*
 * The addresses perf looks the frames of a deferred user stack up at, in
 * both views of a recording: the stack merged into its sample, and the
 * record alone (perf script --no-merge-callchains).  The code of the frames
 * is this file's own, in this process, written in assembly for its layout:
 *
 * - a function whose last instruction calls one that does not return: its
 *   return address is the first byte of the next function, and the frame
 *   must be named after the caller;
 * - a signal trampoline (rt_sigreturn, a nop before it as in the C library),
 *   where a handler returns to, and a function the signal came in at its
 *   first instruction: neither address is after a call, both frames must be
 *   named after the function at the address itself.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "callchain.h"
#include "debug.h"
#include "env.h"
#include "event.h"
#include "evsel.h"
#include "machine.h"
#include "map.h"
#include "sample.h"
#include "symbol.h"
#include "tests.h"
#include "thread.h"

/*
 * The code is never run: it is there for its addresses and symbols, and
 * for the trampoline's instructions, which perf reads.  The same layout on
 * each architecture, with its own instructions.
 */
#if defined(__x86_64__)
#define DCIP_FUNCTION	"@function"
#define DCIP_TRAP	"ud2"
#define DCIP_CALL	"call"
#define DCIP_SIGRETURN	"mov $15, %rax\n\tsyscall"
#define DCIP_NOP_LEN	1
#define DCIP_CALL_LEN	5
/* The address of @sym, a label of the code below */
#define DCIP_ADDR(sym)							\
({									\
	u64 __addr;							\
									\
	asm("lea " #sym "(%%rip), %0" : "=r" (__addr));			\
	__addr;								\
})
#elif defined(__aarch64__)
#define DCIP_FUNCTION	"%function"
#define DCIP_TRAP	"brk #0x3e8"
#define DCIP_CALL	"bl"
#define DCIP_SIGRETURN	"mov x8, #139\n\tsvc #0"
#define DCIP_NOP_LEN	4
#define DCIP_CALL_LEN	4
#define DCIP_ADDR(sym)							\
({									\
	u64 __addr;							\
									\
	asm("adrp %0, " #sym "\n\tadd %0, %0, :lo12:" #sym		\
	    : "=r" (__addr));						\
	__addr;								\
})
#endif

#ifdef DCIP_FUNCTION
#define DCIP_FUNC(name, body)						\
	"	.type	" #name ", " DCIP_FUNCTION "\n"			\
	#name ":\n"							\
	body								\
	"	.size	" #name ", . - " #name "\n"

asm("	.pushsection .text\n"
"	.p2align 4\n"
DCIP_FUNC(dcip_noreturn, "	nop\n	" DCIP_TRAP "\n")
DCIP_FUNC(dcip_caller, "	nop\n	" DCIP_CALL "	dcip_noreturn\n")
DCIP_FUNC(dcip_next, "	" DCIP_CALL "	dcip_caller\n	ret\n")
"	nop\n"
DCIP_FUNC(dcip_sigreturn, "	" DCIP_SIGRETURN "\n")
DCIP_FUNC(dcip_before, "	ret\n")
DCIP_FUNC(dcip_interrupted, "	nop\n	ret\n")
"	.popsection\n");

/* After the nop of dcip_noreturn, and after the call of dcip_next */
#define dcip_noreturn_leaf	(DCIP_ADDR(dcip_noreturn) + DCIP_NOP_LEN)
#define dcip_next_ret		(DCIP_ADDR(dcip_next) + DCIP_CALL_LEN)

/* The user part of a stack, innermost first, and the names it must get. */
struct dcip_stack {
	const char *what;
	int nr;
	u64 ips[5];
	const char *names[4];
};

/*
 * Resolve @stack, merged into a sample (@merged) or as a deferred record
 * alone, and compare the frames' symbols with its names.
 */
static int dcip_check(struct thread *thread, struct evsel *evsel,
		      const struct dcip_stack *stack, bool merged)
{
	struct callchain_cursor *cursor = get_tls_callchain_cursor();
	struct callchain_cursor_node *node;
	struct ip_callchain *chain;
	struct perf_sample sample;
	int i, err = TEST_FAIL;

	chain = calloc(1, sizeof(*chain) + sizeof(stack->ips));
	if (!chain || !cursor) {
		free(chain);
		return TEST_FAIL;
	}
	chain->nr = stack->nr;
	memcpy(chain->ips, stack->ips, sizeof(stack->ips));

	perf_sample__init(&sample, /*all=*/true);
	sample.evsel = evsel;
	sample.pid = getpid();
	sample.tid = sample.pid;
	sample.callchain = chain;
	sample.deferred_cookie = 1;
	/* A merged callchain is the sample's own, freed with it. */
	sample.merged_callchain = merged;

	if (thread__resolve_callchain(thread, cursor, &sample, NULL, NULL,
				      PERF_MAX_STACK_DEPTH)) {
		pr_debug("%s: cannot resolve the callchain\n", stack->what);
		goto out;
	}
	callchain_cursor_commit(cursor);
	for (i = 0; i < stack->nr - 1; i++) {
		const char *name;

		node = callchain_cursor_current(cursor);
		name = node && node->ms.sym ? node->ms.sym->name : "[unknown]";
		pr_debug("%s, %s: frame %d at %#llx: %s, want %s\n",
			 stack->what, merged ? "merged" : "record alone", i,
			 node ? (unsigned long long)node->ip : 0, name,
			 stack->names[i]);
		if (!node || strcmp(name, stack->names[i]))
			goto out;
		callchain_cursor_advance(cursor);
	}
	err = TEST_OK;
out:
	/* The cursor's frames hold their maps: let them go with the machine. */
	callchain_cursor_reset(cursor);
	if (!merged)
		free(chain);
	sample.evsel = NULL;
	perf_sample__exit(&sample);
	return err;
}

static int test__deferred_callchain_ip(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	const struct dcip_stack stacks[] = {
		{
			"a call that ends its function", 4,
			{ PERF_CONTEXT_USER, dcip_noreturn_leaf,
			  DCIP_ADDR(dcip_next), dcip_next_ret },
			{ "dcip_noreturn", "dcip_caller", "dcip_next" },
		}, {
			"a signal frame", 5,
			{ PERF_CONTEXT_USER, dcip_noreturn_leaf,
			  DCIP_ADDR(dcip_sigreturn),
			  DCIP_ADDR(dcip_interrupted), dcip_next_ret },
			{ "dcip_noreturn", "dcip_sigreturn",
			  "dcip_interrupted", "dcip_next" },
		},
	};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_CALLCHAIN,
		.defer_callchain = 1,
	};
	struct perf_env host_env;
	struct machine *machine;
	struct thread *thread = NULL;
	struct evsel *evsel;
	int err = TEST_FAIL;
	size_t i;

	callchain_param.record_mode = CALLCHAIN_FP;
	callchain_param.order = ORDER_CALLEE;
	perf_env__init(&host_env);
	evsel = evsel__new(&attr);
	machine = machine__new_live(&host_env, /*kernel_maps=*/false, getpid());
	if (!evsel || !machine) {
		pr_debug("no event or machine\n");
		goto out;
	}
	thread = machine__find_thread(machine, getpid(), getpid());
	if (!thread) {
		pr_debug("no thread\n");
		goto out;
	}

	for (i = 0; i < ARRAY_SIZE(stacks); i++) {
		if (dcip_check(thread, evsel, &stacks[i], true) ||
		    dcip_check(thread, evsel, &stacks[i], false))
			goto out;
	}
	err = TEST_OK;
out:
	thread__put(thread);
	machine__delete(machine);
	evsel__put(evsel);
	perf_env__exit(&host_env);
	return err;
}
#else
static int test__deferred_callchain_ip(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	pr_debug("the frames are written in x86-64 and arm64 assembly\n");
	return TEST_SKIP;
}
#endif

DEFINE_SUITE("Deferred callchain frame addresses", deferred_callchain_ip);
