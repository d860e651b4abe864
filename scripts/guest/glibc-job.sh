#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the x86-64 guest for scripts/check-glibc, with RTLD the patched
# ld.so and T the directory of the codectl programs built to run with it
# (and in T/guest, glibc/test/guest-programs.sh's).
# No LD_AUDIT anywhere: ld.so itself must register what it maps.  Prints
# one TAP line per case and "N passed, N failed"; exits 1 if one failed.
n=0
failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
unset LD_AUDIT LD_PRELOAD LD_LIBRARY_PATH GLIBC_TUNABLES
cd "$T" || exit 1

interp=$(readelf -lW codectl_dlopen |
	sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ "$interp" = "$RTLD" ]
result $? "the programs' interpreter is the patched ld.so ($interp)"

start=$(cut -d' ' -f1 /proc/uptime)
./codectl_dlopen --child audit 1000
result $? "1000 dlopen/dlclose: the library is registered while open, with its path and build ID, and not after"
echo "# 1000 cycles: $start -> $(cut -d' ' -f1 /proc/uptime) s of guest uptime"

./codectl_dlopen --child longid
result $? "a build ID of 32 bytes: the library is registered without it"

"$RTLD" ./codectl_dlopen --child ldso "$T/libcodectl_chain.so"
result $? "run as \"ld.so codectl_dlopen\": ld.so registers the program it maps, then the library"

./codectl_stack --child audit
result $? "the user stack through the dlopen()ed library is the chain"

./codectl_stack --child wx
result $? "after a W^X cycle of the texts the stack is still the chain"

GLIBC_TUNABLES=glibc.rtld.sframe=0 ./codectl_dlopen --child plain
result $? "glibc.rtld.sframe=0: dlopen registers nothing"

GLIBC_TUNABLES=glibc.rtld.sframe=0 ./codectl_stack --child plain
[ $? = 1 ]
result $? "glibc.rtld.sframe=0: the stack through the library is not the chain"

LD_DEBUG=files ./codectl_dlopen --child audit 1 >debug.out 2>&1
grep -q "sframe: .*libcodectl_chain.so: registered" debug.out
result $? "LD_DEBUG=files reports the registration"
grep "sframe:" debug.out | sed 's/^/# /'

# prog_range OUTPUT: the program's text range, "lo hi", from the
# registrations the chain printed (ASLR is off: the same in every run).
prog_range() {
	range=$(printf '%s\n' "$1" | grep '^sframe ' |
		grep " $T/codectl_sidecar_chain_nosf$" | head -n 1 | cut -d' ' -f2)
	[ -n "$range" ] || range=0-0
	echo "$((0x${range%-*})) $((0x${range#*-}))"
}

# chain_frames OUTPUT PREFIX LO HI: how many frames of the stack line
# PREFIX ("stack" or "exit-stack") of OUTPUT are in [LO, HI), and
# whether the last one is (1 or 0).
chain_frames() {
	in=0 last=0
	for ip in $(printf '%s\n' "$1" | grep "^$2 " | head -n 1 | cut -d' ' -f3-); do
		last=0
		if [ $((0x$ip)) -ge "$3" ] && [ $((0x$ip)) -lt "$4" ]; then
			in=$((in + 1))
			last=1
		fi
	done
	echo "$in $last"
}

with=$(GLIBC_TUNABLES=glibc.rtld.sframe_prefix=$T/sidecars setarch -R ./codectl_sidecar_chain_nosf)
rc=$?
printf '%s\n' "$with" | sed 's/^/# /'
[ $rc = 0 ] && [ "$(printf '%s\n' "$with" | grep '^sframe ' | grep -c 'sframe-addr=')" = 3 ]
result $? "sidecars of ld.so, libc.so.6 and the program are registered (3 sframe-addr= lines)"
for o in "$RTLD" /mnt/glibc/usr/lib64/libc.so.6 "$T/codectl_sidecar_chain_nosf"; do
	printf '%s\n' "$with" | grep '^sframe ' | grep 'sframe-addr=' | grep -q " $o$"
	result $? "the sidecar registration names $o"
