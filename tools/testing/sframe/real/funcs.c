// SPDX-License-Identifier: GPL-2.0
/* Functions whose SFrame rows the unit test checks (see gen.sh). */
#include <stdalign.h>

#include "funcs.h"

/* Stack realignment with a DRAP register: flex FDEs in SFrame V3 */
void drap(int n)
{
	alignas(64) char buf[64];
	char *p = __builtin_alloca(n);

	use(buf);
	use(p);
}

int leaf(int x)
{
	return x + 1;
}

/* A frame record, with PAC on arm64 */
int framed(int n)
{
	char buf[32];

	use(buf);
	return n + 1;
}

void use(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}
