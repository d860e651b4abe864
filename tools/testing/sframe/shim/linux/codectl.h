/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/codectl.h> for the harness: the UAPI header of the tree, which
 * tools/include/tools/codectl_jit.h (the JIT tables' helpers) includes.
 */
#include "../../../../../include/uapi/linux/codectl.h"
