#!/bin/bash
# record_rotate.sh - dtsnap record --switch-output against the live kernel
# (issue 20 item 2; dtsnap(1) RECORDING IN PRODUCTION, dtsnap(5) SERIES).
# One script, ended by its own exit(), prints a numbered line every
# millisecond and keeps two aggregations; what dtrace printed of the run
# (--tee) is the expected output, derived independently of our decoder:
#  - by size (--switch-output=8K): several parts; dtconsume of all of
#    them equals the tee byte for byte, aggregations included; every part
#    validates on its own; dtsnap info names the series and part;
#  - by time (--switch-output=1s): the same;
#  - on SIGUSR2 with --switch-max-files 2: the oldest parts are removed,
#    two stay, and their decode is the tail of the tee from the first line
#    of the first part kept;
#  - --ring (issue 20 item 3): the window written at the end decodes to
#    exactly the tail of the tee, and the records it says it let go are
#    the lines before it; on SIGUSR2 a window is written while the run
#    goes on, its lines a slice of the tee.
# ROTATE_CI=1 runs one rotation case (by size) and one ring case (the
# window at the end) only: .ci/run's live step.
# Each case prints its figure (parts, bytes, lines).  Needs root, BPF,
# tracefs and a dtsnap built --with-libdtrace; skips (77) saying why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/livelib.sh"
: "${DTSNAP:=$top_builddir/cmd/dtsnap}"
: "${DTCONSUME:=$top_builddir/cmd/dtconsume}"

live_workdir record_rotate
live_prereqs
cd "$work" || exit 99

# N: a script that prints N numbered lines, then exits (the END clause
# and the aggregations printed at the end come from the last part)
script() {
	cat <<EOF
#pragma D option quiet
#pragma D option switchrate=20hz
int i;
tick-1ms
/i < $1/
{
	printf("%d the quick brown fox jumps over the lazy dog\n", i);
	@n[i % 3] = count();
	@q = quantize(i);
	i++;
}
tick-1ms
/i == $1/
{
	exit(0);
}
END
{
	printa("end %d %@u\n", @n);
}
EOF
}

# CASE: every part of CASE.*.dtsnap decodes as one capture equal to the tee
series_is_tee() {
	local n=$1 parts bad=
	parts=$(ls "$n".0*.dtsnap 2>/dev/null | wc -l)
	"$DTCONSUME" "$n".0*.dtsnap >"$n.dec" 2>"$n.decerr"
	for p in "$n".0*.dtsnap; do
		"$DTSNAP" validate "$p" >/dev/null 2>&1 || bad="$bad $p"
	done
	if [ "$parts" -ge 3 ] && cmp -s "$n.dec" "$n.tee" &&
	    [ ! -s "$n.decerr" ] && [ -z "$bad" ]; then
		ok "$n: $parts parts, $(cat "$n".0*.dtsnap | wc -c) bytes: their decode is the tee ($(wc -l <"$n.tee") lines), each part valid"
	else
		not_ok "$n: the series decodes as the tee" "$parts parts" \
		    "$(diff "$n.tee" "$n.dec" | head -5)" "$(head -3 "$n.decerr")" \
		    "invalid parts:$bad"
	fi
}

# --- 1. by size
script 3000 >size.d
timeout -s INT 120 "$DTSNAP" record -s size.d -o size.dtsnap --tee size.tee \
    --switch-output=8K >size.out 2>size.err
rc=$?
[ $rc = 0 ] || not_ok "size: exit 0" "exit $rc" "$(cat size.err)"
series_is_tee size
"$DTSNAP" info size.000001.dtsnap >size.info 2>&1
grep -q '^series       [0-9a-f]\{16\}, part 1 ([0-9]* items repeated' size.info &&
    grep -q '^part end     the run goes on in the next part' size.info &&
    grep -q '^drops so far cpu 0: 0' size.info &&
    grep -q '^part records hrtime [0-9]* \.\. [0-9]* = 20' size.info &&
    ok "size: dtsnap info says series, part, records, drops" ||
    not_ok "size: dtsnap info of a part" "$(cat size.info | head -14)"

if [ -z "$ROTATE_CI" ]; then
# --- 2. by time
script 3500 >time.d
timeout -s INT 120 "$DTSNAP" record -s time.d -o time.dtsnap --tee time.tee \
    --switch-output=1s >time.out 2>time.err
rc=$?
[ $rc = 0 ] || not_ok "time: exit 0" "exit $rc" "$(cat time.err)"
series_is_tee time

# --- 3. on SIGUSR2, the newest two parts kept
script 6000 >sig.d
# (not under timeout(1), which would die of the SIGUSR2; the script ends
# itself)
"$DTSNAP" record -s sig.d -o sig.dtsnap --tee sig.tee \
    --switch-output --switch-max-files 2 >sig.out 2>sig.err &
pid=$!
# the parts begin once tracing does: wait for the first one, then ask
for _ in $(seq 100); do
	[ -s sig.tee ] && break
	sleep 0.1
done
for _ in 1 2 3 4; do
	sleep 0.8
	kill -USR2 "$pid"
