/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions of sframe_budget.c that are written in assembly there, and
 * the addresses in them where the user stack's frames are.
 */
#ifndef SFRAME_BUDGET_H
#define SFRAME_BUDGET_H

/* Call @fn (bt_heavy or bt_light) with FP 0: @depth levels, bt_sysnr. */
long bt_enter(long depth, const char *fn);

/*
 * The system call at the bottom of the recursion (getppid unless a case
 * sets another), and its first two arguments
 */
extern long bt_sysnr, bt_sysarg0, bt_sysarg1;

/* The recursive functions, and their return addresses */
extern const char bt_heavy[], bt_heavy_callret[], bt_heavy_sysret[];
extern const char bt_light[], bt_light_callret[], bt_light_sysret[];
extern const char bt_enter_ret[];

#endif /* SFRAME_BUDGET_H */
