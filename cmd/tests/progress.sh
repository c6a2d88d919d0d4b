#!/bin/sh
# The progress line of a long decode (dtconsume(1) --no-progress): drawn
# on standard error when it is a terminal, never otherwise, taken off the
# screen before messages and at the end, and never in the output.
# script(1) gives the command a terminal; DTCONSUME_PROGRESS_AFTER=0
# (dtconsume(1) ENVIRONMENT) draws the line at the start of a capture,
# however short the decode, so that the test sees it; the 2-second rule
# itself is tried with a capture that arrives slowly through a pipe.
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
DTSNAP="$(cd "$top_builddir" && pwd)/cmd/dtsnap"
[ -x "$DTCONSUME" ] || { echo "# no $DTCONSUME"; exit 77; }
if ! command -v script >/dev/null 2>&1 ||
    ! script -qec true /dev/null >/dev/null 2>&1; then
	echo "# script(1) not available: no terminal to test with"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-progress.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 99
unset DTCONSUME_PROGRESS_AFTER
# sel.json has an ERROR record (a message on stderr); agg.json none
"$DTSNAP" synth "$top_srcdir/testdata/select/sel.json" -o sel.dtsnap || exit 99
"$DTSNAP" synth "$top_srcdir/testdata/select/agg.json" -o agg.dtsnap || exit 99
ESC=$(printf '\033')
CR=$(printf '\r')
LINE="dtconsume: agg.dtsnap: 0 B of [0-9.]* KiB (0%), 0 records/s"

# on_tty CMD: run CMD (a shell command line) on a terminal; what the
# terminal showed goes to tty.out
on_tty() {
	script -qec "$1" /dev/null >tty.out 2>&1
}

# --- drawn, and cleared at the end; the output is what it is without
"$DTCONSUME" agg.dtsnap >plain.out 2>/dev/null
on_tty "DTCONSUME_PROGRESS_AFTER=0 '$DTCONSUME' agg.dtsnap >out.txt"
if grep -q "^$CR$LINE$ESC\[K$CR$ESC\[K\$" tty.out; then
	ok "the line is drawn in place and taken off at the end"
else
	not_ok "the line is drawn and cleared" "$(od -c tty.out | head -n 6)"
fi
cmp -s out.txt plain.out && ok "the output is the same with the line" ||
    not_ok "the output is the same with the line"

# --- never when standard error is not a terminal, or when turned off
DTCONSUME_PROGRESS_AFTER=0 "$DTCONSUME" agg.dtsnap >out.txt 2>err.txt
if [ ! -s err.txt ] && cmp -s out.txt plain.out; then
	ok "no line when standard error is a file"
else
	not_ok "no line when standard error is a file" "$(od -c err.txt | head -n 3)"
fi
on_tty "DTCONSUME_PROGRESS_AFTER=0 '$DTCONSUME' --no-progress agg.dtsnap >out.txt"
if ! grep -q "records/s" tty.out && cmp -s out.txt plain.out; then
	ok "--no-progress: no line"
else
	not_ok "--no-progress: no line" "$(od -c tty.out | head -n 3)"
fi
# the output going to the terminal as it is decoded: the line would
# break into it
on_tty "DTCONSUME_PROGRESS_AFTER=0 '$DTCONSUME' agg.dtsnap"
grep -q "records/s" tty.out && not_ok "no line into text on the terminal" ||
    ok "no line when the text goes to the terminal"
# -f none writes at the end: the line is off the screen before it
on_tty "DTCONSUME_PROGRESS_AFTER=0 '$DTCONSUME' -f none agg.dtsnap"
if grep -q "^$CR$LINE$ESC\[K$CR$ESC\[K1 captures, 4 probe firings" tty.out
then
	ok "-f none on the terminal: the line, cleared before the totals"
else
	not_ok "-f none on the terminal" "$(od -c tty.out | head -n 6)"
fi

# --- a message while the line is drawn starts on a clean line
on_tty "DTCONSUME_PROGRESS_AFTER=0 '$DTCONSUME' sel.dtsnap >out.txt"
if grep -q "$ESC\[K${CR}$ESC\[Kdtrace: error on enabled probe ID 4 " tty.out
then
	ok "the line is cleared before a message"
else
	not_ok "the line is cleared before a message" "$(od -c tty.out | head -n 8)"
fi

# --- redrawn as the decode goes, the 2-second rule: the capture arrives
# through a pipe, its second half 3 seconds after its first (then there
# is no size, so no percentage and no time left)
size=$(wc -c <sel.dtsnap)
half=$((size / 2))
slow="(head -c $half sel.dtsnap; sleep 3; tail -c +$((half + 1)) sel.dtsnap)"
on_tty "$slow | DTCONSUME_PROGRESS_AFTER=0 '$DTCONSUME' - >out.txt"
n=$(tr "$CR" '\n' <tty.out | grep -c '^dtconsume: <stdin>: [0-9.]* [KM]*i*B, [0-9.]*[kMG]* records/s')
if [ "$n" -ge 3 ] && ! grep -q " of " tty.out; then
	ok "redrawn while the decode waits ($n lines), no size from a pipe"
else
	not_ok "redrawn while the decode waits" "$n lines" "$(od -c tty.out | head -n 6)"
fi
# default: nothing while the decode has run under 2 seconds (here 1 s:
# the line would be redrawn 4 times), the line once it runs 2 seconds
on_tty "(head -c $half sel.dtsnap; sleep 1; tail -c +$((half + 1)) sel.dtsnap) | '$DTCONSUME' - >out.txt"
grep -q "records/s" tty.out && not_ok "no line for a decode of 1 s" ||
    ok "no line for a decode under 2 s"
on_tty "$slow | '$DTCONSUME' - >out.txt"
n=$(tr "$CR" '\n' <tty.out | grep -c '^dtconsume: <stdin>: .* records/s')
[ "$n" -ge 1 ] && ok "the line after 2 s ($n lines)" ||
    not_ok "the line after 2 s" "$(od -c tty.out | head -n 6)"
finish
