#!/bin/sh
# The message cap (-x maxmsgsize, libdtconsume/decode/printf_render.c): what
# testdata/bad/cap-* cannot store, their megabytes of output, and what
# must be the same in every output format.
#  - every format (text, json, cbor, json-freebsd) of a cap-* case exits
#    with the same status, 1, and says the same on stderr (the case's
#    stderr file: one line per cut statement, naming the file and cpu);
#  - the text is a prefix of dtrace's, byte for byte: the first 4194304
#    bytes of each long message, then the rest of the output whole
#    (expected outputs made here with printf(1), which pads as libc does);
#    JSON/CBOR give the same message with "truncated": true, json-freebsd
#    the same message in a valid document;
#  - -x maxmsgsize=0 and a larger cap print the messages whole, silently,
#    exit 0; a smaller one cuts there;
#  - 3,000 conversions of a million columns stay within the cap in
#    memory (each format's maximum RSS, under a 1.5 GB address-space
#    limit that the 3 GB message of old cannot pass);
#  - a record that cannot be rendered, and a message that runs out of
#    memory without a cap, stop every format with dtrace's "processing
#    aborted" and status 1 (text exited 1 where JSON wrote null and 0).
#  - print() text (both printers) and symbol text (sym(), stack() frames:
#    names from the capture, of any length) are messages under the same
#    cap, with the same located notice: cut to the cap's first bytes of
#    what the uncut run prints, status 1, the rest of the output kept;
#    -x maxmsgsize=0 prints them whole.
# Needs jq and python3-cbor2 for the JSON and CBOR checks.
. "$(dirname "$0")/lib.sh"
DTCONSUME="$top_builddir/cmd/dtconsume"
BAD="$top_srcdir/testdata/bad"
: "${JQ:=jq}" "${PYTHON3:=/usr/bin/python3}"
[ -x "$DTCONSUME" ] || { echo "SKIP: no $DTCONSUME"; exit 77; }
need_dtsnap
command -v "$JQ" >/dev/null 2>&1 || { echo "SKIP: jq not found"; exit 77; }
"$PYTHON3" -c 'import cbor2' 2>/dev/null ||
    { echo "SKIP: python3-cbor2 not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-caps.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export TZ=UTC
unset _DTRACE_TESTING
CAP=4194304
FORMATS="text json cbor json-freebsd"
# a --enable-sanitizers build reserves terabytes of address space: no
# ulimit -v there, and no RSS worth comparing
san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)

# run CASE FORMAT [OPTION...]: dtconsume on testdata/bad/CASE in its own
# directory (messages name "input.dtsnap"); $work/CASE.FORMAT.{out,err,rc}
run() {
	c=$1 f=$2
	shift 2
	mkdir -p "$work/$c"
	cp "$BAD/$c/input.dtsnap" "$work/$c/"
	(cd "$work/$c" && "$DTCONSUME" -f "$f" "$@" input.dtsnap \
	    >"$work/$c.$f.out" 2>"$work/$c.$f.err")
	echo $? >"$work/$c.$f.rc"
}

# same NAME A B: files A and B are equal
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(cmp "$2" "$3" 2>&1)" \
		    "$(wc -c <"$2") and $(wc -c <"$3") bytes"
	fi
}

# ---------------------------------------------------------------- cases
for c in cap-printf-wide cap-printf-dynwidth cap-printa-rows \
    cap-option-in-capture; do
	rcs=""
	for f in $FORMATS; do
		run "$c" "$f"
		rcs="$rcs $(cat "$work/$c.$f.rc")"
		same "$c -f $f: the case's stderr" "$BAD/$c/stderr" \
		    "$work/$c.$f.err"
	done
	if [ "$rcs" = " 1 1 1 1" ]; then
		ok "$c: exit status 1 in every format"
	else
		not_ok "$c: exit status 1 in every format" \
		    "text json cbor json-freebsd:$rcs"
	fi
	"$PYTHON3" "$top_srcdir/cmd/tests/cbor_vs_json.py" \
	    "$work/$c.cbor.out" "$work/$c.json.out" >"$work/cmp.out" 2>&1 &&
	    ok "$c: CBOR is the JSON" ||
	    not_ok "$c: CBOR is the JSON" "$(head -n 3 "$work/cmp.out")"
	if "$JQ" -e '.dtrace.probes | type == "array"' \
	    <"$work/$c.json-freebsd.out" >/dev/null 2>&1; then
		ok "$c: json-freebsd is one JSON document"
	else
		not_ok "$c: json-freebsd is one JSON document"
	fi