done
without=$(GLIBC_TUNABLES=glibc.rtld.sframe_prefix=$T/no-sidecars setarch -R ./codectl_sidecar_chain_nosf)
printf '%s\n' "$without" | sed 's/^/# without sidecars: /'
set -- $(prog_range "$with")
lo=$1 hi=$2
set -- $(chain_frames "$with" stack "$lo" "$hi")
w_in=$1 w_last=$2
set -- $(chain_frames "$without" stack "$lo" "$hi")
wo_in=$1
echo "# the chain's own frames: $w_in with sidecars (the last one in the program: $w_last), $wo_in without"
[ "$w_in" -ge 6 ] && [ "$w_last" = 1 ] && [ "$wo_in" -lt "$w_in" ]
result $? "with sidecars the stack has the chain's frames down to _start ($w_in), without it has fewer ($wo_in)"
[ "$(printf '%s\n' "$with" | grep '^exit-sframe ' | grep -c 'sframe-addr=')" = 3 ]
result $? "at exit, after ld.so closed every object, the sidecars are still registered"
set -- $(chain_frames "$with" exit-stack "$lo" "$hi")
[ "$2" = 1 ]
result $? "at exit the stack still ends in the program ($1 frames of it)"

# Hostile sidecars of the program (check-glibc made them): ignored, with
# the reason under LD_DEBUG=files (which names the program "(program)");
# ld.so's and the C library's registered.
for bad in truncated other; do
	out=$(LD_DEBUG=files GLIBC_TUNABLES=glibc.rtld.sframe_prefix=$T/sidecars-$bad \
		setarch -R ./codectl_sidecar_chain_nosf 2>bad.err)
	rc=$?
	grep "sframe: (program): sidecar .* ignored" bad.err | sed 's/^/# /'
	[ $rc = 0 ] &&
		[ "$(printf '%s\n' "$out" | grep '^sframe ' | grep -c 'sframe-addr=')" = 2 ] &&
		! printf '%s\n' "$out" | grep '^sframe ' | grep 'sframe-addr=' |
			grep -q " $T/codectl_sidecar_chain_nosf$" &&
		grep -q "sframe: (program): sidecar .* ignored" bad.err
	result $? "a $bad sidecar of the program: ignored (LD_DEBUG says why), ld.so's and libc's registered, the program runs"
done

# dl-sframe-guest (glibc/test): codectl refused, failed dlopen()s.
G=$T/guest
guest=$G/patched/dl-sframe-guest
# From exec on (a kernel without codectl, a filter of the service
# manager): ld.so's probe fails, once, and nothing else is tried.
# After ld.so's startup (a sandbox): the first refused registration
# turns it off.
for how in ENOSYS EPERM; do
	errno=1
	[ $how = ENOSYS ] && errno=38
	LD_DEBUG=files GLIBC_TUNABLES=glibc.rtld.sframe_prefix=$T/no-sidecars \
		"$guest" refused-exec $how "$G/lib/libsf.so" 100 2>refused.err
	rc=$?
	grep "sframe: " refused.err | sed 's/^/# /'
	[ $rc = 0 ] &&
		[ "$(grep -c "sframe: codectl cannot be used (error $errno)" refused.err)" = 1 ] &&
		! grep -q "registered text mask\|not registered\|codectl refused" refused.err
	result $? "codectl failing with $how from exec: 100 dlopen/dlclose work, one failed probe, nothing else tried"
	LD_DEBUG=files GLIBC_TUNABLES=glibc.rtld.sframe_prefix=$T/no-sidecars \
		"$guest" refused $how "$G/lib/libsf.so" 100 2>refused.err
	rc=$?
	grep "sframe: codectl refused" refused.err | sed 's/^/# /'
	[ $rc = 0 ] &&
		[ "$(grep -c "sframe: codectl refused (error $errno)" refused.err)" = 1 ]
	result $? "codectl failing with $how after startup: 100 dlopen/dlclose work, register nothing, one codectl call in all"
done
for lib in libsf_undef.so libsf_needs.so; do
	LD_DEBUG=files "$guest" fails "$G/lib/$lib" 2>fails.err
	rc=$?
	grep "sframe: .*$lib" fails.err | sed 's/^/# /'
	[ $rc = 0 ] && grep -q "sframe: .*$lib: registered" fails.err
	result $? "a dlopen() of $lib that fails after registering it leaves nothing registered"
done

echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
