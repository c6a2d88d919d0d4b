#!/bin/sh
# -o never destroys what it should not (dtconsume(1), -o): an output that
# is an input is refused before anything is touched (exit 2); the output
# goes to a temporary file renamed over FILE only when a capture was read
# and every write succeeded, so a failed run leaves the previous FILE; a
# damaged capture's partial output still replaces it (exit 1); write
# errors name the file (exit 1); CBOR is not written to a terminal.
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
DT2JSON="$(cd "$top_builddir" && pwd)/cmd/dt2json"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-out.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
umask 022
"$DTSNAP" synth "$top_srcdir/testdata/folded/kernel.json" \
    -o "$work/cap.dtsnap" || exit 99
cp "$work/cap.dtsnap" "$work/orig.dtsnap"
cd "$work" || exit 99
"$DTCONSUME" cap.dtsnap >want.txt 2>/dev/null || exit 99

# check NAME RC STDERR-LINES...: the last run's exit status and its whole
# standard error (err), line by line
check() {
	name=$1 want_rc=$2
	shift 2
	: >want.err
	for l in "$@"; do
		printf '%s\n' "$l" >>want.err
	done
	if [ "$rc" = "$want_rc" ] && cmp -s want.err err; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want $want_rc)" "$(cat err)"
	fi
}
# intact NAME FILE CONTENT-FILE: FILE still holds what CONTENT-FILE holds
intact() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$2 changed"; fi
}
# no_temp NAME: no .NAME.XXXXXX left behind in this directory
no_temp() {
	left=$(ls -A | grep '^\.' | head -n 1)
	if [ -z "$left" ]; then ok "$1"; else not_ok "$1" "left $left"; fi
}

# --- an output that is an input: refused, nothing touched
"$DTCONSUME" -o cap.dtsnap cap.dtsnap >out 2>err; rc=$?
check "-o the input: refused" 2 \
    "dtconsume: cannot write cap.dtsnap: it is the input file cap.dtsnap"
intact "-o the input: capture intact" cap.dtsnap orig.dtsnap
ln cap.dtsnap hardlink.txt
"$DTCONSUME" -o hardlink.txt orig.dtsnap cap.dtsnap >out 2>err; rc=$?
check "-o a hard link of an input: names both" 2 \
    "dtconsume: cannot write hardlink.txt: it is the input file cap.dtsnap"
ln -s cap.dtsnap symlink.txt
"$DTCONSUME" -o symlink.txt cap.dtsnap >out 2>err; rc=$?
check "-o a symbolic link to an input" 2 \
    "dtconsume: cannot write symlink.txt: it is the input file cap.dtsnap"
"$DTCONSUME" -o cap.dtsnap - <cap.dtsnap >out 2>err; rc=$?
check "-o the file on standard input" 2 \
    "dtconsume: cannot write cap.dtsnap: it is the input file standard input"
"$DT2JSON" cap.dtsnap >>cap.dtsnap 2>err; rc=$?
check "standard output appended to the input" 2 \
    "dt2json: cannot write standard output: it is the input file cap.dtsnap"
intact "inputs intact after all that" cap.dtsnap orig.dtsnap
rm -f hardlink.txt symlink.txt
no_temp "no temporary file left (refusals)"

# --- a run that succeeds replaces FILE, keeping its mode
echo old >out.txt
chmod 640 out.txt
"$DTCONSUME" -o out.txt cap.dtsnap 2>err; rc=$?
check "-o FILE: a clean run" 0
intact "-o FILE: replaced by the output" out.txt want.txt
mode=$(stat -c %a out.txt)
[ "$mode" = 640 ] && ok "-o FILE: mode kept" || not_ok "mode kept" "$mode"
"$DTCONSUME" -o new.txt cap.dtsnap 2>err; rc=$?
mode=$(stat -c %a new.txt)
[ "$mode" = 644 ] && ok "-o new file: 0666 less the umask" ||
    not_ok "new file mode" "$mode"
echo old >target.txt
ln -s target.txt link.txt
"$DTCONSUME" -o link.txt cap.dtsnap 2>err; rc=$?
if [ $rc = 1 ] && [ -L link.txt ] && [ "$(cat target.txt)" = old ]; then
	ok "-o a symbolic link: refused, its target untouched"
else
	not_ok "-o a symbolic link" "exit $rc" "$(cat err)"
fi
rm -f link.txt
no_temp "no temporary file left (clean runs)"

