#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-programs.sh OUT GUEST_OUT PATCHED UNPATCHED: build, in the current
# root (the project runs it in the trixie root), dl-sframe-guest and the
# libraries and programs of scripts/guest/glibc-job.sh's cases and
# benchmark, into OUT, which the guest sees as GUEST_OUT.  PATCHED and
# UNPATCHED are the library directories, as the guest sees them, of glibc
# built with and without the series: the programs in OUT/patched run with
# the first's ld.so and libraries, those in OUT/unpatched with the
# second's.
#
#   lib/libsf.so         sft_lib(), with PT_GNU_SFRAME
#   lib/libplain.so      the same without
#   lib/libsf_undef.so   with PT_GNU_SFRAME, needs a symbol nothing defines
#   lib/libsf_needs.so   with PT_GNU_SFRAME, needs libsf_gone.so, which is
#                        not there
#   lib/libstart{sf,plain}N.so, N = 0..9: ten of each kind
#   {patched,unpatched}/dl-sframe-guest
#   {patched,unpatched}/start-{sf,plain}: a program that needs the ten
#                        libraries of its kind
set -euo pipefail
usage="usage: guest-programs.sh OUT GUEST_OUT PATCHED UNPATCHED"
out=${1:?$usage}
guest_out=${2:?$usage}
patched=${3:?$usage}
unpatched=${4:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
gsframe=-Wa,--gsframe
cflags=(-O2 -g -Wall -Wextra -Wno-unused-parameter)
lib=$out/lib

rm -rf "$out"
mkdir -p "$lib" "$out/src" "$out/patched" "$out/unpatched"
echo 'int sft_lib(int x) { return x + 1; }' >"$out/src/lib.c"
gcc "${cflags[@]}" -fPIC -shared $gsframe "$out/src/lib.c" -o "$lib/libsf.so"
gcc "${cflags[@]}" -fPIC -shared "$out/src/lib.c" -o "$lib/libplain.so"
echo 'int sft_nowhere(int x); int sft_lib(int x) { return sft_nowhere(x); }' \
	>"$out/src/undef.c"
gcc "${cflags[@]}" -fPIC -shared $gsframe "$out/src/undef.c" \
	-o "$lib/libsf_undef.so"
gcc "${cflags[@]}" -fPIC -shared $gsframe "$out/src/lib.c" \
	-Wl,-soname,libsf_gone.so -o "$out/src/libsf_gone.so"
gcc "${cflags[@]}" -fPIC -shared $gsframe "$out/src/lib.c" \
	-Wl,--no-as-needed "$out/src/libsf_gone.so" -o "$lib/libsf_needs.so"

# Ten libraries of each kind, and a program that calls into each.
for kind in sf plain; do
	flags=()
	[ $kind = sf ] && flags=($gsframe)
	main="int main(void) { int s = 0;"
	decls=
	libs=()
	for n in 0 1 2 3 4 5 6 7 8 9; do
		echo "int start_$n(int x) { return x + $n; }" >"$out/src/start$n.c"
		gcc "${cflags[@]}" "${flags[@]}" -fPIC -shared \
			"$out/src/start$n.c" -o "$lib/libstart$kind$n.so"
		decls="$decls int start_$n(int);"
		main="$main s = start_$n(s);"
		libs+=(-lstart$kind$n)
	done
	echo "$decls $main return s != 45; }" >"$out/src/start-$kind.c"
	for g in patched unpatched; do
		dir=$patched
		[ $g = unpatched ] && dir=$unpatched
		gcc "${cflags[@]}" "${flags[@]}" "$out/src/start-$kind.c" \
			-L"$lib" -Wl,--no-as-needed "${libs[@]}" \
			-Wl,--dynamic-linker="$dir/ld-linux-x86-64.so.2" \
			-Wl,-rpath,"$dir:$guest_out/lib" -o "$out/$g/start-$kind"
	done
done

for g in patched unpatched; do
	dir=$patched
	[ $g = unpatched ] && dir=$unpatched
	gcc "${cflags[@]}" "$here/dl-sframe-guest.c" \
		-Wl,--dynamic-linker="$dir/ld-linux-x86-64.so.2" \
		-Wl,-rpath,"$dir" -o "$out/$g/dl-sframe-guest"
done
