#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gen.sh OUTDIR: build the small programs whose .sframe sections the unit
# test embeds (real_sections.h), with the toolchains of the project's roots:
#   scripts/in-root "$(scripts/mkroot trixie)" sh real/gen.sh OUT  (V2, gas 2.44)
#   scripts/in-root "$(scripts/mkroot sid)" sh real/gen.sh OUT     (V3, gas 2.47)
# and print, for each, the section bytes and addresses as C, plus the
# `objdump --sframe` listing that is the ground truth of the unit test.
set -eu
out=${1:?usage: gen.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
ver=$(as --version | sed -n '1s/.* \([0-9]*\.[0-9]*\).*/\1/p')

section() {	# section READELF ELF NAME: print its address and size
	$1 -SW "$2" | awk -v n="$3" \
		'{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 2), $(i + 4) }'
}

dump() {	# dump NAME ELF OBJDUMP READELF OBJCOPY
	name=$1 elf=$2 objdump=$3 readelf=$4 objcopy=$5
	$objcopy -O binary --only-section=.sframe "$elf" "$out/$name.sframe"
	# named without OUTDIR, and without trailing blanks
	(cd "$(dirname "$elf")" && $objdump --sframe=.sframe "${elf##*/}") |
		sed 's/^/ * /; s/[[:space:]]*$//' >"$out/$name.txt"
	sec=$(section "$readelf" "$elf" .sframe)
	text=$(section "$readelf" "$elf" .text)
	{
		echo "/* $name: gas $ver, objdump --sframe says:"
		cat "$out/$name.txt"
		echo " */"
		echo "static const unsigned char ${name}_bytes[] = {"
		od -An -v -tx1 -w8 "$out/$name.sframe" |
			sed 's/ \([0-9a-f][0-9a-f]\)/0x\1, /g; s/^/\t/; s/, $/,/'
		echo "};"
		echo
		set -- $sec $text
		echo "#define ${name}_addr 0x$1"
		shift 2
		echo "#define ${name}_text_start 0x$1"
		echo "#define ${name}_text_size 0x$2"
		echo
	} >"$out/$name.h"
	for sym in drap leaf framed use _start sigtramp; do
		a=$($objdump -t "$elf" | awk -v s=$sym '$NF == s { print $1 }')
		if [ -n "$a" ]; then
			echo "#define ${name}_$sym 0x$a" >>"$out/$name.h"
		fi
	done
	cat "$out/$name.h"
}

cflags="-O2 -fno-asynchronous-unwind-tables -fasynchronous-unwind-tables"
cflags="$cflags -Wa,--gsframe -nostdlib -static -fno-stack-protector"
case $ver in
2.4[0-5])
	gcc $cflags -o "$out/x86_64-v2" "$here/funcs.c" "$here/start-x86_64.s"
	dump x86_64_v2 "$out/x86_64-v2" objdump readelf objcopy
	;;
*)
	gcc $cflags -o "$out/x86_64-v3" "$here/funcs.c" "$here/start-x86_64.s"
	dump x86_64_v3 "$out/x86_64-v3" objdump readelf objcopy
	aarch64-linux-gnu-gcc $cflags -mbranch-protection=pac-ret+b-key \
		-o "$out/aarch64-v3" "$here/funcs.c" "$here/start-aarch64.s"
	dump aarch64_v3 "$out/aarch64-v3" aarch64-linux-gnu-objdump \
		aarch64-linux-gnu-readelf aarch64-linux-gnu-objcopy
	;;
esac
