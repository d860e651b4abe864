#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh TAG DIR EXPECTED "LIB..." "INPUT..." "CFI..." AUDIT: the tests of
# sframe-gen, and of sframe-audit.so's handling of sidecar files (AUDIT:
# the directory of the module and of audit_test; see audit.sh).
#
# gen_TAG_<lib>: sframe-gen writes LIB's sidecar (DIR/run) and lists its FDE
#   verdicts; sidecar-diff compares the kernel decoder's rule with libdw's
#   at every address of LIB's executable segments: 100% must agree.
# gen_TAG_detects_*: the comparison fails on wrong rules (every 97th
#   changed: exactly those must disagree) and on a corrupted section.
# gen_TAG_tree: sframe-gen -t on a tree of one library (and a hard and a
#   symbolic link to it), one without build ID, one with SFrame, a text
#   file: one sidecar, the same bytes as for the library alone; a second
#   run finds it current.
# toolchain_TAG_<input>: the sections gas and ld made for ref/'s INPUTs
#   against their CFI; each function or section where they disagree must
#   match a shell pattern EXPECTED lists for the input (lines "<input>
#   <pattern>"), and each pattern must match one of them.
# gen_TAG_not_regular: a FIFO, and a symbolic link to one, where the
#   sidecar of the first library goes: sframe-gen must not wait for a
#   writer, and writes the sidecar in their place; a FIFO as the object: it
#   says it is not a regular file, at once.
# gen_TAG_cfi_<arch>: hand-written CFI (cfi_<arch>.S, built into the CFI
#   objects), one case a function named <verdict>__<case>: sframe-gen -l
#   must give each function that verdict ('_' in it for '-'), and
#   sidecar-diff must agree with the sidecar, as for LIB.
#
# KTAP on stdout; exit 1 if a test fails.
set -u

tag=${1:?usage: check.sh TAG DIR EXPECTED "LIB..." "INPUT..."}
dir=${2:?}
expected=${3:?}
libs=${4:?}
inputs=${5:?}
cfis=${6:?}
audit=${7:?}
run=$dir/run
gen=$dir/sframe-gen
diff=$dir/sidecar-diff
mkdir -p "$run"

set -- $libs
nlibs=$#
set -- $cfis
ncfis=$#
set -- $inputs
echo "KTAP version 1"
. "$(dirname "$0")/audit.sh"
echo "1..$((nlibs + 4 + $# + ncfis + AUDIT_TESTS))"
n=0
fails=0

# pct PART WHOLE
pct() {
	awk -v p="$1" -v w="$2" 'BEGIN { printf "%.1f", w ? 100 * p / w : 0 }'
}

# field NAME LINE: the value after NAME in a "name value ..." summary
field() {
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# match PLACE <PATTERNS: PLACE matches one of the shell patterns
match() {
	while read -r pat; do
		case $1 in
		$pat) return 0 ;;
		esac
	done
	return 1
}

# seen PATTERN <PLACES: a place matches PATTERN
seen() {
	while read -r place; do
		case $place in
		$1) return 0 ;;
		esac
	done
	return 1
}

first=
for lib in $libs; do
	n=$((n + 1))
	base=$(basename "$(dirname "$lib")")_$(basename "$lib")
	case $lib in
	*/aarch64-linux-gnu/*) base=aarch64_$(basename "$lib") ;;
	*) base=x86_64_$(basename "$lib") ;;
	esac
	name=gen_${tag}_$(echo "$base" | tr -c 'A-Za-z0-9_\n' _)
	w=$run/$base
	if ! "$gen" -l -o "$w.sframe" "$lib" >"$w.verdicts" 2>"$w.gen"; then
		sed 's/^/# /' "$w.gen" | head -n 20
		echo "not ok $n $name # sframe-gen failed"
		fails=$((fails + 1))
		continue
	fi
	# the self-tests take the first of the smaller ones
	[ -n "$first" ] || [ "$(wc -l <"$w.verdicts")" -gt 1000 ] || first=$lib
	"$diff" "$lib" "$w.sframe" <"$w.verdicts" >"$w.out" 2>"$w.err"
	rc=$?
	sum=$(tail -n 1 "$w.out")
	f=$(field functions "$sum")
	b=$(field bytes "$sum")
	note="${f%/*} of ${f#*/} functions ($(pct ${f%/*} ${f#*/})%)"
	note="$note and $(field partial "$sum") in part"
	note="$note, ${b%/*} of ${b#*/} bytes in FDEs ($(pct ${b%/*} ${b#*/})%)"
	note="$note, $(field pcs "$sum") addresses"
	if [ $rc = 0 ]; then
		echo "ok $n $name # $note, 100% agree"
		sed -n 's/^  left out, /# left out: /p' "$w.gen" | sort -u
		continue
	fi
	sed 's/^/# /' "$w.err" | head -n 30
	echo "# $sum"
	echo "not ok $n $name # $note; outputs in $w.*"
	fails=$((fails + 1))
done

