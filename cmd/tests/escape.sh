#!/bin/sh
# Capture text in the programs' own messages (cmd/cli.c): dtconsume,
# dt2json and dtsnap quote option and probe names, item kinds, system()
# commands and file names, and a hostile capture must not reach the
# terminal through them.  On standard error every control byte but the
# newline that ends a line, DEL, every UTF-8 C1 control and every byte
# that is not well-formed UTF-8 is "\xNN"; well-formed UTF-8 stays; a
# message stays one line.  Standard output keeps the bytes dtrace(1)
# prints as they are.  The captures are testdata/bad/esc-* (gen_esc.py
# says what each holds; bad.sh checks their exact output), and a few
# made here with dtsnap synth.
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"
DT2JSON="$top_builddir/cmd/dt2json"
if [ ! -x "$DTCONSUME" ] || [ ! -x "$DT2JSON" ]; then
	echo "# no $DTCONSUME or $DT2JSON: build them first"
	exit 77
fi
bad="$top_srcdir/testdata/bad"
if [ ! -f "$bad/esc-system/input.dtsnap" ]; then
	echo "# no $bad/esc-*: testdata/bad/gen_esc.py makes them"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-escape.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
ESC=$(printf '\033')
BEL=$(printf '\007')
# the escaped forms, as the messages must show them
CLEAR='\x1b[2J'
TITLE='\x1b]0;owned\x07'
EACUTE=$(printf '\303\251')

# hex FILE: its bytes as " xx xx ...", one line
hex() {
	od -An -v -tx1 "$1" | tr -s ' \n' '  '
}

# unsafe FILE: what in FILE a terminal could obey or that is not UTF-8:
# C0 controls but the newline, DEL, C1 controls in their UTF-8 form, and
# (when iconv can tell) bytes that are not well-formed UTF-8.  Prints
# nothing when FILE is safe.
unsafe() {
	h=$(hex "$1")
	echo "$h" | tr ' ' '\n' | grep -E '^(0[0-9a-f]|1[0-9a-f]|7f)$' |
	    grep -v '^0a$' | sort -u | sed 's/^/control byte /'
	echo "$h" | grep -Eo 'c2 [89][0-9a-f]' | sort -u | sed 's/^/C1 /'
	if command -v iconv >/dev/null 2>&1 &&
	    ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; then
		echo "not UTF-8"
	fi
}

# check NAME FILE LINES NEEDLE...: FILE (a standard error) is safe, has
# LINES lines, and holds every NEEDLE as it is (grep -F)
check() {
	c_name=$1 c_file=$2 c_lines=$3
	shift 3
	c_why=$(unsafe "$c_file")
	c_n=$(wc -l <"$c_file" | tr -d ' ')
	[ "$c_n" = "$c_lines" ] || c_why="$c_why; $c_n lines, want $c_lines"
	for c_needle in "$@"; do
		grep -qF -- "$c_needle" "$c_file" ||
		    c_why="$c_why; no '$c_needle'"
	done
	if [ -z "$c_why" ]; then
		ok "$c_name"
	else
		not_ok "$c_name" "$c_why" "$(od -c "$c_file" | head -n 8)"
	fi
}

# --- capture text, through cli.c (cli_report) --------------------------
OPTNAME="$CLEAR$TITLE"'a\x0db\x0ac'"$EACUTE"'\x09'
KIND="$TITLE"'\x0aforged line\xc2\x9b\x9b\xff'"$EACUTE"'\xe2\x82'
cap="$bad/esc-option-name/input.dtsnap"
"$DTCONSUME" "$cap" >/dev/null 2>"$work/err"
check "dtconsume: an option name with ESC, BEL, CR, LF, TAB; a DEL value" \
    "$work/err" 1 "couldn't set option \"$OPTNAME\" to \"\\x7f\""
"$DT2JSON" "$cap" >/dev/null 2>"$work/err"
check "dt2json: the same option name" "$work/err" 1 \
    "dt2json: $cap: " "\"$OPTNAME\""