done
wait "$pid"
rc=$?
kept=$(ls sig.0*.dtsnap | wc -l)
first=$(ls sig.0*.dtsnap | head -1)
"$DTCONSUME" sig.0*.dtsnap >sig.dec 2>sig.decerr
line=$("$DTCONSUME" "$first" 2>/dev/null | grep -m1 .)
at=$(grep -n -x -F "$line" sig.tee | sed -n '1s/:.*//p')
sed -n "${at:-999999},\$p" sig.tee >sig.want
if [ $rc = 0 ] && [ "$kept" = 2 ] && [ ! -e sig.000000.dtsnap ] &&
    [ "$first" != sig.000000.dtsnap ] && [ -s sig.want ] &&
    cmp -s sig.dec sig.want && [ ! -s sig.decerr ]; then
	ok "SIGUSR2, --switch-max-files 2: $first and one more kept; their decode is the tee from line $at of $(wc -l <sig.tee)"
else
	not_ok "SIGUSR2 and --switch-max-files" "exit $rc, kept $kept: $(ls sig.0*)" \
	    "$(diff sig.want sig.dec | head -5)" "$(cat sig.err sig.decerr | head -5)"
fi

fi

# --- 4. --ring: the window written at the end is the tail of the tee
script 3000 >ring.d
timeout -s INT 120 "$DTSNAP" record -s ring.d -o ring.dtsnap --tee ring.tee \
    --ring 32K >ring.out 2>ring.err
rc=$?
"$DTCONSUME" ring.dtsnap >ring.dec 2>ring.decerr
line=$(grep -m1 . ring.dec)
at=$(grep -n -x -F "$line" ring.tee | sed -n '1s/:.*//p')
sed -n "${at:-999999},\$p" ring.tee >ring.want
"$DTSNAP" info ring.dtsnap >ring.info 2>&1
gone=$(sed -n 's/^let go       \([0-9]*\) records.*/\1/p' ring.info)
# one record a line: the records let go are the lines before the window
if [ $rc = 0 ] && [ -n "$at" ] && [ "$at" -gt 1 ] && [ -s ring.want ] &&
    cmp -s ring.dec ring.want && [ ! -s ring.decerr ] &&
    grep -q '^part end     a window of the run' ring.info &&
    [ "$gone" = $((at - 1)) ]; then
	ok "--ring 32K: $(wc -c <ring.dtsnap) bytes, the tee from line $at of $(wc -l <ring.tee); $gone records let go, as dtsnap info says"
else
	not_ok "--ring: the window is the tail of the tee" "exit $rc, line $at, let go $gone" \
	    "$(diff ring.want ring.dec | head -5)" "$(cat ring.err ring.decerr | head -5)"
fi

[ -n "$ROTATE_CI" ] && finish
# --- 5. --ring, SIGUSR2: a window while the run goes on, its numbered
# lines a slice of the tee, then the end's window replaces it
script 8000 >ringsig.d
"$DTSNAP" record -s ringsig.d -o rs.dtsnap --tee rs.tee --ring 32K \
    >rs.out 2>rs.err &
pid=$!
for _ in $(seq 100); do
	[ -s rs.tee ] && break
	sleep 0.1
done
sleep 1
kill -USR2 "$pid"
for _ in $(seq 50); do
	[ -s rs.dtsnap ] && break
	sleep 0.1
done
cp rs.dtsnap rs.mid.dtsnap 2>/dev/null
wait "$pid"
rc=$?
"$DTCONSUME" rs.mid.dtsnap 2>rs.miderr | grep ' the quick brown' >rs.mid
first=$(head -1 rs.mid)
at=$(grep -n -x -F "$first" rs.tee | sed -n '1s/:.*//p')
sed -n "${at:-999999},\$p" rs.tee | head -n "$(wc -l <rs.mid)" >rs.midwant
"$DTCONSUME" rs.dtsnap >rs.dec 2>&1
if [ $rc = 0 ] && [ -s rs.mid ] && cmp -s rs.mid rs.midwant &&
    [ ! -s rs.miderr ] && ! cmp -s rs.mid.dtsnap rs.dtsnap &&
    [ "$(tail -1 rs.tee)" = "$(tail -1 rs.dec)" ]; then
	ok "--ring, SIGUSR2: a window of $(wc -l <rs.mid) lines from line $at while the run went on; the end's replaced it"
else
	not_ok "--ring and SIGUSR2" "exit $rc, line $at" \
	    "$(diff rs.midwant rs.mid | head -5)" "$(cat rs.err rs.miderr | head -5)"
fi

# --- 6. usage
"$DTSNAP" record -n BEGIN -o - --switch-output=1M >/dev/null 2>u.err
[ $? = 2 ] && grep -q 'no -o -' u.err &&
    ok "--switch-output with -o -: a usage error" ||
    not_ok "--switch-output with -o -" "$(cat u.err)"
"$DTSNAP" record -n BEGIN -o x.dtsnap --switch-output=10x 2>u.err
[ $? = 2 ] && grep -q 'signal, a size' u.err &&
    ok "--switch-output=10x: a usage error" ||
    not_ok "--switch-output=10x" "$(cat u.err)"
finish
