#!/bin/bash
# file_safety.sh - output files as root meets them (issue 26 items 7, 8
# and 10; dtconsume(1) and dtsnap(1), -o):
#  - a symbolic link planted in a sticky, world-writable directory is never
#    followed by dtconsume -o, dt2json -o, dtsnap synth -o or dtsnap
#    convert -o: refused (exit 1, "it is a symbolic link"), its target and
#    the link intact, no temporary file left;
#  - a synth or convert that fails leaves an existing OUT as it was;
#  - every descriptor dtconsume holds while it decodes (the capture, the
#    temporary output file) is close-on-exec: read from /proc/PID/fdinfo
#    while it waits on a FIFO for the rest of its capture.
# (dtsnap record's files: cmd/tests/record_files.sh, live.)
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
DT2JSON="$(cd "$top_builddir" && pwd)/cmd/dt2json"
DTSNAP="$(cd "$top_builddir" && pwd)/cmd/dtsnap"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-files.XXXXXX") || exit 99
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 99
desc="$top_srcdir/testdata/folded/kernel.json"
"$DTSNAP" synth "$desc" -o cap.dtsnap || exit 99
"$DTCONSUME" cap.dtsnap >want.txt 2>/dev/null || exit 99

mkdir -m 1777 sticky
echo "precious" >victim
cp victim victim.orig

# refused NAME PROG-NAME LINK CMD...: CMD writes through the planted LINK
refused() {
	local name=$1 prog=$2 link=$3
	shift 3
	ln -sfn "$work/victim" "$link"
	"$@" >out 2>err
	rc=$?
	left=$(ls -A sticky | grep '^\.' | head -n 1)
	if [ $rc = 1 ] && cmp -s victim victim.orig && [ -L "$link" ] &&
	    [ -z "$left" ] &&
	    [ "$(cat err)" = "$prog: cannot write $link: it is a symbolic link (not followed: name the file it points at)" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, left '$left'" "$(cat err)"
	fi
}
refused "dtconsume -o a planted link" dtconsume sticky/out.txt \
    "$DTCONSUME" -o sticky/out.txt cap.dtsnap
refused "dt2json -o a planted link" dt2json sticky/out.json \
    "$DT2JSON" -o sticky/out.json cap.dtsnap
refused "dtsnap synth -o a planted link" dtsnap sticky/s.dtsnap \
    "$DTSNAP" synth "$desc" -o sticky/s.dtsnap
refused "dtsnap convert -o a planted link" dtsnap sticky/c.jsonl \
    "$DTSNAP" convert cap.dtsnap -o sticky/c.jsonl
# a dangling link (to a file that would be created) is refused the same
ln -sfn "$work/created" sticky/dangling
"$DTSNAP" synth "$desc" -o sticky/dangling 2>err; rc=$?
if [ $rc = 1 ] && [ ! -e created ]; then
	ok "dtsnap synth -o a dangling link: nothing created"
else
	not_ok "dangling link" "exit $rc" "$(cat err)"
fi
# naming the file itself still works, and replaces it
"$DTCONSUME" -o victim cap.dtsnap 2>err; rc=$?
if [ $rc = 0 ] && cmp -s victim want.txt; then
	ok "dtconsume -o the link's target by its name: written"
else
	not_ok "-o the target" "exit $rc" "$(cat err)"
fi

# --- failures leave OUT as it was
cp cap.dtsnap keep.dtsnap
echo '{"not": "a description"}' >bad.json
"$DTSNAP" synth bad.json -o keep.dtsnap >/dev/null 2>err; rc=$?
left=$(ls -A | grep '^\.' | head -n 1)
if [ $rc = 1 ] && cmp -s keep.dtsnap cap.dtsnap && [ -z "$left" ]; then
	ok "failed synth: OUT intact, no temporary file"
else
	not_ok "failed synth" "exit $rc, left '$left'" "$(cat err)"
fi
echo '{"t": "dtsnap", "seq": 0, ' >bad.jsonl
"$DTSNAP" convert bad.jsonl -o keep.dtsnap >/dev/null 2>err; rc=$?
if [ $rc = 1 ] && cmp -s keep.dtsnap cap.dtsnap; then
	ok "failed convert: OUT intact"
else
	not_ok "failed convert" "exit $rc" "$(cat err)"
fi

# --- close-on-exec: dtconsume's descriptors while it decodes
if [ -d /proc/self/fdinfo ] && mkfifo fifo 2>/dev/null; then
	"$DTCONSUME" -o fifo.txt fifo 2>fifo.err &
	pid=$!
	exec 5>fifo
	# the first bytes, so that the capture opens and the output with it
	head -c 600 cap.dtsnap >&5
	for _ in $(seq 100); do
		ls -l /proc/$pid/fd 2>/dev/null | grep -q '\.fifo\.txt\.' && break
		sleep 0.1
	done
	nfd=0 nexec=0 bad=
	for f in /proc/$pid/fdinfo/*; do
		fd=${f##*/}
		[ "$fd" -le 2 ] && continue
		# what dtconsume opened itself, not what it inherited
		case $(readlink "/proc/$pid/fd/$fd") in
		"$work"/*) ;;
		*) continue ;;
		esac
		flags=$(awk '/^flags:/ { print $2 }' "$f" 2>/dev/null) || continue
		[ -n "$flags" ] || continue
		nfd=$((nfd + 1))
		# O_CLOEXEC is 02000000 (octal) in fdinfo's flags
		if [ $(( 0$flags & 02000000 )) -ne 0 ]; then
			nexec=$((nexec + 1))
		else
			bad="$bad $fd->$(readlink /proc/$pid/fd/$fd)"
		fi
	done
	tail -c +601 cap.dtsnap >&5
	exec 5>&-
	wait $pid; rc=$?
	pid=
	if [ $nfd -ge 2 ] && [ -z "$bad" ] && [ $rc = 0 ] &&
	    cmp -s fifo.txt want.txt; then
		ok "dtconsume: all $nfd descriptors close-on-exec"
	else
		not_ok "dtconsume close-on-exec" "$nexec of $nfd;$bad" \
		    "exit $rc" "$(cat fifo.err)"
	fi
else
	echo "# close-on-exec case skipped: no /proc fdinfo or mkfifo"
fi
finish
