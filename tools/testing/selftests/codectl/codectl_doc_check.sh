#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The error table of codectl_errors must be the error table of the
# documentation, row for row: Documentation/userspace-api/codectl.rst and
# the ERRORS section of codectl.2 (both installed next to the tests).  Each
# row is "ERRNO<TAB>condition"; markup is removed before the comparison.
#
# In the documents, the table lies between the comment lines
# "codectl-errors-begin" and "codectl-errors-end".  In the .rst it is a
# list-table whose rows are "* - ``ERRNO``" then "- condition"; in the man
# page each row is ".TP", ".B ERRNO", then the condition's lines.

dir=$(dirname "$0")
rst=$dir/codectl.rst
man=$dir/codectl.2
prog=$dir/codectl_errors
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

say() { echo "# $*"; }

for f in "$rst" "$man" "$prog"; do
	if [ ! -e "$f" ]; then
		say "missing: $f (the selftest install must carry it)"
		exit 1
	fi
done

# Normalize "ERRNO condition" lines: no markup, single spaces, no final dot,
# and the condition's first letter in lower case (the documents write
# sentences).
normalize() {
	sed -e 's/``//g' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' \
	    -e 's/\*//g' -e 's/[[:space:]][[:space:]]*/ /g' \
	    -e 's/^ //' -e 's/ $//' -e 's/\.$//' |
	awk '{ c = index($0, " "); if (c) $0 = substr($0, 1, c) \
		tolower(substr($0, c + 1, 1)) substr($0, c + 2); print }'
}

"$prog" --list-errors | tr '\t' ' ' | normalize >"$tmp/test"

# The .rst list-table.
awk '
/^\.\. codectl-errors-begin/ { on = 1; next }
/^\.\. codectl-errors-end/ { on = 0; if (row != "") print row; row = ""; next }
!on { next }
/^   \* - ``E[A-Z0-9]*``[[:space:]]*$/ {
	if (row != "") print row
	e = $0; sub(/^   \* - ``/, "", e); sub(/``.*/, "", e)
	row = e; cond = 0; next
}
/^   \* - / { if (row != "") print row; row = ""; next }
/^     - / { if (row != "") { t = $0; sub(/^     - /, "", t); row = row " " t; cond = 1 }; next }
/^       [^[:space:]]/ {
	if (row != "" && cond) { t = $0; sub(/^ */, "", t); row = row " " t }
	next
}
' "$rst" | normalize >"$tmp/rst"

# The man page: .TP, .B ERRNO, then the text up to the next request.
awk '
/^\.\\" codectl-errors-begin/ { on = 1; next }
/^\.\\" codectl-errors-end/ { on = 0; if (row != "") print row; row = ""; next }
!on { next }
/^\.TP/ { if (row != "") print row; row = ""; want = 1; next }
want && /^\.B E[A-Z0-9]*$/ { row = $2; want = 0; next }
/^\.(I|B) / { if (row != "") { t = $0; sub(/^\.(I|B) /, "", t); row = row " " t }; next }
/^\./ { if (row != "") print row; row = ""; next }
{ if (row != "") row = row " " $0 }
' "$man" | normalize >"$tmp/man"

n=$(wc -l <"$tmp/test")
if [ "$n" -lt 10 ]; then
	say "codectl_errors --list-errors printed $n rows"
	fail=1
fi
for doc in rst man; do
	if ! diff -u "$tmp/test" "$tmp/$doc" >"$tmp/diff"; then
		say "the $doc table differs from codectl_errors' (- test, + $doc):"
		sed 's/^/#   /' "$tmp/diff"
		fail=1
	else
		say "$doc: $(wc -l <"$tmp/$doc") rows, the same as codectl_errors'"
	fi
done
exit $fail
