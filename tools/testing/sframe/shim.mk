# SPDX-License-Identifier: GPL-2.0
# How to compile the kernel's SFrame decoder, unmodified, in userspace.
# Included by every Makefile of the harness.
SFRAME_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../../..)
SFRAME_HARNESS := $(SFRAME_TOP)/tools/testing/sframe
# The shims come first: they stand in for the kernel headers the decoder uses.
# shim/harness.h is force-included, as kernel builds force-include
# compiler_types.h; it also routes the decoder's two hooks (sframe_reject(),
# sframe_abi_supported()) to shim/test_mem.c.  kernel/unwind is deliberately
# not on the include path: sframe.c finds its "sframe.h" next to itself, and
# <sframe.h> must stay libsframe's header for the programs that use both.
# sframe_jit.c takes its registrations' ABI from the kernel's config: it is
# built as x86-64's, and the tests set an arm64 ABI in the section to try
# the other.
SFRAME_SHIM_CFLAGS := -I$(SFRAME_HARNESS)/shim -I$(SFRAME_TOP)/include \
	-include $(SFRAME_HARNESS)/shim/harness.h -DCONFIG_X86_64
SFRAME_DECODER_SRCS := $(SFRAME_TOP)/kernel/unwind/sframe.c \
	$(SFRAME_TOP)/kernel/unwind/sframe_jit.c \
	$(SFRAME_HARNESS)/shim/test_mem.c