cap="$bad/esc-first-kind/input.dtsnap"
for prog in "$DTCONSUME" "$DT2JSON" "$DTSNAP info" "$DTSNAP validate"; do
	p=${prog##*/}
	$prog "$cap" >/dev/null 2>"$work/err"
	# a malformed header stops every program at once: its one line
	check "$p: an item kind with a title, LF, C1, bad bytes, a cut char" \
	    "$work/err" 1 "of kind '$KIND', not the dtsnap header"
done

# --- the emitters' error stream (cli_progress_stream) -------------------
cap="$bad/esc-system/input.dtsnap"
"$DTCONSUME" "$cap" >"$work/out" 2>"$work/err"
check "dtconsume: a system() command with ESC, a title, CR" "$work/err" 1 \
    "system() not executed: $CLEAR$TITLE"'rm -rf ~\x0dcaf'"$EACUTE"
# printf("%s|\n") of ESC[31m red ESC[0m: dtrace prints it as it is
if hex "$work/out" | grep -q ' 1b 5b 33 31 6d 72 65 64 1b 5b 30 6d 7c 0a '
then
	ok "dtconsume: printf output keeps its ESC bytes on stdout"
else
	not_ok "dtconsume: printf output keeps its ESC bytes on stdout" \
	    "$(od -c "$work/out" | head -n 4)"
fi
"$DT2JSON" -f text "$cap" >/dev/null 2>"$work/err"
check "dt2json -f text: the same system() command" "$work/err" 1 \
    "dtconsume: system() not executed: $CLEAR"

cap="$bad/esc-probe-name/input.dtsnap"
PROBE='syscall::open\x1b[2J:en\x07try\x0d'
"$DTCONSUME" "$cap" >/dev/null 2>"$work/err"
check "dtconsume: dtrace's error line names a probe with ESC, BEL, CR" \
    "$work/err" 1 "dtrace: error on enabled probe ID 5 (ID 5: $PROBE): "
"$DT2JSON" -f json-freebsd "$cap" >/dev/null 2>"$work/err"
check "dt2json -f json-freebsd: the same error line" "$work/err" 1 \
    "(ID 5: $PROBE)"

# A C1 control in its UTF-8 form (U+009B, a CSI to xterm), and commands
# of 12000 bytes of 3-byte characters: the stream reaches the escaping in
# pieces (its buffer is smaller), and a character a piece cuts in two
# must come out whole.  The three commands start at three offsets, so a
# cut falls inside a character in at least two of them.
euros=$(awk 'BEGIN { for (i = 0; i < 4000; i++) printf "\\u20ac" }')
cat >"$work/sys.json" <<EOF
{ "header": { "ncpu": 1 }, "options": { "quiet": 1 },
  "probes": [ { "id": 1, "provider": "dtrace", "name": "BEGIN" } ],
  "eprobes": [ { "epid": 1, "probe": 1, "recs": [
    { "system": "csi\\u009b2J" }, { "system": "$euros" },
    { "system": "a$euros" }, { "system": "aa$euros" }, { "exit": true } ] } ],
  "passes": [ { "status": { "exiting": 1 }, "bufs": [ { "cpu": 0,
    "records": [ { "epid": 1, "data": [null, null, null, null, 0] } ] } ] } ],
  "end": { "exit_status": 0 } }
EOF
"$DTSNAP" synth "$work/sys.json" -o "$work/sys.dtsnap" || exit 99
"$DTCONSUME" "$work/sys.dtsnap" >/dev/null 2>"$work/err"
check "dtconsume: a system() command with U+009B" "$work/err" 4 \
    'system() not executed: csi\xc2\x9b2J'
# the C1 line: "dtconsume: system() not executed: " (34 bytes), "csi",
# "\xc2\x9b", "2J" and a newline (48); then 3 lines of the 34 bytes, 0, 1
# and 2 a's, 12000 bytes of euro signs and a newline
n=$(wc -c <"$work/err" | tr -d ' ')
if [ "$n" = $((48 + 3 * (34 + 12000 + 1) + 3)) ] &&
    [ "$(grep -c '\\x' "$work/err")" = 1 ]; then
	ok "dtconsume: long commands keep their characters whole"
else
	not_ok "dtconsume: long commands keep their characters whole" \
	    "$n bytes" "$(grep -o '.\{20\}\\x.\{20\}' "$work/err" | head -n 3)"
fi

# --- command-line text -------------------------------------------------
nofile="$work/no${ESC}[2Jsuch"
"$DTCONSUME" "$nofile" >/dev/null 2>"$work/err"
check "dtconsume: a file name with ESC" "$work/err" 1 \
    "dtconsume: $work/no$CLEAR""such: cannot open"
"$DTCONSUME" -x "zz${ESC}[2J=$BEL" "$bad/esc-system/input.dtsnap" \
    >/dev/null 2>"$work/err"
check "dtconsume: a -x option name and value with ESC, BEL" "$work/err" 2 \
    "couldn't set option \"zz$CLEAR\" to \"\\x07\""
"$DTSNAP" "${ESC}]0;t$BEL" >/dev/null 2>"$work/err"
check "dtsnap: an unknown command with a title sequence" "$work/err" 2 \
    "dtsnap: unknown command '"'\x1b]0;t\x07'"'"
"$DTSNAP" info "$nofile" >/dev/null 2>"$work/err"
check "dtsnap info: a file name with ESC" "$work/err" 1 \
    "dtsnap: $work/no$CLEAR""such: cannot open"

# --- dtsnap dump: keys, kinds and values of hostile items on stdout ----
for c in esc-option-name esc-system esc-probe-name; do
	"$DTSNAP" dump "$bad/$c/input.dtsnap" >"$work/out" 2>/dev/null
	why=$(unsafe "$work/out")
	if [ -z "$why" ] && [ -s "$work/out" ]; then
		ok "dtsnap dump $c: nothing a terminal would obey"
	else
		not_ok "dtsnap dump $c: nothing a terminal would obey" "$why"
	fi
done
"$DTSNAP" dump "$bad/esc-option-name/input.dtsnap" 2>/dev/null |
    grep -qF "options={quiet=\"set\", $OPTNAME=\"\\x7f\"}" &&
    ok "dtsnap dump: an option name's control bytes as \\xNN" ||
    not_ok "dtsnap dump: an option name's control bytes as \\xNN"

# --- on a terminal, with the progress line ----------------------------
if command -v script >/dev/null 2>&1 && script -qec true /dev/null \
    >/dev/null 2>&1; then
	cp "$bad/esc-probe-name/input.dtsnap" "$work/a${ESC}[2Jb.dtsnap"
	# the name through the environment: no quoting of ESC in -c
	CAPNAME="$work/a${ESC}[2Jb.dtsnap" DTCONSUME_PROGRESS_AFTER=0 \
	    script -qec "'$DTCONSUME' \"\$CAPNAME\" >/dev/null" /dev/null \
	    >"$work/tty" 2>&1
	if grep -qF 'a\x1b[2Jb.dtsnap: ' "$work/tty" &&
	    grep -qF "(ID 5: $PROBE)" "$work/tty" &&
	    ! grep -qF "${ESC}[2J" "$work/tty"; then
		ok "progress line and error line on a terminal: escaped"
	else
		not_ok "progress line and error line on a terminal: escaped" \
		    "$(od -c "$work/tty" | head -n 12)"
	fi
else
	echo "# script(1) not available: the progress line is not tried"
fi

finish