# --- runs that fail leave FILE as it was
echo old >keep.txt
cp keep.txt keep.orig
"$DTCONSUME" -o keep.txt missing.dtsnap >out 2>err; rc=$?
check "no capture read: exit 1, FILE not written" 1 \
    "dtconsume: missing.dtsnap: cannot open: No such file or directory" \
    "dtconsume: keep.txt not written: no capture could be read"
intact "no capture read: FILE intact" keep.txt keep.orig
"$DTCONSUME" -x nosuchoption -o keep.txt cap.dtsnap >out 2>err; rc=$?
check "bad option: exit 2" 2 \
    "dtconsume: couldn't set option \"nosuchoption\" to \"\": Invalid option name" \
    "Try 'dtconsume --help' for more information."
intact "bad option: FILE intact" keep.txt keep.orig
# a write error on the temporary file: a file size limit (SIGXFSZ
# ignored, so that write(2) fails with EFBIG)
(trap '' XFSZ; ulimit -f 4; "$DTCONSUME" -o keep.txt cap.dtsnap cap.dtsnap \
    cap.dtsnap cap.dtsnap >out 2>err); rc=$?
check "write error: exit 1, the file named" 1 \
    "dtconsume: error writing keep.txt: File too large"
intact "write error: FILE intact" keep.txt keep.orig
no_temp "no temporary file left (failures)"

# --- a damaged capture: exit 1, its partial output still replaces FILE
head -c 2000 cap.dtsnap >cut.dtsnap
"$DTCONSUME" cut.dtsnap >cut.want 2>/dev/null
"$DTCONSUME" -o keep.txt cut.dtsnap >out 2>err; rc=$?
if [ $rc -eq 1 ] && [ -s err ] && cmp -s keep.txt cut.want; then
	ok "damaged capture: exit 1, partial output kept"
else
	not_ok "damaged capture" "exit $rc" "$(cat err)"
fi

# --- outputs that cannot be written: exit 1 naming them, not the help
if [ -w /dev/full ]; then
	"$DTCONSUME" -o /dev/full cap.dtsnap >out 2>err; rc=$?
	check "-o /dev/full" 1 \
	    "dtconsume: error writing /dev/full: No space left on device"
	"$DTCONSUME" cap.dtsnap >/dev/full 2>err; rc=$?
	check "standard output on /dev/full" 1 \
	    "dtconsume: error writing standard output: No space left on device"
fi
mkdir dir
"$DTCONSUME" -o dir cap.dtsnap >out 2>err; rc=$?
check "-o a directory" 1 "dtconsume: cannot write dir: Is a directory"
"$DTCONSUME" -o nodir/out.txt cap.dtsnap >out 2>err; rc=$?
check "-o in a missing directory" 1 \
    "dtconsume: cannot write nodir/out.txt: No such file or directory"
"$DTCONSUME" -o /dev/null cap.dtsnap >out 2>err; rc=$?
check "-o /dev/null: written in place" 0

# --- CBOR and terminals (script(1) gives the command a terminal)
if command -v script >/dev/null 2>&1 && script -qec true /dev/null \
    >/dev/null 2>&1; then
	script -qec "'$DTCONSUME' -f cbor cap.dtsnap" /dev/null >tty.out 2>&1
	rc=$?
	tr -d '\r' <tty.out >err
	check "CBOR to a terminal: refused" 2 \
	    "dtconsume: not writing CBOR to a terminal: use -o FILE or redirect standard output"
	script -qec "'$DT2JSON' -f cbor cap.dtsnap" /dev/null >tty.out 2>&1
	rc=$?
	tr -d '\r' <tty.out >err
	check "dt2json -f cbor to a terminal: refused" 2 \
	    "dt2json: not writing CBOR to a terminal: use -o FILE or redirect standard output"
	script -qec "'$DTCONSUME' -f cbor -o x.cbor cap.dtsnap" /dev/null \
	    >tty.out 2>&1
	rc=$?
	"$DTCONSUME" -f cbor cap.dtsnap >y.cbor 2>/dev/null
	if [ $rc -eq 0 ] && [ -s x.cbor ] && cmp -s x.cbor y.cbor; then
		ok "CBOR with -o from a terminal: written"
	else
		not_ok "CBOR with -o from a terminal" "exit $rc"
	fi
else
	echo "# script(1) not available: terminal checks not run"
fi
finish
