// SPDX-License-Identifier: GPL-2.0
/*
 * --call-graph given more than once, on the command line or after
 * call-graph.record-mode in perf config: the last mode counts, with its own
 * options only.  "fp,defer" followed by "dwarf" must give DWARF callchains,
 * and followed by "fp" frame pointer callchains that are not deferred.
 */
#include <string.h>

#include "callchain.h"
#include "debug.h"
#include "tests.h"

static int test__callchain_record_mode(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	const struct {
		const char *first, *last;
		enum perf_call_graph_mode mode;
		bool defer;
	} cases[] = {
		{ "fp,defer", "dwarf", CALLCHAIN_DWARF, false },
		{ "fp,defer", "fp", CALLCHAIN_FP, false },
		{ "fp,defer", "lbr", CALLCHAIN_LBR, false },
		{ "dwarf", "fp,defer", CALLCHAIN_FP, true },
		{ "fp", "fp,defer", CALLCHAIN_FP, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct callchain_param param;
		int ret;

		memset(&param, 0, sizeof(param));
		ret = parse_callchain_record(cases[i].first, &param);
		if (!ret)
			ret = parse_callchain_record(cases[i].last, &param);
		if (ret || param.record_mode != cases[i].mode ||
		    param.defer != cases[i].defer) {
			pr_debug("--call-graph %s --call-graph %s: %d, mode %d defer %d, not mode %d defer %d\n",
				 cases[i].first, cases[i].last, ret,
				 param.record_mode, param.defer,
				 cases[i].mode, cases[i].defer);
			return TEST_FAIL;
		}
	}
	return TEST_OK;
}

DEFINE_SUITE("Callchain record mode given twice", callchain_record_mode);
