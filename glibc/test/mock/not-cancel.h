/* SPDX-License-Identifier: GPL-2.0 */
/* glibc's internal <not-cancel.h>, as far as dl-sframe.c uses it */
#ifndef SFT_NOT_CANCEL_H
#define SFT_NOT_CANCEL_H
#include <sys/types.h>
int __open64_nocancel(const char *path, int flags, ...);
void __close_nocancel_nostatus(int fd);
ssize_t __pread64_nocancel(int fd, void *buf, size_t n, off_t off);
#endif
