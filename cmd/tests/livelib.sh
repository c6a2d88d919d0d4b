#!/bin/bash
# livelib.sh - what the live tests share: the programs they run and the
# checks that make them skip (exit 77) saying why, never fail, where live
# tracing cannot work.  Sourced from cmd/tests/ (after or instead of
# lib.sh, which it sources: lib.sh sets DTSNAP, so the environment's
# DTSNAP and DTCONSUME, make check-live's, are taken first).
#
#   DTSNAP, DTCONSUME   the environment's, else the build tree's
#   DTRACE              the environment's, else dtrace-utils' at
#                       /var/tmp/dtrace-utils/dtrace
#   live_root           skip unless root
#   live_built P...     skip unless each program P was built
#   live_dtrace         skip unless $DTRACE runs
#   live_tmpdir P       $work, removed at exit with the $live_pids
#   live_workdir P      live_tmpdir and the tick spinners (below)
#   live_prereqs        skip unless dtsnap record can trace here
livelib_dtsnap=${DTSNAP-}
livelib_dtconsume=${DTCONSUME-}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
DTSNAP=${livelib_dtsnap:-$top_builddir/cmd/dtsnap}
DTCONSUME=${livelib_dtconsume:-$top_builddir/cmd/dtconsume}
: "${DTRACE:=/var/tmp/dtrace-utils/dtrace}"

skip() {
	echo "SKIP: $*"
	exit 77
}

live_root() {
	[ "$(id -u)" = 0 ] || skip "not root (live tracing needs root)"
}

live_built() {
	for _p in "$@"; do
		[ -x "$_p" ] || skip "no $_p: build it first"
	done
}

live_dtrace() {
	[ -x "$DTRACE" ] || skip "no dtrace(1) at $DTRACE (set DTRACE)"
}

# live_tmpdir PREFIX: a work directory in $work; at exit it is removed
# and the processes listed in $live_pids (a test's own) are killed
live_tmpdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
	live_pids=
	spinners=
	# shellcheck disable=SC2064
	trap "kill \$spinners \$live_pids 2>/dev/null; rm -rf '$work'" EXIT
}

# live_workdir PREFIX: a work directory in $work, removed at exit, and a
# niced spinner per CPU while the suite runs.  dtrace-utils' tick-N probes
# are one CPU-wide cpu-clock perf event on a CPU; on a tickless VM kernel
# that event does not fire while its CPU idles, and a script that ends on
# a tick would wait for its timeout.  The spinners keep the ticks coming
# (the tee and the capture still come from one run; nothing here measures
# time).
live_workdir() {
	live_tmpdir "$1"
	for _ in $(seq "$(nproc 2>/dev/null || echo 2)"); do
		nice -n 19 sh -c 'while :; do :; done' &
		spinners="$spinners $!"
	done
}

# live_prereqs: skip (exit 77) unless dtsnap record can trace here.
live_prereqs() {
	local help
	live_root
	live_built "$DTSNAP" "$DTCONSUME"
	help=$("$DTSNAP" record --help 2>&1)
	case $help in
	*"without libdtrace"*) skip "$DTSNAP was built without libdtrace" ;;
	esac
	if ! mountpoint -q /sys/kernel/tracing; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
			skip "tracefs is not mounted on /sys/kernel/tracing and cannot be"
	fi
	# dtrace-utils writes its uprobes (BEGIN, END, pid) through
	# /sys/kernel/debug/tracing: debugfs, which mounts tracefs there
	if [ ! -e /sys/kernel/debug/tracing/uprobe_events ]; then
		mount -t debugfs nodev /sys/kernel/debug 2>/dev/null ||
			skip "debugfs is not mounted on /sys/kernel/debug and cannot be"
	fi
	if ! timeout -k 10 -s INT 60 "$DTSNAP" record --tee - \
	    -o "$work/probe.dtsnap" -n 'BEGIN { exit(0); }' \
	    >"$work/probe.out" 2>"$work/probe.err" </dev/null ||
	    [ ! -s "$work/probe.dtsnap" ]; then
		skip "dtsnap record cannot trace here (BPF/tracefs?):" \
		    "$(grep -v '^$' "$work/probe.err" | head -n 1)"
	fi
}
