#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# large.sh OUT LINUX_SRC WORKDIR: build the differential test's large input,
# perf from the Linux source tree LINUX_SRC (the series' pinned base, printed
# by scripts/fetch-base), with -Wa,--gsframe, and copy the executable to OUT.
#
# perf is built against libc alone, every optional library off, so that both
# roots build the same program whatever -dev packages they hold; it needs
# only make, gcc, flex and bison.  -O2 -fno-inline keeps every function out
# of line: about 9,400 FDEs (plain -O2 gives far fewer).  perf's Makefile
# adds -O3 and -fno-omit-frame-pointer after the user's flags, so a compiler
# wrapper puts ours last: the code keeps the shapes of -O2 code without a
# frame pointer (pushes, SP-based CFA, cold parts).
#
# The build is cached in WORKDIR under a key made of the source tree's file
# list (names, sizes, mtimes), this script and the versions of the compiler,
# assembler, flex and bison, so that only a change of one of them rebuilds
# it.  LINUX_SRC is only read.  Run inside a root.
set -eu

out=${1:?usage: large.sh OUT LINUX_SRC WORKDIR}
src=${2:?usage: large.sh OUT LINUX_SRC WORKDIR}
work=${3:?usage: large.sh OUT LINUX_SRC WORKDIR}
cc=${CC:-gcc}
cflags="-O2 -fno-inline -fomit-frame-pointer -Wa,--gsframe"
jobs=$(nproc 2>/dev/null || echo 2)

die() {
	echo "large.sh: $*" >&2
	exit 1
}

[ -f "$src/tools/perf/Makefile.perf" ] ||
	die "$src is not a Linux source tree (no tools/perf/Makefile.perf);" \
	    "pass the pinned base, LINUX_SRC=\$(scripts/fetch-base)"
for t in "$cc" flex bison make; do
	command -v "$t" >/dev/null || die "$t is missing in this root"
done
# perf's make must not see the ref Makefile's variables (O, SFV, ...).
unset MAKEFLAGS MFLAGS MAKELEVEL

as=$($cc -print-prog-name=as)
key=$({ (cd "$src" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort)
	cat "$0"; echo "$cc $cflags"; $cc --version; $as --version
	flex --version; bison --version; } | sha256sum | cut -c1-16)
bin=$work/perf-$key
mkdir -p "$work"
# Two checkouts may build the same key at once: one builds, the other waits.
exec 9>"$bin.lock"
flock 9
if [ ! -f "$bin" ]; then
	b=$work/build-$key
	rm -rf "$b"
	mkdir -p "$b/out"
	printf '#!/bin/sh\nexec %s "$@" %s\n' "$cc" "$cflags" >"$b/cc"
	chmod +x "$b/cc"
	# libopenssl has no NO_ switch: its feature test is forced off.
	make -C "$src/tools/perf" -j"$jobs" O="$b/out" CC="$b/cc" \
		HOSTCC="$cc" WERROR=0 BUILD_BPF_SKEL=0 NO_LIBELF=1 \
		NO_LIBTRACEEVENT=1 NO_JEVENTS=1 NO_LIBPYTHON=1 NO_SLANG=1 \
		NO_LIBNUMA=1 NO_ZLIB=1 NO_LZMA=1 NO_LIBZSTD=1 NO_AIO=1 \
		NO_SDT=1 NO_BACKTRACE=1 NO_DEMANGLE=1 NO_CAPSTONE=1 \
		NO_LIBLLVM=1 NO_BABELTRACE2=1 NO_RUST=1 \
		feature-libopenssl=0 perf >"$b/perf.log" 2>&1 ||
		{ tail -n 30 "$b/perf.log" >&2; die "the perf build failed; log: $b/perf.log"; }
	cp "$b/out/perf" "$bin.tmp"
	mv "$bin.tmp" "$bin"
	rm -rf "$b"
fi
flock -u 9
# Keep OUT's mtime when nothing changed: the ref Makefile runs this each time.
cmp -s "$bin" "$out" || cp "$bin" "$out"
