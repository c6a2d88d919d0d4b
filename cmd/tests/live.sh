#!/bin/bash
# live.sh - the live differential test: run each D script of
# testdata/live/scripts/ under `dtsnap record` (libdtrace, DTrace for
# Linux v2), which writes a capture and, with --tee, exactly what dtrace(1)
# printed on stdout; decode the capture with dtconsume; both outputs must be
# identical.  Nondeterministic scripts (stacks, tick counts) are fine: the
# tee and the decode come from the same run.  The recorder runs with
# "--tee -": dtrace's stdout on its stdout (tee.out) and dtrace's stderr on
# its stderr (tee.err), kept apart (--tee FILE interleaves both in FILE).
#
# Compared per script:
#   - stdout: the tee file and dtconsume's stdout, byte for byte;
#   - stderr: the lines starting with "dtrace: " (drops, run-time errors,
#     failed speculations), as a set of lines, on both sides, leaving out
#     the notices that no capture can carry: "dtrace: script '...' matched
#     N probes" / "description ... matched" (compile time) and "dtrace: pid
#     N has exited" / "terminated by ..." (process control of -c).
#
# Script conventions (comment lines anywhere in the script, each on a line
# of its own, exactly "/* @@tag: value */"):
#   /* @@flags: -q -x bufsize=4k */   extra dtsnap record options
#                                     (word-split; no quoting)
#   /* @@cmd: @PROGDIR@/liveprog spin 300 */   the -c command; @PROGDIR@
#                                     is the directory where the programs
#                                     of testdata/live/prog/*.c were built
#                                     (cc -O0 -fno-omit-frame-pointer)
#   /* @@timeout: 30 */               seconds before SIGINT (default 20)
# The -c command must not write to stdout: dtrace -c shares its stdout.
#
# testdata/live/KNOWN lists known differences, one per line:
#   name: cause, with the libdtrace source location
# A listed script that differs is reported as KNOWN, not as a failure.
#
# Environment:
#   DTSNAP, DTCONSUME  the programs (default $top_builddir/cmd/dtsnap and
#                      $top_builddir/cmd/dtconsume, as the other tests)
#   LIVE_SUBSET=N      run only the first N scripts in name order
#   LIVE_KEEP=dir      keep each script's capture and outputs in dir/name/
#   LIVE_TIMEOUT=s     default per-script timeout (20)
# An argument runs only the scripts whose name contains it.
#
# Output: one line per script ("ok name", "DIFF name" followed by at most
# 20 lines of unified diff, "KNOWN name: cause", "SKIP name: why"), then
# "N/M live scripts identical" (M = scripts run).  Exit 0 when every script
# not listed in KNOWN is identical, 1 otherwise, 77 (one line "SKIP: why")
# when live tracing is impossible here.
# make check-live runs it with $(SHELL): come back to bash.
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
export TZ=${TZ:-UTC}

livedir="$top_srcdir/testdata/live"
only=${1-}
default_timeout=${LIVE_TIMEOUT:-20}

# tag SCRIPT NAME: the value of "/* @@NAME: value */" in SCRIPT.
tag() {
	sed -n "s,^/\\* @@$2: \\(.*\\) \\*/\$,\\1,p" "$1" | head -n 1
}

# dtrace_msgs FILE: the "dtrace: " stderr lines a capture can carry, as a set.
dtrace_msgs() {
	grep '^dtrace: ' "$1" |
	grep -v -E "^dtrace: (script|description) .* matched [0-9]+ probes?\$" |
	grep -v -E '^dtrace: pid [0-9]+ (has exited|terminated by .*)$' |
	sort -u
}

# known NAME: the cause listed in KNOWN for NAME, empty when not listed.
known() {
	[ -f "$livedir/KNOWN" ] || return 0
	sed -n -e "s/^$1\\(\\.d\\)\\{0,1\\}: *//p" "$livedir/KNOWN" | head -n 1
}

live_workdir dtc-live
live_prereqs

