/* SPDX-License-Identifier: GPL-2.0 */
/* The functions of funcs.c; start-*.s calls drap() and framed(). */
#ifndef _SFRAME_REAL_FUNCS_H
#define _SFRAME_REAL_FUNCS_H

void drap(int n);
int leaf(int x);
int framed(int n);
void use(void *p);

#endif /* _SFRAME_REAL_FUNCS_H */
