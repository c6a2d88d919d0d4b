#!/bin/bash
# record_zstd.sh - dtsnap record -z: a live compressed capture.
#
# A program that prints for several passes (tick-20ms, five times) is
# recorded with -z3 and --tee.  Checked: the capture starts with a zstd
# frame; it holds more than one frame (one ends at every pass: the frame
# magic is found more than once, and zstd(1) decodes the file to the
# same bytes as `dtsnap convert --no-zstd`); dtconsume of it prints what
# the tee printed.
# Needs root, tracefs, BPF and a dtsnap built --with-libdtrace; skips
# (77) saying why otherwise (livelib.sh's live_prereqs).
. "$(dirname "$0")/lib.sh"
DTCONSUME="$top_builddir/cmd/dtconsume"
. "$(dirname "$0")/livelib.sh"
command -v zstd >/dev/null 2>&1 || skip "no zstd(1) program (Debian: zstd)"
live_workdir record_zstd
live_prereqs
tmp=$work

timeout -k 10 -s INT 120 "$DTSNAP" record -z3 -q -x switchrate=50hz \
    -n 'tick-20ms { printf("tick %d\n", ++n); } tick-20ms /n == 5/ { exit(0); }' \
    -o "$tmp/cap" --tee "$tmp/tee" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then ok "record -z3 exits 0"; else
	not_ok "record -z3 exits 0" "got $rc" "$(head -3 "$tmp/err")"; finish; fi
magic=$(head -c 4 "$tmp/cap" | od -An -tx1 | tr -d ' ')
[ "$magic" = 28b52ffd ] && ok "the capture starts with a zstd frame" ||
    not_ok "the capture starts with a zstd frame" "got $magic"
nf=$(od -An -v -tx1 "$tmp/cap" | tr -d ' \n' | grep -o 28b52ffd | wc -l)
zstd -q -d -c "$tmp/cap" >"$tmp/z.raw" 2>/dev/null
"$DTSNAP" convert --no-zstd "$tmp/cap" -o "$tmp/d.raw"
if [ "$nf" -ge 2 ] && cmp -s "$tmp/z.raw" "$tmp/d.raw"; then
	ok "$nf frames, zstd -d agrees with convert --no-zstd"
else
	not_ok "several frames, zstd -d agrees" "frames $nf"
fi
"$DTCONSUME" "$tmp/cap" >"$tmp/out" 2>"$tmp/derr"
if cmp -s "$tmp/out" "$tmp/tee" && [ -s "$tmp/tee" ]; then
	ok "dtconsume of the capture prints what the tee printed ($(wc -l <"$tmp/tee") lines)"
else
	not_ok "dtconsume of the capture prints the tee" \
	    "$(diff "$tmp/tee" "$tmp/out" | head -5)"
fi
finish
