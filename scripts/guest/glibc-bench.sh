#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the x86-64 guest for "scripts/check-glibc --bench": what the
# series costs ld.so, glibc with it against the same glibc built without it
# (/mnt/glibc-unpatched), side by side in one run.  T is the directory
# check-glibc filled; T/guest has glibc/test/guest-programs.sh's programs.
#
# Each figure is dl-sframe-guest's median of 9 rounds, and the median of
# REPEATS such runs, the variants taking turns.  Prints a Markdown table
# (its lines start with "|").
G=$T/guest
# Under TCG on the debug kernel, from tmpfs: a dlopen + dlclose takes 15
# to 30 ms, the start of a program with 12 objects 290 to 435 ms; with
# these counts a run took 19 minutes (RESULTS.md).
REPEATS=${REPEATS:-3}
DLOPENS=${DLOPENS:-100}
EXECS=${EXECS:-16}

# The work share is 9p without a page cache (cache=readahead): every open
# and page fault of a library would go to the host, and that, not ld.so,
# would be most of each figure.  Both glibc builds and the test tree are
# copied to tmpfs and mounted over their own paths, so the programs'
# interpreters and run paths stay what they were built with.
for d in /mnt/glibc /mnt/glibc-unpatched "$T"; do
	copy=/tmp/bench$(echo "$d" | tr / _)
	cp -a "$d" "$copy" && mount --bind "$copy" "$d" || {
		echo "cannot copy $d to tmpfs" >&2
		exit 1
	}
done
nosc=glibc.rtld.sframe_prefix=$T/no-sidecars
withsc=glibc.rtld.sframe_prefix=$T/bench-sidecars
unset LD_AUDIT LD_PRELOAD LD_LIBRARY_PATH GLIBC_TUNABLES

# measure NAME GLIBC TUNABLES ARGS...: one figure of variant NAME, appended
# to the file NAME.
measure() {
	name=$1 g=$2 tun=$3
	shift 3
	v=$(GLIBC_TUNABLES=$tun "$G/$g/dl-sframe-guest" "$@") || {
		echo "$name: dl-sframe-guest $* failed" >&2
		exit 1
	}
	echo "$v" >>"$name"
	# As it goes: a run stopped at the guest's limit still shows how far
	# it came and at what pace.
	echo "# $(cut -d' ' -f1 /proc/uptime) s: $name $v"
}

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

cd "$(mktemp -d)" || exit 1
i=0
while [ $i -lt "$REPEATS" ]; do
	i=$((i + 1))
	for lib in plain sf; do
		measure dl-$lib-u unpatched "$nosc" bench "$G/lib/lib$lib.so" "$DLOPENS"
		measure dl-$lib-p patched "$nosc" bench "$G/lib/lib$lib.so" "$DLOPENS"
	done
	measure dl-plain-sc patched "$withsc" bench "$G/lib/libplain.so" "$DLOPENS"
	for kind in plain sf; do
		measure st-$kind-u unpatched "$nosc" bench-exec "$G/unpatched/start-$kind" "$EXECS"
		measure st-$kind-p patched "$nosc" bench-exec "$G/patched/start-$kind" "$EXECS"
	done
	measure st-plain-sc patched "$withsc" bench-exec "$G/patched/start-plain" "$EXECS"
done

# row WHAT WITHOUT WITH: a table row, times in microseconds, and the ratio
row() {
	a=$(median "$2") b=$(median "$3")
	awk -v what="$1" -v a="$a" -v b="$b" 'BEGIN {
		printf "| %s | %.1f | %.1f | %.3f |\n", what, a / 1e3, b / 1e3, b / a }'
}

echo "| what | without the series (us) | with it (us) | with / without |"
echo "|---|---:|---:|---:|"
row "dlopen + dlclose, a library without SFrame, no sidecar directory" dl-plain-u dl-plain-p
row "dlopen + dlclose, a library with PT_GNU_SFRAME (registered)" dl-sf-u dl-sf-p
row "dlopen + dlclose, a library without SFrame, its sidecar registered" dl-plain-u dl-plain-sc
row "start of a program with 10 libraries without SFrame, no sidecar directory" st-plain-u st-plain-p
row "start of a program with 10 libraries with PT_GNU_SFRAME (registered)" st-sf-u st-sf-p
row "start of a program with 10 libraries without SFrame, sidecars of all 12 objects" st-plain-u st-plain-sc
