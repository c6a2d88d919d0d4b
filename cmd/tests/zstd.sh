#!/bin/sh
# zstd.sh - compressed captures (dtsnap(5), COMPRESSION).
#
# Checked:
#   - every capture of testdata/live/captures and testdata/samples:
#     `convert --zstd` then `convert --no-zstd` gives back the same bytes;
#     dtconsume of the compressed capture prints what it prints for the
#     uncompressed one (standard output and exit status) with -f text,
#     json, cbor and none, from the file and from a pipe; dt2json and
#     `dtsnap validate` too;
#   - damage, on a capture of four frames made by the zstd(1) program
#     (the sample cut at item boundaries that `dtsnap dump` names, each
#     piece compressed on its own: a layout and a compressor independent
#     of the writer).  The expected output is that of the uncompressed
#     capture with the damaged frame's items left out:
#       a corrupted frame in the middle   -> that frame's items lost;
#       garbage between two frames         -> nothing lost;
#       a frame whose content size lies    -> that frame's items lost;
#       the capture cut inside frame 4     -> what zstd -d recovers of it
#                                             kept (maybe nothing: a
#                                             block is decoded whole);
#     each with a warning naming the file, the frame and its compressed
#     byte offset, and exit status 1.
# Exit 0 when every check holds, 1 otherwise, 77 when a tool is missing.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
B="$(cd "$top_builddir" && pwd)"
DTSNAP="$B/cmd/dtsnap"
DTCONSUME="$B/cmd/dtconsume"
DT2JSON="$B/cmd/dt2json"
: "${PYTHON3:=/usr/bin/python3}"
for t in "$DTSNAP" "$DTCONSUME" "$DT2JSON"; do
	[ -x "$t" ] || { echo "SKIP: no $t: build first"; exit 77; }
done
command -v zstd >/dev/null 2>&1 ||
    { echo "SKIP: no zstd(1) program (Debian: zstd)"; exit 77; }
