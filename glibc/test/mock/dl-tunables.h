/* SPDX-License-Identifier: GPL-2.0 */
/* glibc's internal <dl-tunables.h>: the test sets the two tunables. */
#ifndef SFT_DL_TUNABLES_H
#define SFT_DL_TUNABLES_H
#include <stddef.h>
#include <stdint.h>
struct tunable_str_t {
	const char *str;
	size_t len;
};
extern int32_t sft_tunable_sframe;
extern struct tunable_str_t sft_tunable_sframe_prefix;
#define sft_tunable_glibc_rtld_sframe()		sft_tunable_sframe
#define sft_tunable_glibc_rtld_sframe_prefix()	(&sft_tunable_sframe_prefix)
#define TUNABLE_GET(top, ns, id, type, cb) \
	((void)(cb), (type)sft_tunable_##top##_##ns##_##id())
#endif
