#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# large.sh OUT SRCDIR WORKDIR: build the differential test's large input, git
# (with the zlib it links) from Debian trixie's source packages, with
# -Wa,--gsframe, and copy the executable to OUT.
#
# -fno-inline keeps every function out of line: with plain -O2 git has about
# 7,000 FDEs, with it about 13,000, and compiling is faster.  The code keeps
# the shapes of -O2 code (no frame pointer, pushes, cold parts).  git 2.47
# predates C23 (gcc 15+ default), hence -std=gnu17.
#
# The source packages are downloaded once into SRCDIR with apt-get, from the
# mirror of the root's own /etc/apt/sources.list (no host name is written
# anywhere), and kept.  The build is cached in WORKDIR under a key made of
# the source packages' .dsc files, this script and the toolchain's versions,
# so that only a change of one of them rebuilds it.  Run inside a root.
set -eu

out=${1:?usage: large.sh OUT SRCDIR WORKDIR}
srcdir=${2:?}
work=${3:?}
cc=${CC:-gcc}
cflags="-O2 -fno-inline -std=gnu17 -Wa,--gsframe"
pkgs="git zlib"
jobs=$(nproc 2>/dev/null || echo 2)

fetch() {
	[ -f "$srcdir/.complete" ] && return 0
	tmp=$srcdir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
	mirror=$(awk '$1 == "deb" { print ($2 ~ /^\[/) ? $3 : $2; exit }' \
		/etc/apt/sources.list)
	[ -n "$mirror" ] || { echo "large.sh: no mirror in sources.list" >&2; exit 1; }
	echo "deb-src $mirror trixie main" >"$tmp/sources.list"
	set -- -q -o Dir::Etc::SourceList="$tmp/sources.list" \
		-o Dir::Etc::SourceParts="$tmp/none" \
		-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" \
		-o APT::Sandbox::User=root
	apt-get "$@" update >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log" >&2; exit 1; }
	(cd "$tmp/src" && apt-get "$@" source --download-only $pkgs) \
		>>"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
	touch "$tmp/src/.complete"
	rm -rf "$srcdir"
	mv "$tmp/src" "$srcdir"
	rm -rf "$tmp"
}

mkdir -p "$(dirname "$srcdir")" "$work"
# Two roots may build at once: one download at a time.
exec 9>"$srcdir.lock"
flock 9
fetch
flock -u 9

as=$($cc -print-prog-name=as)
key=$({ cat "$srcdir"/*.dsc "$0"; echo "$cc $cflags"; $cc --version;
	$as --version; } | sha256sum | cut -c1-16)
bin=$work/git-$key
if [ ! -f "$bin" ]; then
	b=$work/build-$key
	rm -rf "$b"
	mkdir -p "$b/zlib" "$b/git" "$b/zroot"
	tar -C "$b/zlib" --strip-components=1 -xf "$srcdir"/zlib_*.orig.tar.*
	tar -C "$b/git" --strip-components=1 -xf "$srcdir"/git_*.orig.tar.*
	(cd "$b/zlib" && CC=$cc CFLAGS=$cflags ./configure --static \
		--prefix="$b/zroot" && make -j"$jobs" libz.a &&
		make install) >"$b/zlib.log" 2>&1 ||
		{ tail -n 30 "$b/zlib.log" >&2; exit 1; }
	make -C "$b/git" -j"$jobs" CC="$cc" CFLAGS="$cflags" \
		ZLIB_PATH="$b/zroot" NO_OPENSSL=1 NO_CURL=1 NO_EXPAT=1 \
		NO_GETTEXT=1 NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1 git \
		>"$b/git.log" 2>&1 || { tail -n 30 "$b/git.log" >&2; exit 1; }
	cp "$b/git/git" "$bin.tmp"
	mv "$bin.tmp" "$bin"
	rm -rf "$b"
fi
cp "$bin" "$out"
