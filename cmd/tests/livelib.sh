#!/bin/bash
# livelib.sh - what the live suites (live.sh, live_corpus.sh) share:
# sourced after lib.sh, with DTSNAP and DTCONSUME set.

skip() {
	echo "SKIP: $*"
	exit 77
}

# live_workdir PREFIX: a work directory in $work, removed at exit, and a
# niced spinner per CPU while the suite runs.  dtrace-utils' tick-N probes
# are one CPU-wide cpu-clock perf event on a CPU; on a tickless VM kernel
# that event does not fire while its CPU idles, and a script that ends on
# a tick would wait for its timeout.  The spinners keep the ticks coming
# (the tee and the capture still come from one run; nothing here measures
# time).
live_workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
	spinners=
	for _ in $(seq "$(nproc 2>/dev/null || echo 2)"); do
		nice -n 19 sh -c 'while :; do :; done' &
		spinners="$spinners $!"
	done
	# shellcheck disable=SC2064
	trap "kill $spinners 2>/dev/null; rm -rf '$work'" EXIT
}

# live_prereqs: skip (exit 77) unless dtsnap record can trace here.
live_prereqs() {
	local help
	[ "$(id -u)" = 0 ] || skip "not root (live tracing needs root)"
	[ -x "$DTSNAP" ] || skip "no $DTSNAP: build it first"
	[ -x "$DTCONSUME" ] || skip "no $DTCONSUME: build it first"
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