"$PYTHON3" -c 'pass' 2>/dev/null || { echo "SKIP: no $PYTHON3"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-zstd.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
unset _DTRACE_TESTING
export TZ=UTC

# ---- round trips and decodes, every capture ----
n=0
for cap in "$top_srcdir"/testdata/live/captures/*/cap.dtsnap \
    "$B/testdata/samples/syscalls.dtsnap"; do
	[ -f "$cap" ] || continue
	n=$((n + 1))
	name=$(basename "$(dirname "$cap")")
	z="$work/c.zst"
	if ! "$DTSNAP" convert --zstd=5 "$cap" -o "$z" ||
	    ! "$DTSNAP" convert --no-zstd "$z" -o "$work/c.raw" ||
	    ! cmp -s "$cap" "$work/c.raw"; then
		not_ok "$name: convert --zstd, --no-zstd gives the bytes back"
		continue
	fi
	if [ "$(head -c 4 "$z" | od -An -tx1 | tr -d ' ')" != 28b52ffd ]; then
		not_ok "$name: the compressed capture starts with a frame"
		continue
	fi
	bad=
	# (one file name for both: JSON and CBOR output name the source)
	for f in text json cbor none; do
		cp "$cap" "$work/same"
		"$DTCONSUME" -f $f "$work/same" >"$work/u.out" 2>/dev/null
		ru=$?
		"$DTCONSUME" -f $f - <"$cap" >"$work/up.out" 2>/dev/null
		cp "$z" "$work/same"
		"$DTCONSUME" -f $f "$work/same" >"$work/z.out" 2>/dev/null
		rz=$?
		"$DTCONSUME" -f $f - <"$z" >"$work/p.out" 2>/dev/null
		rp=$?
		cmp -s "$work/u.out" "$work/z.out" || bad="$bad $f(file)"
		cmp -s "$work/up.out" "$work/p.out" || bad="$bad $f(pipe)"
		[ $ru = $rz ] && [ $ru = $rp ] || bad="$bad $f(status $ru/$rz/$rp)"
	done
	cp "$cap" "$work/same"
	"$DT2JSON" "$work/same" >"$work/u.out" 2>/dev/null
	cp "$z" "$work/same"
	"$DT2JSON" "$work/same" >"$work/z.out" 2>/dev/null
	cmp -s "$work/u.out" "$work/z.out" || bad="$bad dt2json"
	"$DTSNAP" validate "$cap" 2>&1 | sed 's/^[^:]*: //' >"$work/u.out"
	"$DTSNAP" validate "$z" 2>&1 | sed 's/^[^:]*: //' >"$work/z.out"
	cmp -s "$work/u.out" "$work/z.out" || bad="$bad validate"
	if [ -n "$bad" ]; then
		not_ok "$name: compressed decodes as uncompressed" "$bad"
	fi
done
if [ "$n" -lt 40 ]; then
	not_ok "round trips: $n captures found, expected 40 or more"
else
	ok "round trips and decodes of $n captures"
fi

# ---- a capture of four frames, made by zstd(1) ----
U="$B/testdata/samples/syscalls.dtsnap"
"$DTSNAP" dump "$U" | sed -n 's/^item \([0-9]*\), offset \([0-9]*\):.*/\2/p' \
    >"$work/offsets"
size=$(wc -c <"$U")
# the first item boundary past each quarter
set -- $(awk -v s="$size" 'BEGIN { q = 1 }
    { if (q < 4 && $1 >= q * s / 4) { print $1; q++ } }' "$work/offsets")
if [ $# -ne 3 ]; then
	not_ok "four pieces of $U" "cut points: $*"
	finish
fi
"$PYTHON3" - "$U" "$work" "$@" <<'EOF'
import sys
u, w = open(sys.argv[1], 'rb').read(), sys.argv[2]
cuts = [0] + [int(x) for x in sys.argv[3:]] + [len(u)]
for i in range(4):
    open('%s/piece%d' % (w, i + 1), 'wb').write(u[cuts[i]:cuts[i + 1]])
EOF
for i in 1 2 3 4; do
	zstd -q -c -3 "$work/piece$i" >"$work/f$i.zst" || exit 99
done
cat "$work/f1.zst" "$work/f2.zst" "$work/f3.zst" "$work/f4.zst" \
    >"$work/multi.zst"
o2=$(cat "$work/f1.zst" | wc -c)
o3=$((o2 + $(wc -c <"$work/f2.zst")))
o4=$((o3 + $(wc -c <"$work/f3.zst")))

"$DTCONSUME" "$U" >"$work/full.out" 2>/dev/null
"$DTCONSUME" "$work/multi.zst" >"$work/multi.out" 2>"$work/multi.err"
if cmp -s "$work/full.out" "$work/multi.out" && [ ! -s "$work/multi.err" ]
then
	ok "four frames of zstd(1) decode as the uncompressed capture"
else
	not_ok "four frames of zstd(1) decode as the uncompressed capture" \
	    "$(head -3 "$work/multi.err")"
fi

# check NAME DAMAGED EXPECTED-CAPTURE WARNING-REGEX
check() {
	"$DTCONSUME" "$2" >"$work/d.out" 2>"$work/d.err"
	rd=$?
	"$DTCONSUME" "$3" >"$work/e.out" 2>/dev/null
	if ! cmp -s "$work/d.out" "$work/e.out"; then
		not_ok "$1: output is the undamaged frames'" \
		    "$(diff "$work/e.out" "$work/d.out" | head -5)"
	elif ! grep -Eq "^dtconsume: $2: .*$4" "$work/d.err"; then
		not_ok "$1: located warning" "$(head -3 "$work/d.err")"
	elif [ $rd -ne 1 ]; then
		not_ok "$1: exit status 1" "got $rd"
	else
		ok "$1 ($(wc -l <"$work/d.out") lines kept; $(head -1 \
		    "$work/d.err" | cut -c1-160))"
	fi
}

# a corrupted frame in the middle: bytes in frame 2 overwritten
"$PYTHON3" - "$work/multi.zst" "$work/corrupt.zst" "$o2" "$o3" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
a, e = int(sys.argv[3]), int(sys.argv[4])
m = (a + e) // 2
b[m:m + 16] = bytes((x ^ 0x5a) for x in b[m:m + 16])
open(sys.argv[2], 'wb').write(b)
EOF
cat "$work/piece1" "$work/piece3" "$work/piece4" >"$work/no2.dtsnap"
check "corrupted frame 2" "$work/corrupt.zst" "$work/no2.dtsnap" \
    "zstd frame 2 at compressed byte $o2 is damaged"

# garbage between frames 2 and 3: nothing lost
head -c 1000 /dev/urandom | tr -d '\050' >"$work/garbage"
cat "$work/f1.zst" "$work/f2.zst" "$work/garbage" "$work/f3.zst" \
    "$work/f4.zst" >"$work/garbage.zst"
check "garbage between frames" "$work/garbage.zst" "$U" \
    "[0-9]+ bytes at compressed byte $o3 \\(after zstd frame 2\\) are not a zstd frame"

# frame 3's content size field says 2^40 more than it holds
"$PYTHON3" - "$work/f3.zst" "$work/lie3.zst" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
fhd = b[4]
fcs = {0: 1 if fhd & 0x20 else 0, 1: 2, 2: 4, 3: 8}[fhd >> 6]
did = {0: 0, 1: 1, 2: 2, 3: 4}[fhd & 3]
at = 5 + (0 if fhd & 0x20 else 1) + did
if fcs < 4:
    sys.exit('zstd(1) wrote no 4- or 8-byte content size field')
v = int.from_bytes(b[at:at + fcs], 'little') + (1 << 30 if fcs == 4 else 1 << 40)
b[at:at + fcs] = (v % (1 << (8 * fcs))).to_bytes(fcs, 'little')
open(sys.argv[2], 'wb').write(b)
EOF
cat "$work/f1.zst" "$work/f2.zst" "$work/lie3.zst" "$work/f4.zst" \
    >"$work/lie.zst"
cat "$work/piece1" "$work/piece2" "$work/piece4" >"$work/no3.dtsnap"
check "frame 3 with a lying content size" "$work/lie.zst" \
    "$work/no3.dtsnap" "zstd frame 3 at compressed byte $o3 is damaged"

# cut inside frame 4: what zstd(1) recovers of it is kept
cut=$((o4 + $(wc -c <"$work/f4.zst") / 2))
head -c $cut "$work/multi.zst" >"$work/cut.zst"
tail -c +$((o4 + 1)) "$work/cut.zst" | zstd -q -d -c >"$work/part4" 2>/dev/null
cat "$work/piece1" "$work/piece2" "$work/piece3" "$work/part4" \
    >"$work/cut.dtsnap"
check "capture cut inside frame 4" "$work/cut.zst" "$work/cut.dtsnap" \
    "zstd frame 4 at compressed byte $o4 is cut short at compressed byte $cut"

finish
