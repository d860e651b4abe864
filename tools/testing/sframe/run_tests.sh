#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh OUTDIR CORPUS SECONDS: run the harness's tests, built into
# OUTDIR, and print KTAP: the unit tests, the malformed corpus, and the fuzz
# target replaying the committed seed CORPUS then fuzzing for SECONDS.
# Exits non-zero if a test fails.  Each test's output is in OUTDIR/NAME.log.
set -u
out=${1:?usage: run_tests.sh OUTDIR CORPUS SECONDS}
corpus=${2:?}
secs=${3:?}
nr=0
failed=0

# LeakSanitizer's ptrace-based tracer does not work in every chroot or
# container; leaks are not what these tests look for.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

# result NAME STATUS SUMMARY: one KTAP line, and the failures of the log
result() {
	nr=$((nr + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $nr $1 # $3"
	else
		failed=1
		grep -E '^# FAIL|ERROR|runtime error|abort|fuzz:' "$out/$1.log" |
			head -20 | sed 's/^#* */# /'
		echo "not ok $nr $1 # $3"
	fi
}

echo "TAP version 13"
echo "1..3"

"$out/unit" >"$out/unit.log" 2>&1
rc=$?
result unit $rc "$(sed -n 's/^# unit: \([0-9]*\) checks.*/\1 checks/p' \
	"$out/unit.log")"

"$out/corpus" >"$out/malformed_corpus.log" 2>&1
rc=$?
result malformed_corpus $rc "$(sed -n \
	's/^# \([0-9]*\) cases, \([0-9]*\) lookups/\1 cases, \2 lookups/p' \
	"$out/malformed_corpus.log")"

# Replay the committed corpus, then fuzz from it; new inputs go to a scratch
# directory so that the committed corpus only changes with `make seeds`.
rm -rf "$out/fuzz-smoke"
mkdir -p "$out/fuzz-smoke" "$out/fuzz-smoke-artifacts"
{
	"$out/fuzz" -runs=0 "$corpus" &&
	"$out/fuzz" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$out/fuzz-smoke-artifacts/" \
		"$out/fuzz-smoke" "$corpus"
} >"$out/fuzz_smoke.log" 2>&1
rc=$?
seeds=$(ls "$corpus" | wc -l)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz_smoke.log")
result fuzz_smoke $rc "$seeds seeds replayed, ${execs:-0} execs in ${secs} s"

exit $failed
