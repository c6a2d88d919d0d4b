#!/bin/bash
# record_ustack.sh - user stacks decode as libdtrace printed them, under
# load (issue 20 item 4).
#
# profile-199 samples ustack(16), usym(uregs[R_PC]) and an aggregation
# keyed by ustack(6) of a shell loop
# that keeps starting short-lived processes: libdtrace answers an
# address raw while it cannot grab a process yet (or once it has gone)
# and symbolized at another moment, so the same (pid, pc) prints
# differently in different records.  The decode of the capture must print
# what the tee (dtrace's own printing of the same run) printed, byte for
# byte, every record with the answer of its own moment.  Only the loop's
# shell is sampled: libdtrace grabs (ptrace) every process whose stack it
# prints, and grabbing the loop's short-lived children deadlocks
# dtrace-utils' process control now and then (dtrace(1) as well: the main
# thread waits in Ptrace() for a child stopped by the control thread,
# which waits for the lock the main thread holds).  dtrace-utils does
# not always see the -c command end: a run ends with SIGINT if need be
# (after a minute: starting takes over 10 s on a loaded machine; one
# SIGINT, --foreground: timeout's second one, to its process group, made
# dtrace impatient and skip the final print).
#
# libdtrace's answer for an address changes between two lookups
# microseconds apart (its control thread updates the handle; the shell
# was seen raw and symbolized in turn), so a lookup of the recorder's own
# just before libdtrace printed could differ from what it printed (the
# race of issue 20): the recorder now records the text libdtrace printed
# for these records (cmd/record_uaddr.c).  ustack(16) gives the race
# more frames to show in.
#
# Needs root, BPF, tracefs and a dtsnap built with libdtrace; skips (77)
# printing why otherwise.  RECORD_USTACK_RUNS (default 3) runs of
# RECORD_USTACK_SECS (default 4) seconds; each run must be identical.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
dtsnap_env=${DTSNAP-}
dtconsume_env=${DTCONSUME-}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
. "$top_srcdir/cmd/tests/livelib.sh"
DTSNAP=${dtsnap_env:-$top_builddir/cmd/dtsnap}
DTCONSUME=${dtconsume_env:-$top_builddir/cmd/dtconsume}
: "${RECORD_USTACK_RUNS:=3}"
: "${RECORD_USTACK_SECS:=4}"

live_workdir record_ustack
live_prereqs

cat >"$work/loop.sh" <<'EOF'
end=$(( $(date +%s) + $1 ))
while [ "$(date +%s)" -lt "$end" ]; do
	cat /proc/self/stat >/dev/null
	ls / >/dev/null
	sed -n 1p /etc/passwd >/dev/null
	i=0
	while [ $i -lt 300 ]; do i=$((i + 1)); done
done
EOF
cat >"$work/ustack.d" <<'EOF'
#pragma D option quiet
profile-199
/pid == $target/
{
	printf("%d %s\n", pid, execname);
	usym(uregs[R_PC]);
	ustack(16);
	@[ustack(6)] = count();
}
EOF

fail=0
frames=0
for run in $(seq "$RECORD_USTACK_RUNS"); do
	d=$work/run$run
	mkdir "$d"
	timeout --foreground -k 10 -s INT $((RECORD_USTACK_SECS + 60)) \
	    "$DTSNAP" record \
	    --tee - -o "$d/cap.dtsnap" -c "sh $work/loop.sh $RECORD_USTACK_SECS" \
	    -s "$work/ustack.d" >"$d/tee.out" 2>"$d/tee.err" </dev/null
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
		echo "not ok run $run: dtsnap record exited $rc"
		sed 's/^/# /' "$d/tee.err" | head -n 5
		fail=1
		continue
	fi
	if ! "$DTCONSUME" "$d/cap.dtsnap" >"$d/dec.out" 2>"$d/dec.err" ||
	    [ -s "$d/dec.err" ]; then
		echo "not ok run $run: the capture does not decode cleanly"
		sed 's/^/# /' "$d/dec.err" | head -n 5
		fail=1
		continue
	fi
	n=$(grep -c '`' "$d/tee.out")
	r=$(grep -Ec '^ +0x[0-9a-f]+$' "$d/tee.out")
	frames=$((frames + n + r))
	if cmp -s "$d/tee.out" "$d/dec.out"; then
		echo "ok run $run: $((n + r)) lines with user addresses" \
		    "($r frames raw), decode identical"
	else
		echo "not ok run $run: the decode differs from dtrace's output"
		diff "$d/tee.out" "$d/dec.out" | head -n 20 | sed 's/^/# /'
		fail=1
	fi
done
# a run that sampled nothing would show nothing
if [ "$fail" = 0 ] && [ "$frames" -eq 0 ]; then
	echo "not ok: no user address was sampled in any run"
	fail=1
fi
exit $fail