# The comparison must fail: wrong rules, then a corrupted section
n=$((n + 1))
name=gen_${tag}_detects_wrong_rules
w=$run/selftest
if [ -n "$first" ]; then
	"$gen" -l -o "$w.sframe" "$first" >"$w.verdicts" 2>/dev/null
	"$diff" -m 97 "$first" "$w.sframe" <"$w.verdicts" >"$w.out" 2>/dev/null
	sum=$(tail -n 1 "$w.out")
	mutated=$(field mutated "$sum")
	differ=$(field mismatches "$sum")
else
	mutated=0 differ=0
fi
if [ "${mutated:-0}" -gt 0 ] && [ "$mutated" = "$differ" ]; then
	echo "ok $n $name # $mutated rules changed, $differ disagreements"
else
	echo "not ok $n $name # ${mutated:-0} rules changed, ${differ:-0} disagreements"
	fails=$((fails + 1))
fi
n=$((n + 1))
name=gen_${tag}_detects_corruption
if [ -n "$first" ]; then
	"$diff" -c 97 "$first" "$w.sframe" <"$w.verdicts" >"$w.out" 2>/dev/null
	rc=$?
	sum=$(tail -n 1 "$w.out")
else
	rc=0 sum=
fi
mismatches=$(field mismatches "$sum")
errors=$(field errors "$sum")
bad=$((${mismatches:-0} + ${errors:-0}))
if [ $rc = 1 ] && [ "$bad" -gt 0 ]; then
	echo "ok $n $name # $(field corrupted "$sum") bytes changed," \
		"$bad addresses disagree or fail"
else
	echo "not ok $n $name # exit $rc: $sum"
	fails=$((fails + 1))
fi

# Tree mode: what it skips, and a second run that finds all current
n=$((n + 1))
name=gen_${tag}_tree
t=$run/tree
rm -rf "$t"
mkdir -p "$t/objs/sub"
set -- $libs
lib=$1
cp "$lib" "$t/objs/lib.so"
ln "$t/objs/lib.so" "$t/objs/sub/hardlink.so"
ln -s lib.so "$t/objs/symlink.so"
objcopy --remove-section .note.gnu.build-id "$lib" "$t/objs/no-id.so"
set -- $inputs
cp "$1" "$t/objs/has-sframe"
echo "not ELF" >"$t/objs/text"
"$gen" -j 2 -p "$t/sc" -t "$t/objs" >"$t.1" 2>&1
rc1=$?
"$gen" -j 2 -p "$t/sc" -t "$t/objs" >"$t.2" 2>&1
rc2=$?
"$gen" -o "$t/single.sframe" "$lib" >/dev/null 2>&1
sidecars=$(find "$t/sc" -name '*.sframe' | wc -l)
count() {
	sed -n "s/^  \([0-9]*\) $2\$/\1/p" "$1"
}
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$sidecars" = 1 ] &&
   [ "$(count "$t.1" 'sidecars generated')" = 1 ] &&
   [ "$(count "$t.1" 'with SFrame already')" = 1 ] &&
   [ "$(count "$t.1" 'without a build ID')" = 1 ] &&
   [ "$(count "$t.2" 'sidecars generated')" = 0 ] &&
   [ "$(count "$t.2" 'with a current sidecar')" = 1 ] &&
   cmp -s "$t/single.sframe" "$(find "$t/sc" -name '*.sframe')"; then
	echo "ok $n $name # one sidecar for two links, skips SFrame, no build ID," \
		"non-ELF and links; then current"
else
	sed 's/^/# /' "$t.1" "$t.2"
	echo "not ok $n $name # exit $rc1 and $rc2, $sidecars sidecars"
	fails=$((fails + 1))
fi

# What sframe-gen opens may be anything: no FIFO may stop it
n=$((n + 1))
name=gen_${tag}_not_regular
t=$run/not-regular
rm -rf "$t"
mkdir -p "$t"
set -- $libs
lib=$1
"$gen" -p "$t/first" "$lib" >/dev/null 2>&1
rel=$(cd "$t/first" 2>/dev/null && find .build-id -name '*.sframe')
bad=
for kind in fifo link; do
	sc=$t/$kind/$rel
	mkdir -p "$(dirname "$sc")"
	if [ $kind = fifo ]; then
		mkfifo "$sc"
	else
		mkfifo "$t/the-fifo"
		ln -s "$t/the-fifo" "$sc"
	fi
	timeout -k 5 20 "$gen" -p "$t/$kind" "$lib" >"$t/$kind.out" 2>&1
	rc=$?
	[ $rc = 0 ] && [ -f "$sc" ] && [ ! -L "$sc" ] &&
		cmp -s "$sc" "$t/first/$rel" || bad="$bad $kind:exit-$rc"
done
[ -p "$t/the-fifo" ] || bad="$bad the-link's-fifo-replaced"
timeout -k 5 20 "$gen" -o "$t/x.sframe" "$t/the-fifo" >"$t/obj.out" 2>&1
rc=$?
[ $rc != 124 ] && [ $rc != 0 ] && grep -q 'not a regular file' "$t/obj.out" ||
	bad="$bad object:exit-$rc"
