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
SFRAME_SHIM_CFLAGS := -I$(SFRAME_HARNESS)/shim -I$(SFRAME_TOP)/include \
	-include $(SFRAME_HARNESS)/shim/harness.h
SFRAME_DECODER_SRCS := $(SFRAME_TOP)/kernel/unwind/sframe.c \
	$(SFRAME_HARNESS)/shim/test_mem.c