done

# ---------------------------------------------- the text, byte for byte
# cap-printf-wide: BEGIN's "begin", three firings of five %1000000d
# (values 1..5; the first 4194304 bytes are four conversions and 194304
# blanks of the fifth) each followed by "after N", END's "end", and the
# newline of the end of the run
{
	printf 'begin\n'
	for i in 1 2 3; do
		printf '%1000000d%1000000d%1000000d%1000000d%194304s' \
		    1 2 3 4 ''
		printf 'after %d\n' "$i"
	done
	printf 'end\n\n'
} >"$work/want"
same "cap-printf-wide: text is dtrace's up to each cut" "$work/want" \
    "$work/cap-printf-wide.text.out"
# whole with no cap, and with a cap above the message; silent, status 0
{
	printf 'begin\n'
	for i in 1 2 3; do
		printf '%1000000d%1000000d%1000000d%1000000d%1000000d\n' \
		    1 2 3 4 5
		printf 'after %d\n' "$i"
	done
	printf 'end\n\n'
} >"$work/want.whole"
for x in maxmsgsize=0 maxmsgsize=8m maxmsgsize=5000001; do
	run cap-printf-wide text -x "$x"
	same "cap-printf-wide -x $x: the messages whole" "$work/want.whole" \
	    "$work/cap-printf-wide.text.out"
	if [ "$(cat "$work/cap-printf-wide.text.rc")" = 0 ] &&
	    [ ! -s "$work/cap-printf-wide.text.err" ]; then
		ok "cap-printf-wide -x $x: status 0, nothing said"
	else
		not_ok "cap-printf-wide -x $x: status 0, nothing said" \
		    "status $(cat "$work/cap-printf-wide.text.rc")" \
		    "$(head -n 2 "$work/cap-printf-wide.text.err")"
	fi
done
# one byte short of the message: cut
run cap-printf-wide text -x maxmsgsize=5000000
{
	printf 'begin\n'
	for i in 1 2 3; do
		printf '%1000000d%1000000d%1000000d%1000000d%1000000d' \
		    1 2 3 4 5
		printf 'after %d\n' "$i"
	done
	printf 'end\n\n'
} >"$work/want"
same "cap-printf-wide -x maxmsgsize=5000000: only the newline cut" \
    "$work/want" "$work/cap-printf-wide.text.out"
grep -q "cut at 5000000 bytes" "$work/cap-printf-wide.text.err" &&
    ok "cap-printf-wide -x maxmsgsize=5000000: said" ||
    not_ok "cap-printf-wide -x maxmsgsize=5000000: said"
# a small cap, in dtrace's size syntax
run cap-printf-wide text -x maxmsgsize=1k
{
	printf 'begin\n'
	for i in 1 2 3; do
		printf '%1024s' ''
		printf 'after %d\n' "$i"
	done
	printf 'end\n\n'
} >"$work/want"
same "cap-printf-wide -x maxmsgsize=1k: cut at 1024" "$work/want" \
    "$work/cap-printf-wide.text.out"

# cap-printf-dynwidth: INT_MAX blanks cut, "    8|", then "9" left
# justified in INT_MAX columns, cut
{
	printf '%4194304s' ''
	printf '    8|\n'
	printf '%-4194304d' 9
	printf '\n'
} >"$work/want"
same "cap-printf-dynwidth: widths from the records" "$work/want" \
    "$work/cap-printf-dynwidth.text.out"
# cap-printa-rows: two rows (counts 1 then 2), each cut in its blanks
{
	printf '%4194304s%4194304s\n' '' ''
} >"$work/want"
same "cap-printa-rows: each row cut" "$work/want" \
    "$work/cap-printa-rows.text.out"
run cap-printa-rows text -x maxmsgsize=0
{
	printf '%5000000d 1\n%5000000d 2\n\n' 2 1
} >"$work/want"
same "cap-printa-rows -x maxmsgsize=0: the rows whole" "$work/want" \
    "$work/cap-printa-rows.text.out"

