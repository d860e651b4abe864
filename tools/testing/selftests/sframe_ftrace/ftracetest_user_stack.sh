#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ftracetest cases of the stacktrace:user trigger, in KTAP.
cd "$(dirname "$0")" || exit 1
exec ./ftracetest -K -v test.d/trigger/trigger-stacktrace-user*.tc
