# SPDX-License-Identifier: GPL-2.0
# Common helpers of the project's driver scripts.  Sourced, not executed.
#
# Every cache lives outside the checkout, under $SFRAME_CACHE, keyed by what
# it depends on.  Every external command runs under a timeout and logs to
# $OUT/logs, so that a failure names its step and its log.

set -euo pipefail

TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$TOPDIR/out}
SFRAME_CACHE=${SFRAME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sframe-linux}
LOGDIR=$OUT/logs
mkdir -p "$OUT" "$LOGDIR" "$SFRAME_CACHE"

# The pinned base: Debian's linux-source-7.3 from trixie-backports.
BASE_PKG=linux-source-7.3
BASE_VERSION=$(sed -n 's/^version *= *//p' "$TOPDIR/scripts/base.conf")
BASE_SHA256=$(sed -n 's/^sha256 *= *//p' "$TOPDIR/scripts/base.conf")

msg()  { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# print_help: a script's --help, its header comment up to "set -euo".
print_help() {
	sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

need_root() {
	[ "$(id -u)" = 0 ] || die "$1 needs root (debootstrap, chroot and mounts)"
}

# run_step NAME TIMEOUT CMD...: run CMD with a timeout, its output in
# $LOGDIR/NAME.log; on failure say which step failed and show the log's tail.
run_step() {
	local name=$1 limit=$2 rc=0
	shift 2
	local log=$LOGDIR/$name.log
	msg "$name (log: $log)"
	timeout --kill-after=30 "$limit" "$@" >"$log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 40 "$log" >&2 || true
		# 124: the timeout; 137: killed after --kill-after
		[ $rc -eq 124 ] || [ $rc -eq 137 ] &&
			die "step '$name' timed out after $limit; log: $log"
		die "step '$name' failed (exit $rc); log: $log"
	fi
}

# The Debian mirror the host itself uses, read from its apt sources, so that
# no host name is ever written into the repository.
debian_mirror() {
	local uri=""
	if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
		uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' \
			/etc/apt/sources.list.d/*.sources |
			grep -v -- '-security' | grep '/debian/\?$' | head -n1 || true)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2 } $1 == "deb" && $2 ~ /^\[/ { print $3 }' \
			/etc/apt/sources.list | grep -v -- '-security' |
			grep '/debian/\?$' | head -n1 || true)
	fi
	[ -n "$uri" ] || die "no Debian mirror found in the host's apt sources"
	echo "${uri%/}"
}

# Short content hash of files and strings, used to key caches.
cache_key() {
	{ for a in "$@"; do
		if [ -f "$a" ]; then cat "$a"; else printf '%s\n' "$a"; fi
	done; } | sha256sum | cut -c1-16
}

# The architecture of the test kernel and its guest, from ARCH (make
# check-kernel ARCH=arm64): x86_64, the default, or arm64, cross-built and
# run under qemu-system-aarch64.  For each: its kernel build directory, its
# guest's shared directory, its kernel image, its cross compiler prefix.
case ${ARCH:-x86_64} in
x86_64 | x86)
	SFRAME_ARCH=x86_64 KIMAGE=arch/x86/boot/bzImage CROSS_PREFIX=
	arch_suffix= ;;
arm64 | aarch64)
	SFRAME_ARCH=arm64 KIMAGE=arch/arm64/boot/Image
	CROSS_PREFIX=aarch64-linux-gnu- arch_suffix=-arm64 ;;
*)
	die "ARCH=$ARCH: the test kernel is x86_64 or arm64" ;;
esac
# The suffix of this architecture's results and guest files: "" for x86_64.
ARCH_SUFFIX=$arch_suffix

# The kselftest directories of the series, run in the guest.  sframe_perf
# runs perf (scripts/build-perf) in the guest.  Set and empty: none (a
# kernel built without their config fragments).
if [ -z "$ARCH_SUFFIX" ]; then
	KSELFTEST_TARGETS=${KSELFTEST_TARGETS-sframe codectl sframe_ftrace sframe_perf sframe_bpf}
else
	KSELFTEST_TARGETS=${KSELFTEST_TARGETS-sframe codectl sframe_ftrace sframe_perf sframe_bpf}
fi

# The Linux tree that is built: the assembled overlay (make tree).
TREE=${TREE:-$OUT/tree}
KBUILD=${KBUILD:-$OUT/build/$SFRAME_ARCH}
# The guest's shared directory: the kselftests going in, their TAP coming out.
GUEST_DIR=${GUEST_DIR:-$OUT/guest$ARCH_SUFFIX}
export GUEST_DIR

# make flags of perf's builds (scripts/build-perf, scripts/build-patch).
# Left out: what perf can do without (scripting, TUI, BPF skeletons, LLVM,
# debuginfod) and the generated PMU event tables, which take the longest.
PERF_MAKE_FLAGS=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_JVMTI=1
	NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_LIBLLVM=1 NO_LIBDEBUGINFOD=1
	NO_LIBUNWIND=1 NO_JEVENTS=1 NO_LIBPFM4=1 NO_BABELTRACE2=1 NO_SDT=1
	NO_CAPSTONE=1 NO_LIBNUMA=1 NO_RUST=1 WERROR=0 prefix=/usr)