# ------------------------------------------- JSON, CBOR, json-freebsd
# the message is the text's, cut where it is, marked; the other printf
# of the record set is whole and unmarked
j="$work/cap-printf-wide.json.out"
if "$JQ" -e -s --argjson cap "$CAP" '
    [.[] | select(.type == "probe" and .epid == 2)] |
    length == 3 and all(.[]; .records[0] |
        (.message | length) == $cap and .truncated == true and
        (.message | startswith("      ")) and
        (.message | .[3999999:4000001]) == "4 ") and
    all(.[]; .records[1] | (.message | startswith("after ")) and
        (has("truncated") | not))' "$j" >/dev/null; then
	ok "cap-printf-wide -f json: message cut, truncated: true"
else
	not_ok "cap-printf-wide -f json: message cut, truncated: true"
fi
"$JQ" -e -s '[.[] | select(.type == "end")] | length == 1' "$j" \
    >/dev/null && ok "cap-printf-wide -f json: decoding went on to the end" ||
    not_ok "cap-printf-wide -f json: decoding went on to the end"
if "$JQ" -e --argjson cap "$CAP" '[.dtrace.probes[] |
    select(.name == "tick-1ms") | .output[0].message | length] ==
    [$cap, $cap, $cap]' "$work/cap-printf-wide.json-freebsd.out" \
    >/dev/null; then
	ok "cap-printf-wide -f json-freebsd: message cut"
else
	not_ok "cap-printf-wide -f json-freebsd: message cut"
fi
if "$JQ" -e -s --argjson cap "$CAP" '[.[] | select(.type ==
    "aggregation") | .rows[] | (.message | length == $cap) and .truncated]
    == [true, true]' "$work/cap-printa-rows.json.out" >/dev/null; then
	ok "cap-printa-rows -f json: each row cut, truncated: true"
else
	not_ok "cap-printa-rows -f json: each row cut, truncated: true"
fi
run cap-printf-wide json -x maxmsgsize=0
if "$JQ" -e -s '[.[] | select(.type == "probe" and .epid == 2) |
    .records[0] | (.message | length == 5000001) and
    (has("truncated") | not)] == [true, true, true]' \
    "$work/cap-printf-wide.json.out" >/dev/null; then
	ok "cap-printf-wide -f json -x maxmsgsize=0: the messages whole"
else
	not_ok "cap-printf-wide -f json -x maxmsgsize=0: the messages whole"
fi