# the user programs the scripts trace
progdir="$work/prog"
mkdir -p "$progdir"
progs_ok=1
for c in "$livedir"/prog/*.c; do
	[ -f "$c" ] || continue
	if ! cc -O0 -fno-omit-frame-pointer -o "$progdir/$(basename "$c" .c)" \
	    "$c" 2>"$work/cc.err"; then
		progs_ok=0
		echo "# cannot build $c: $(head -n 1 "$work/cc.err")"
	fi
done

scripts=$(cd "$livedir/scripts" && ls -- *.d | sort)
if [ -n "$only" ]; then
	scripts=$(echo "$scripts" | grep -F -- "$only")
fi
if [ -n "${LIVE_SUBSET:-}" ]; then
	scripts=$(echo "$scripts" | head -n "$LIVE_SUBSET")
fi

total=0 same=0 fail=0
for f in $scripts; do
	name=${f%.d}
	script="$livedir/scripts/$f"
	w="$work/$name"
	mkdir -p "$w"

	flags=$(tag "$script" flags)
	cmd=$(tag "$script" cmd)
	t=$(tag "$script" timeout)
	: "${t:=$default_timeout}"
	if [ -n "$cmd" ] && [ "${cmd#*@PROGDIR@}" != "$cmd" ] && [ $progs_ok = 0 ]; then
		echo "SKIP $name: the traced program could not be built"
		continue
	fi
	cmd=${cmd//@PROGDIR@/$progdir}
	cargs=()
	[ -n "$cmd" ] && cargs=(-c "$cmd")

	total=$((total + 1))
	# shellcheck disable=SC2086
	timeout -k 10 -s INT "$t" "$DTSNAP" record --tee - \
	    -o "$w/cap.dtsnap" $flags -s "$script" ${cargs[@]+"${cargs[@]}"} \
	    >"$w/tee.out" 2>"$w/tee.err" </dev/null
	rc=$?

	diffs=""
	if [ ! -s "$w/cap.dtsnap" ] || [ ! -f "$w/tee.out" ]; then
		diffs="record failed (exit $rc): $(grep -v '^$' "$w/tee.err" | head -n 3)"
	else
		"$DTCONSUME" "$w/cap.dtsnap" >"$w/dec.out" 2>"$w/dec.err"
		drc=$?
		dtrace_msgs "$w/tee.err" >"$w/tee.msgs"
		dtrace_msgs "$w/dec.err" >"$w/dec.msgs"
		if ! cmp -s "$w/tee.out" "$w/dec.out"; then
			diffs=$(diff -u --label dtrace --label dtconsume \
			    "$w/tee.out" "$w/dec.out")
		fi
		if ! cmp -s "$w/tee.msgs" "$w/dec.msgs"; then
			diffs="$diffs${diffs:+
}$(diff -u --label 'dtrace stderr' --label 'dtconsume stderr' \
			    "$w/tee.msgs" "$w/dec.msgs")"
		fi
		if [ -z "$diffs" ] && [ $drc -ne 0 ] && [ $rc -eq 0 ]; then
			diffs="dtconsume exit $drc: $(head -n 1 "$w/dec.err")"
		fi
	fi

	if [ -n "${LIVE_KEEP:-}" ]; then
		mkdir -p "$LIVE_KEEP/$name"
		cp -p "$w"/* "$LIVE_KEEP/$name/" 2>/dev/null
	fi

	cause=$(known "$name")
	if [ -z "$diffs" ]; then
		same=$((same + 1))
		if [ -n "$cause" ]; then
			echo "ok $name (listed in KNOWN but identical: remove it)"
		else
			echo "ok $name"
		fi
	elif [ -n "$cause" ]; then
		echo "KNOWN $name: $cause"
	else
		fail=$((fail + 1))
		echo "DIFF $name"
		echo "$diffs" | head -n 20 | sed -e 's/^/    /'
	fi
	rm -rf "$w"
done

echo "$same/$total live scripts identical"
[ $fail -eq 0 ] || exit 1
exit 0