if [ -n "$rel" ] && [ -z "$bad" ]; then
	echo "ok $n $name # a FIFO and a link to one replaced by the" \
		"sidecar, a FIFO refused as the object"
else
	sed 's/^/# /' "$t"/*.out | head -n 20
	echo "not ok $n $name # (124: it hung)$bad"
	fails=$((fails + 1))
fi

# The toolchain's own sections
for f in $inputs; do
	n=$((n + 1))
	base=$(basename "$f")
	name=toolchain_${tag}_$(echo "$base" | tr -c 'A-Za-z0-9_\n' _)
	w=$run/own-$base
	"$diff" -s "$f" >"$w.out" 2>"$w.err"
	rc=$?
	sum=$(tail -n 1 "$w.out")
	if [ $rc != 0 ]; then
		sed 's/^/# /' "$w.err" | head -n 20
		echo "not ok $n $name # sidecar-diff failed (exit $rc)"
		fails=$((fails + 1))
		continue
	fi
	sed -n 's/^disagree /# disagree: /p' "$w.out"
	sed -n 's/^disagree [^ ]* \([^:]*\):.*/\1/p' "$w.out" | sort -u >"$w.where"
	awk -v i="$base" '$1 == i { print $2 }' "$expected" | sort -u >"$w.expected"
	note="$(field agree "$sum") addresses agree, $(field disagree "$sum") disagree"
	note="$note, $(field not-comparable "$sum") with a CFI rule SFrame has not"
	note="$note, $(field uncovered "$sum") without SFrame"
	# every place must match a pattern, and every pattern a place
	unexpected=$(while read -r p; do
		match "$p" <"$w.expected" || echo "$p"
	done <"$w.where")
	unseen=$(while read -r e; do
		seen "$e" <"$w.where" || echo "$e"
	done <"$w.expected")
	if [ -z "$unexpected$unseen" ]; then
		echo "ok $n $name # $note; disagreements where expected: $(tr '\n' ' ' <"$w.where")"
	else
		[ -z "$unexpected" ] || echo "# unexpected disagreements in:" $unexpected
		[ -z "$unseen" ] || echo "# expected disagreements not found:" $unseen
		echo "not ok $n $name # $note"
		fails=$((fails + 1))
	fi
done
# Hand-written CFI: each function's verdict is in its name
for obj in $cfis; do
	n=$((n + 1))
	base=$(basename "$obj" .so)
	name=gen_${tag}_$base
	w=$run/$base
	if ! "$gen" -l -o "$w.sframe" "$obj" >"$w.verdicts" 2>"$w.gen"; then
		sed 's/^/# /' "$w.gen" | head -n 20
		echo "not ok $n $name # sframe-gen failed"
		fails=$((fails + 1))
		continue
	fi
	# "address name" of the cases, then "name verdict" of each FDE
	nm --defined-only "$obj" | awk '$2 ~ /^[Tt]$/ && $3 ~ /^[a-z][a-z0-9_]*__/ {
		a = $1; sub(/^0+/, "", a); print a, $3 }' >"$w.syms"
	awk 'NR == FNR { sym[$1] = $2; next }
	     /^ / { next }
	     { print ($1 in sym ? sym[$1] : "?" $1), $3 }' \
		"$w.syms" "$w.verdicts" >"$w.got"
	# <verdict>__[v3_<verdict>__]<case>
	wrong=$(awk -v tag="$tag" '{ n = split($1, part, "__"); want = part[1]
		       if (n > 2 && part[2] ~ /^v3_/ && tag ~ /^v3/)
			       want = substr(part[2], 4)
		       gsub(/_/, "-", want)
		       if ($2 != want) print $1 "=" $2 }' "$w.got")
	"$diff" "$obj" "$w.sframe" <"$w.verdicts" >"$w.out" 2>"$w.err"
	rc=$?
	ncases=$(wc -l <"$w.syms")
	nfdes=$(wc -l <"$w.got")
	left=$(awk '$2 != "ok"' "$w.got" | wc -l)
	note="$ncases cases, $left not kept whole: $(awk '$2 != "ok" { print $2 }' \
		"$w.got" | sort | uniq -c | awk '{ printf "%s%s %s", s, $1, $2; s = ", " }')"
	if [ -z "$wrong" ] && [ "$ncases" = "$nfdes" ] && [ "$ncases" -gt 0 ] &&
	   [ $rc = 0 ]; then
		echo "ok $n $name # $note; sidecar-diff agrees"
	else
		sed 's/^/# /' "$w.err" | head -n 20
		[ -z "$wrong" ] || echo "# wrong verdicts:" $wrong
		echo "# $(tail -n 1 "$w.out")"
		echo "not ok $n $name # $ncases cases, $nfdes FDEs, sidecar-diff exit $rc"
		fails=$((fails + 1))
	fi
done
audit_tests "$audit"
echo "# Totals: pass:$((n - fails)) fail:$fails"
[ "$fails" = 0 ]
