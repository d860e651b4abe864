#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh TAG BINDIR RUNDIR INPUT...: the differential test.  For each ELF
# INPUT, sframe-ref makes the PC list, sframe-ref (libsframe) and sframe-ours
# (the kernel's decoder) print one line per PC, and the two outputs must be
# identical.  Prints KTAP, one test per input named diff_TAG_<input>; exits
# 1 if any input disagrees or fails.  RUNDIR keeps the outputs of the inputs
# that failed.  A last test proves that the comparison can fail: with every
# 97th rule of the first input corrupted, it must count exactly the corrupted
# lines as disagreements.
set -u

tag=${1:?usage: check.sh TAG BINDIR RUNDIR INPUT...}
bin=${2:?}
run=${3:?}
shift 3
mkdir -p "$run"

echo "KTAP version 1"
echo "1..$(($# + 1))"
first=$1
n=0
fails=0
for f in "$@"; do
	n=$((n + 1))
	base=$(basename "$f")
	name=diff_${tag}_$(echo "$base" | tr -c 'A-Za-z0-9_\n' _)
	w=$run/$base
	if ! "$bin/sframe-ref" -p "$f" >"$w.pcs" 2>"$w.err" ||
	   ! "$bin/sframe-ref" "$f" <"$w.pcs" >"$w.ref" 2>"$w.refstat" ||
	   ! "$bin/sframe-ours" "$f" <"$w.pcs" >"$w.ours" 2>"$w.ourstat"; then
		cat "$w.err" "$w.refstat" "$w.ourstat" 2>/dev/null |
			sed 's/^/# /' | head -n 20
		echo "not ok $n $name # a dumper failed"
		fails=$((fails + 1))
		continue
	fi
	# "fdes N pcs N found N ..." on the last line of each dumper's stderr
	set -- $(tail -n 1 "$w.refstat") ; rfdes=$2 pcs=$4 rfound=$6 quirks=$8
	set -- $(tail -n 1 "$w.ourstat") ; ofdes=$2 oerr=${10}
	if cmp -s "$w.ref" "$w.ours"; then
		agree=$pcs
	else
		agree=$(paste -d '|' "$w.ref" "$w.ours" |
			awk -F'|' '$1 == $2 { n++ } END { print n + 0 }')
	fi
	note="$rfdes fdes, $pcs pcs ($rfound with a rule)"
	[ "$quirks" != 0 ] && note="$note, $quirks libsframe quirks worked around"
	# A valid section: no lookup may fail but with -ENOENT
	if [ "$agree" = "$pcs" ] && [ "$rfdes" = "$ofdes" ] &&
	   [ "$oerr" = 0 ] && [ "$(wc -l <"$w.ours")" = "$pcs" ]; then
		echo "ok $n $name # $note, 100% agree"
		rm -f "$w.pcs" "$w.ref" "$w.ours" "$w.err" "$w.refstat" \
			"$w.ourstat"
		continue
	fi
	[ "$rfdes" = "$ofdes" ] ||
		echo "# FDE count: libsframe $rfdes, ours $ofdes"
	[ "$oerr" = 0 ] ||
		echo "# ours: $oerr lookups failed with an error other than -ENOENT"
	sed 's/^/# ours: /' "$w.ourstat" | head -n 12
	paste -d '|' "$w.ref" "$w.ours" |
		awk -F'|' '$1 != $2 {
			print "# libsframe: " $1
			print "# ours:      " $2
			if (++n == 10)
				exit
		}'
	echo "not ok $n $name # $note, $agree agree; outputs in $w.{ref,ours}"
	fails=$((fails + 1))
done

n=$((n + 1))
name=diff_${tag}_detects_corruption
w=$run/selftest
"$bin/sframe-ref" -p "$first" >"$w.pcs" 2>/dev/null &&
	"$bin/sframe-ref" "$first" <"$w.pcs" >"$w.ref" 2>/dev/null &&
	"$bin/sframe-ours" -m 97 "$first" <"$w.pcs" >"$w.ours" 2>"$w.ourstat"
set -- $(tail -n 1 "$w.ourstat" 2>/dev/null) 0 0 0 0 0 0 0 0 0 0 0 0
mutated=${12}
differ=$(paste -d '|' "$w.ref" "$w.ours" 2>/dev/null |
	 awk -F'|' '$1 != $2 { n++ } END { print n + 0 }')
if [ "$mutated" -gt 0 ] && [ "$differ" = "$mutated" ]; then
	echo "ok $n $name # $mutated corrupted lines, $differ disagreements"
else
	echo "not ok $n $name # $mutated corrupted lines, $differ disagreements"
	fails=$((fails + 1))
fi
rm -f "$w.pcs" "$w.ref" "$w.ours" "$w.ourstat"
echo "# Totals: pass:$((n - fails)) fail:$fails"
[ "$fails" = 0 ]
