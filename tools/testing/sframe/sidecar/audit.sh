# SPDX-License-Identifier: GPL-2.0
#
# The tests of sframe-audit.so's handling of sidecar files, sourced by
# check.sh (which numbers them: $n, $fails) as "audit_tests DIR", where DIR
# holds sframe-audit.so and audit_test.  The module only reads and checks a
# sidecar before its codectl(2) call, so they need no kernel of the series:
# check.sh's module is built with a codectl(2) number that fails with ENOSYS.
#
# audit_TAG_good: audit_test, run under the module, with a sidecar of its
#   own made by sframe-gen: the module takes it (its registration is tried).
# audit_TAG_fifo, _symlink_fifo, _symlink_pty, _chardev, _directory: a FIFO,
#   a symbolic link to one, a symbolic link to a pseudo-terminal (audit_test
#   in a session without a controlling terminal), a character device (1:3,
#   /dev/null's) or a directory at the sidecar's path: the module ignores it
#   and says why (SFRAME_AUDIT_DEBUG=1); the program runs, within 20
#   seconds, and has no controlling terminal.
# audit_TAG_shrink: a sidecar of the C library (audit_test's is smaller than
#   a page, and a page a file ends in reads as zeros), truncated to 64 bytes
#   once the module has opened and fstat()ed it (audit_test shrink, which
#   traces the program): the module says it shrank, the program runs (a
#   file mapping read at its section headers would be SIGBUS).
# audit_TAG_secure: audit_test loads the module and calls it for itself as
#   ld.so would, with SFRAME_AUDIT_DEBUG=1: it says something when run as
#   it is, nothing when run as a setgid copy (AT_SECURE).

AUDIT_TESTS=8

# audit_run NAME PREFIX CMD...: run CMD under the module, sidecars under
# PREFIX, within 20 s; its stdout and stderr in $r/NAME.out and .err
audit_run() {
	_name=$1 _prefix=$2
	shift 2
	timeout -k 5 20 "$@" LD_AUDIT="$audit_so" SFRAME_AUDIT_DEBUG=1 \
		SFRAME_SIDECAR_PREFIX="$_prefix" "$audit_prog" \
		>"$r/$_name.out" 2>"$r/$_name.err"
}

# audit_result NAME RC WANT NOTE: ok if RC is 0, the program ran without a
# controlling terminal and its stderr has WANT, and no sidecar ignored if
# WANT is not about one
audit_result() {
	n=$((n + 1))
	if [ "$2" = 0 ] && grep -q '^ran ctty=no$' "$r/$1.out" &&
	   grep -qF -- "$3" "$r/$1.err" &&
	   { [ "${3#ignored}" != "$3" ] || ! grep -q ' ignored' "$r/$1.err"; }; then
		echo "ok $n audit_${tag}_$1 # $4"
		return
	fi
	sed 's/^/# /' "$r/$1.out" "$r/$1.err" | head -n 20
	echo "not ok $n audit_${tag}_$1 # exit $2 (124: it hung); wanted \"$3\""
	fails=$((fails + 1))
}

# audit_prefix NAME: a new prefix with the sidecar's directory; prints the
# path the sidecar would have there
audit_prefix() {
	mkdir -p "$r/$1/$(dirname "$rel")"
	echo "$r/$1/$rel"
}

audit_tests() {
	audit_so=$1/sframe-audit.so
	audit_prog=$1/audit_test
	r=$run/audit
	rm -rf "$r"
	mkdir -p "$r"
	"$gen" -p "$r/good" "$audit_prog" >"$r/gen.out" 2>&1
	rel=$(cd "$r/good" 2>/dev/null && find .build-id -name '*.sframe')
	libc=$(ldd "$audit_prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
	"$gen" -p "$r/libc" "$libc" >>"$r/gen.out" 2>&1
	libc_rel=$(cd "$r/libc" 2>/dev/null && find .build-id -name '*.sframe')

	audit_run good "$r/good" env
	audit_result good $? "(the program): text 0x" \
		"its sidecar taken, the registration tried"

	mkfifo "$(audit_prefix fifo)"
	audit_run fifo "$r/fifo" env
	audit_result fifo $? "ignored: a FIFO" "ignored: a FIFO"

	p=$(audit_prefix symlink_fifo)
	mkfifo "$r/the-fifo"
	ln -s "$r/the-fifo" "$p"
	audit_run symlink_fifo "$r/symlink_fifo" env
	audit_result symlink_fifo $? "ignored: a symbolic link" \
		"ignored: a symbolic link"

	p=$(audit_prefix symlink_pty)
	audit_run symlink_pty "$r/symlink_pty" "$audit_prog" pty "$p"
	audit_result symlink_pty $? "ignored: a symbolic link" \
		"ignored: a symbolic link, no controlling terminal"

	mknod "$(audit_prefix chardev)" c 1 3
	audit_run chardev "$r/chardev" env
	audit_result chardev $? "ignored: a character device" \
		"ignored: a character device"

	mkdir "$(audit_prefix directory)"
	audit_run directory "$r/directory" env
	audit_result directory $? "ignored: a directory" \
		"ignored: a directory"

	mkdir -p "$r/shrink/$(dirname "$libc_rel")"
	p=$r/shrink/$libc_rel
	cp "$r/libc/$libc_rel" "$p"
	audit_run shrink "$r/shrink" "$audit_prog" shrink "$p" 64
	rc=$?
	# audit_test shrink says how the program ended, the program "ran"
	grep -q '^truncated ' "$r/shrink.out" || rc=1
	audit_result shrink $rc "ignored: it shrank while it was read" \
		"truncated after its fstat(): ignored, no SIGBUS"

	# A setgid copy, of a group that is not ours: AT_SECURE
	n=$((n + 1))
	cp "$audit_prog" "$r/secure"
	chgrp 65534 "$r/secure" && chmod 2755 "$r/secure"
	SFRAME_AUDIT_DEBUG=1 SFRAME_SIDECAR_PREFIX="$r/good" timeout 20 \
		"$audit_prog" secure "$audit_so" >"$r/plain.out" 2>"$r/plain.err"
	rc1=$?
	SFRAME_AUDIT_DEBUG=1 SFRAME_SIDECAR_PREFIX="$r/good" timeout 20 \
		"$r/secure" secure "$audit_so" >"$r/secure.out" 2>"$r/secure.err"
	rc2=$?
	said=$(grep -c '^sframe-audit: ' "$r/plain.err")
	leaked=$(grep -c '^sframe-audit: ' "$r/secure.err")
	if [ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q '^secure=0$' "$r/plain.out" &&
	   grep -q '^secure=1$' "$r/secure.out" && [ "$said" -gt 0 ] &&
	   [ "$leaked" = 0 ]; then
		echo "ok $n audit_${tag}_secure # $said lines of debug output, none under AT_SECURE"
	else
		sed 's/^/# /' "$r/plain.out" "$r/secure.out" "$r/secure.err" | head -n 20
		echo "not ok $n audit_${tag}_secure # exit $rc1 and $rc2;" \
			"$said lines, $leaked under AT_SECURE"
		fails=$((fails + 1))
	fi
}
