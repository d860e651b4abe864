# SPDX-License-Identifier: GPL-2.0
# How to compile the kernel's SFrame decoder, unmodified, in userspace.
# Included by every Makefile of the harness.
SFRAME_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../../..)
SFRAME_HARNESS := $(SFRAME_TOP)/tools/testing/sframe
# The shims come first: they stand in for the kernel headers the decoder uses.
SFRAME_SHIM_CFLAGS := -I$(SFRAME_HARNESS)/shim -I$(SFRAME_TOP)/include \
	-I$(SFRAME_TOP)/kernel/unwind
SFRAME_DECODER_SRCS := $(SFRAME_TOP)/kernel/unwind/sframe.c \
	$(SFRAME_HARNESS)/shim/test_mem.c
