#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh SRC OUT: build the series' dl-sframe.c of the patched glibc source
# SRC (scripts/build-glibc --source) with the mock glibc internals of
# mock/ and dl-sframe-test.c, in the current root (the project runs it in
# the trixie root), with what it needs in OUT -- a library with
# PT_GNU_SFRAME, one without build ID, one with a build ID of 32 bytes,
# a sidecar of this root's libc.so.6
# made by sframe-gen -- and run it.  Exits with its status.
set -euo pipefail
src=${1:?usage: run.sh SRC OUT}
out=${2:?usage: run.sh SRC OUT}
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../../tools/sframe/gen
linux=$src/sysdeps/unix/sysv/linux
[ -f "$linux/dl-sframe.c" ] || { echo "no $linux/dl-sframe.c" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/work" "$out/src"
# The three files only: glibc's source directories also have bits/
# headers that must not replace the system's.
cp "$linux/dl-sframe.c" "$linux/dl-sframe.h" "$linux/dl-codectl.h" "$out/src/"
cflags=(-O2 -g -Wall -Wextra -Wno-unused-parameter)
gcc "${cflags[@]}" -I"$here/mock" -I"$out/src" -c "$out/src/dl-sframe.c" \
	-o "$out/dl-sframe.o"
gcc "${cflags[@]}" -I"$here" -I"$here/mock" -I"$out/src" \
	"$here/dl-sframe-test.c" "$out/dl-sframe.o" -ldl -o "$out/dl-sframe-test"
echo 'int sft_lib(int x) { return x + 1; }' >"$out/lib.c"
gcc -O2 -fPIC -shared -Wa,--gsframe "$out/lib.c" -o "$out/libsf.so"
gcc -O2 -fPIC -shared -Wl,--build-id=none "$out/lib.c" -o "$out/libnoid.so"
gcc -O2 -fPIC -shared -Wa,--gsframe \
	-Wl,--build-id=0x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff \
	"$out/lib.c" -o "$out/liblongid.so"
make -s -C "$gen" OUTPUT="$out/" >/dev/null
libc=$(realpath "$(gcc -print-file-name=libc.so.6)")
"$out/sframe-gen" -f -p "$out/sidecars" "$libc" >"$out/sframe-gen.log"
"$out/dl-sframe-test" "$out/sidecars" "$out/libsf.so" "$out/libnoid.so" \
	"$out/liblongid.so" "$out/work"