# ---------------------------------------------------- memory and time
# 3,000 conversions of a million columns: a 3 GB message of old
fmt=$(awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%%1000000d" }')
args=$(awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%s4", i ? "," : "" }')
data=$(awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%s%d", i ? "," : "", i }')
cat >"$work/many.json" <<EOF
{ "header": { "os": "freebsd", "ncpu": 1 }, "options": { "quiet": 1 },
  "probes": [ { "id": 1, "provider": "profile", "name": "tick-1ms" } ],
  "eprobes": [ { "epid": 1, "probe": 1,
                 "recs": [ { "printf": "$fmt\\n", "args": [ $args ] } ] } ],
  "passes": [ { "bufs": [ { "cpu": 0, "records": [
      { "epid": 1, "data": [ [ $data ] ] },
      { "epid": 1, "data": [ [ $data ] ] } ] } ] } ],
  "end": { "exit_status": 0 } }
EOF
"$DTSNAP" synth "$work/many.json" -o "$work/many.dtsnap" ||
    not_ok "many.dtsnap: synth"
if [ -n "$san" ]; then
	echo "# SKIP memory checks: a sanitizer build"
else
	have_time=0
	[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 &&
	    have_time=1
	for f in $FORMATS; do
		(
			ulimit -v 1500000
			if [ $have_time = 1 ]; then
				/usr/bin/time -o "$work/rss" -f %M \
				    "$DTCONSUME" -f "$f" "$work/many.dtsnap"
			else
				"$DTCONSUME" -f "$f" "$work/many.dtsnap"
			fi
		) >"$work/many.out" 2>"$work/many.err"
		n=$(grep -c "printf() message cut at $CAP bytes" "$work/many.err")
		if [ "$n" = 1 ] && ! grep -q "aborted" "$work/many.err"; then
			ok "many -f $f: cut at the cap, said once"
		else
			not_ok "many -f $f: cut at the cap, said once" \
			    "$(head -n 3 "$work/many.err")"
		fi
		if [ $have_time = 1 ]; then
			rss=$(tail -n 1 "$work/rss")
			# the cap's 4 MiB (8 MiB of buffer), an encoded line,
			# the program: far from the 3 GB of old
			if [ "$rss" -lt 65536 ]; then
				ok "many -f $f: max RSS ${rss} KB"
			else
				not_ok "many -f $f: max RSS ${rss} KB"
			fi
		fi
	done
	[ "$(wc -c <"$work/many.out")" -lt 9000000 ] &&
	    ok "many: the output is the cap's" ||
	    not_ok "many: the output is the cap's" \
	    "$(wc -c <"$work/many.out") bytes"

	# without a cap, memory runs out: every format stops the same way
	for f in $FORMATS; do
		(
			ulimit -v 1000000
			"$DTCONSUME" -x maxmsgsize=0 -f "$f" "$work/many.dtsnap"
		) >/dev/null 2>"$work/oom.$f.err"
		echo $? >"$work/oom.$f.rc"
	done
	for f in $FORMATS; do
		if [ "$(cat "$work/oom.$f.rc")" = 1 ] && grep -qx \
		    "dtrace: processing aborted: out of memory" \
		    "$work/oom.$f.err"; then
			ok "no cap, out of memory, -f $f: processing aborted, 1"
		else
			not_ok "no cap, out of memory, -f $f: processing" \
			    "aborted, 1" "status $(cat "$work/oom.$f.rc")" \
			    "$(head -n 2 "$work/oom.$f.err")"
		fi
	done
fi

# ------------------------------------------------------ print() values
# 16,000 one-byte structs whose member has a 4,000-byte name: 20 KB of
# capture, 64 MB of JSON value and of text; the value stops at the cap,
# marked, the text (a message, as printf's) is cut at it, and one notice
# says so for the statement
name=$(awk 'BEGIN { for (i = 0; i < 4000; i++) printf "m" }')
hex=$(awk 'BEGIN { for (i = 0; i < 16000; i++) printf "01" }')
cat >"$work/ctf.desc" <<EOF
{ "header": { "os": "freebsd", "ncpu": 1 }, "options": { "quiet": 1 },
  "ctf": [ { "module": "kernel", "types": [
    { "id": 1, "kind": "int", "name": "char", "size": 1, "signed": true,
      "char": true },
    { "id": 2, "kind": "struct", "name": "s", "size": 1,
      "members": [ { "name": "$name", "type": 1, "offset": 0 } ] },
    { "id": 3, "kind": "array", "type": 2, "nelems": 16000 } ] } ],
  "probes": [ { "id": 1, "provider": "dtrace", "name": "BEGIN" } ],
  "eprobes": [ { "epid": 1, "probe": 1, "recs": [ { "print": "kernel\`3" } ] } ],
  "passes": [ { "bufs": [ { "cpu": 0, "records": [
      { "epid": 1, "data": [ { "hex": "$hex" } ] } ] } ] } ],
  "end": { "exit_status": 0 } }
EOF
if ! "$DTSNAP" synth "$work/ctf.desc" -o "$work/ctf.dtsnap" 2>"$work/ctf.err"
then
	echo "# SKIP print() values: $(head -n 1 "$work/ctf.err")"
else
	for f in json cbor; do
		"$DTCONSUME" -f "$f" "$work/ctf.dtsnap" >"$work/ctf.$f" \
		    2>"$work/ctf.$f.err"
		n=$(wc -c <"$work/ctf.$f")
		if [ "$n" -lt "$((2 * CAP + 65536))" ] && [ "$(wc -l <"$work/ctf.$f.err")" = 1 ] && grep -q "print() message cut at $CAP bytes (maxmsgsize) in a record of enabled probe 1" "$work/ctf.$f.err"; then
			ok "print() -f $f: the value cut near the cap ($n bytes), said"
		else
			not_ok "print() -f $f: the value cut near the cap" \
			    "$n bytes" "$(head -n 1 "$work/ctf.$f.err")"
		fi
	done
	if "$JQ" -e -s '[.[] | select(.type == "probe")][0].records[0] |
	    .truncated == true and (.value | length) > 900 and
	    (.value | length) < 16000 and (.text | length) == '"$CAP" \
	    "$work/ctf.json" >/dev/null 2>&1; then
		ok "print() -f json: part of the array, truncated: true; the text cut at the cap"
	else
		not_ok "print() -f json: part of the array, truncated: true; the text cut at the cap"
	fi
	"$PYTHON3" "$top_srcdir/cmd/tests/cbor_vs_json.py" "$work/ctf.cbor" \
	    "$work/ctf.json" >/dev/null 2>&1 && ok "print(): CBOR is the JSON" ||
	    not_ok "print(): CBOR is the JSON"
	"$DTCONSUME" -f json -x maxmsgsize=0 "$work/ctf.dtsnap" \
	    >"$work/ctf.whole" 2>"$work/ctf.whole.err"
	if "$JQ" -e -s '[.[] | select(.type == "probe")][0].records[0] |
	    (has("truncated") | not) and (.value | length) == 16000' \
	    "$work/ctf.whole" >/dev/null 2>&1 && [ ! -s "$work/ctf.whole.err" ]
	then
		ok "print() -f json -x maxmsgsize=0: the value whole"
	else
		not_ok "print() -f json -x maxmsgsize=0: the value whole"
	fi
fi

# ------------------------------------------ a record that cannot print
# printf("%d") of a 3-byte record: dtrace's "processing aborted" in
# every format, status 1; what came before is written
cat >"$work/mm.json" <<'EOF'
{ "header": { "os": "freebsd", "ncpu": 1 }, "options": { "quiet": 1 },
  "probes": [ { "id": 1, "provider": "dtrace", "name": "BEGIN" },
              { "id": 2, "provider": "syscall", "function": "read",
                "name": "entry" } ],
  "eprobes": [ { "epid": 1, "probe": 1, "recs": [ { "printf": "hello\n" } ] },
               { "epid": 2, "probe": 2,
                 "recs": [ { "printf": "fd %d\n", "args": [ { "size": 3 } ] } ] } ],
  "passes": [ { "bufs": [ { "cpu": 0, "records": [
      { "epid": 1, "data": [ null ] },
      { "epid": 2, "data": [ [ { "hex": "030000" } ] ] },
      { "epid": 1, "data": [ null ] } ] } ] } ],
  "end": { "exit_status": 0 } }
EOF
"$DTSNAP" synth "$work/mm.json" -o "$work/mm.dtsnap" ||
    not_ok "mm.dtsnap: synth"
for f in $FORMATS; do
	"$DTCONSUME" -f "$f" "$work/mm.dtsnap" >"$work/mm.$f.out" \
	    2>"$work/mm.$f.err"
	rc=$?
	if [ $rc = 1 ] && grep -qx "dtrace: processing aborted: Data record list does not match statement" "$work/mm.$f.err"; then
		ok "mismatch -f $f: processing aborted, status 1"
	else
		not_ok "mismatch -f $f: processing aborted, status 1" \
		    "status $rc" "$(head -n 2 "$work/mm.$f.err")"
	fi
done
printf 'hello\n' >"$work/want"
same "mismatch -f text: what came before" "$work/want" "$work/mm.text.out"
if "$JQ" -e -s '.[-1] | .type == "probe" and .records[0].message == null
    and .records[0].args[0].bytes == "030000"' "$work/mm.json.out" \
    >/dev/null; then
	ok "mismatch -f json: its line, message null, is the last"
else
	not_ok "mismatch -f json: its line, message null, is the last"
fi
"$PYTHON3" "$top_srcdir/cmd/tests/cbor_vs_json.py" "$work/mm.cbor.out" \
    "$work/mm.json.out" >/dev/null 2>&1 && ok "mismatch: CBOR is the JSON" ||
    not_ok "mismatch: CBOR is the JSON"
"$JQ" -e '.dtrace.probes | length == 2' "$work/mm.json-freebsd.out" \
    >/dev/null 2>&1 && ok "mismatch -f json-freebsd: a closed document" ||
    not_ok "mismatch -f json-freebsd: a closed document"

# --- print() and symbol text under the cap (issue 24)
# capped NAME CAP FILE [FORMAT]: dtconsume -x maxmsgsize=CAP on FILE into
# $work/NAME.{out,err}, its status in $rc
capped() {
	(cd "$(dirname "$3")" && "$DTCONSUME" -f "${4:-text}" \
	    -x maxmsgsize="$2" "$(basename "$3")" >"$work/$1.out" \
	    2>"$work/$1.err")
	rc=$?
}
# notice NAME WHAT CAP: $work/NAME.err is one located notice per cut
# statement, $2 of them
notices() {
	n=$(grep -c "^dtconsume: [^ ]*: item [0-9]*, cpu 0, offset [0-9]*: $2 message cut at $3 bytes (maxmsgsize) in a record of enabled probe [0-9]*: -x maxmsgsize=0 prints it whole; this statement's other cuts are not reported\$" "$work/$1.err")
	[ "$n" = "$4" ] && [ "$(wc -l <"$work/$1.err")" = "$4" ]
}
if grep -q '^#define HAVE_LIBCTF 1' "$top_builddir/config.h" 2>/dev/null; then
	# DTrace v2 print(): a real capture, dtrace's own output beside it.
	# Cut at 100 bytes, what is printed is dtrace's first 100 bytes and
	# then the end of dtrace's output (what followed the print() text).
	d="$top_srcdir/testdata/live/captures/print_struct"
	cp "$d/cap.dtsnap" "$work/ps.dtsnap"
	capped ps 100 "$work/ps.dtsnap"
	if [ $rc = 1 ] && notices ps 'print()' 100 1 &&
	    "$PYTHON3" - "$d/expected.out" "$work/ps.out" <<'PYEOF'
import sys
want, got = (open(p, "rb").read() for p in sys.argv[1:3])
n = len(got) - 100
sys.exit(0 if got[:100] == want[:100] and 0 < n < len(want) - 100 and
         got[100:] == want[len(want) - n:] else 1)
PYEOF
	then
		ok "print() (v2) cut at 100 bytes: dtrace's first 100, then the rest, one notice, status 1"
	else
		not_ok "print() (v2) cut at 100 bytes: dtrace's first 100, then the rest, one notice, status 1" \
		    "status $rc" "$(head -n 2 "$work/ps.err")"
	fi
	capped ps0 0 "$work/ps.dtsnap"
	if [ $rc = 0 ] && [ ! -s "$work/ps0.err" ] &&
	    cmp -s "$d/expected.out" "$work/ps0.out"; then
		ok "print() (v2) with maxmsgsize=0: dtrace's output whole"
	else
		not_ok "print() (v2) with maxmsgsize=0: dtrace's output whole" \
		    "status $rc"
	fi
	capped psj 100 "$work/ps.dtsnap" json
	if [ $rc = 1 ] && notices psj 'print()' 100 1 &&
	    "$JQ" -e -s '[.[] | select(.type == "probe") | .records[] |
	    select(.act == "print") | .text | length] == [100]' \
	    "$work/psj.out" >/dev/null; then
		ok "print() (v2) -f json: the text cut at 100 bytes, the same notice"
	else
		not_ok "print() (v2) -f json: the text cut at 100 bytes, the same notice" \
		    "status $rc" "$(head -n 2 "$work/psj.err")"
	fi
	# legacy print() (illumos): testdata/valid/print-legacy's text,
	# derived by hand from dt_print.c, is the print() text and the
	# record's "\n"
	"$DTSNAP" synth "$top_srcdir/testdata/valid/print-legacy/a-illumos.json" \
	    -o "$work/pl.dtsnap" || not_ok "print-legacy: synth"
	capped pl 20 "$work/pl.dtsnap"
	{ head -c 20 "$top_srcdir/testdata/valid/print-legacy/expected.txt"
	  printf '\n'; } >"$work/pl.want"
	if [ $rc = 1 ] && notices pl 'print()' 20 1 &&
	    cmp -s "$work/pl.want" "$work/pl.out"; then
		ok "print() (legacy) cut at 20 bytes: the hand-derived text's first 20, one notice"
	else
		not_ok "print() (legacy) cut at 20 bytes: the hand-derived text's first 20, one notice" \
		    "status $rc" "$(head -n 2 "$work/pl.err")" \
		    "$(od -c "$work/pl.out" | head -n 3)"
	fi
else
	echo "# print() under the cap: skipped, this build has no GNU libctf"
fi

# symbols: a kernel symbol of 3001 bytes (the capture's ksyms item says
# so), printed by sym() and by the two frames of a stack()
"$PYTHON3" - "$work/sym.json" <<'PYEOF'
import json
import sys
json.dump({
    "header": {"ncpu": 1}, "options": {"quiet": "set"},
    "probes": [{"id": 1, "provider": "dtrace", "name": "BEGIN"}],
    "eprobes": [{"epid": 1, "probe": 1,
                 "recs": [{"sym": True}, {"stack": 2}]}],
    "ksyms": [["0xffffffff81000000", 4096, "kernel", "f" + "x" * 3000]],
    "passes": [{"bufs": [{"cpu": 0, "records": [{"epid": 1, "data": [
        "0xffffffff81000010",
        ["0xffffffff81000010", "0xffffffff81000020"]]}]}]}],
    "end": {"exit_status": 0}}, open(sys.argv[1], "w"))
PYEOF
"$DTSNAP" synth "$work/sym.json" -o "$work/sym.dtsnap" || not_ok "sym: synth"
capped sym0 0 "$work/sym.dtsnap"
capped sym 1000 "$work/sym.dtsnap"
# what the uncut run prints, each symbol's text cut at its 1000th byte
"$PYTHON3" - "$work/sym0.out" "$work/sym.want" <<'PYEOF'
import sys
out = []
for l in open(sys.argv[1]).read().split("\n"):
    i = l.find("kernel`")
    out.append(l if i < 0 else l[:i + 1000])
open(sys.argv[2], "w").write("\n".join(out))
PYEOF
if [ "$(grep -c 'kernel`fx*+0x' "$work/sym0.out")" = 2 ] &&
    grep -q "^  kernel\`fx\{3000\}\$" "$work/sym0.out"; then
	ok "symbols uncut (maxmsgsize=0): the 3001-byte name whole, in sym() and both frames"
else
	not_ok "symbols uncut (maxmsgsize=0): the 3001-byte name whole, in sym() and both frames"
fi
if [ $rc = 1 ] && notices sym symbol 1000 2 &&
    cmp -s "$work/sym.want" "$work/sym.out"; then
	ok "symbols cut at 1000 bytes: sym() and the frames, one notice per statement, status 1"
else
	not_ok "symbols cut at 1000 bytes: sym() and the frames, one notice per statement, status 1" \
	    "status $rc" "$(head -n 2 "$work/sym.err")"
fi
capped symj 1000 "$work/sym.dtsnap" json
if [ $rc = 1 ] && notices symj symbol 1000 2 &&
    "$JQ" -e -s '[.[] | select(.type == "probe") | .records[0] |
    (.symbol, .name | length)] == [1000, 1000] and
    [.[] | select(.type == "probe") | .records[1].frames[] |
    (.symbol, .name | length)] == [1000, 1000, 1000, 1000]' \
    "$work/symj.out" >/dev/null; then
	ok "symbols -f json: symbol and name cut at 1000 bytes, the same notices"
else
	not_ok "symbols -f json: symbol and name cut at 1000 bytes, the same notices" \
	    "status $rc" "$(head -n 2 "$work/symj.err")"
fi
capped symf 1000 "$work/sym.dtsnap" json-freebsd
if [ $rc = 1 ] && notices symf symbol 1000 2 &&
    "$JQ" -e '[.dtrace.probes[0].output[0].sym,
    .dtrace.probes[0].output[1]."stack-frames"[].symbol | length] ==
    [1000, 1000, 1000]' "$work/symf.out" >/dev/null; then
	ok "symbols -f json-freebsd: cut at 1000 bytes, the same notices"
else
	not_ok "symbols -f json-freebsd: cut at 1000 bytes, the same notices" \
	    "status $rc" "$(head -n 2 "$work/symf.err")"
fi
finish
