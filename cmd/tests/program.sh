#!/bin/sh
# dtsnap program and the program item (issue 23), on a committed capture
# of dtsnap record (testdata/program/vars/, its README says how it was
# made):
#  - `dtsnap program -S` is byte for byte what dtrace-utils' dtrace -S
#    printed for the same command line on the recording host (dtrace.S,
#    saved as dtrace wrote it);
#  - `dtsnap program` prints the options, the macro arguments and each
#    source: expected text built here from script.d and the command line;
#  - -x disasm= asking for listings the capture does not hold is
#    reported (exit 1) and the clauses still listed;
#  - damage in the program item (instructions cut, a clause naming a
#    source that is not there, a wrong type) is an error naming the file,
#    the item and the byte offset, from dtsnap program and from a decode
#    (dtsnap validate), which goes on; an item without its abi cannot be
#    listed, and says so; a capture without a program item says so;
#  - a decode of the capture does not stumble on the item.
. "$(dirname "$0")/lib.sh"
need_dtsnap
: "${JQ:=jq}"
dir="$top_srcdir/testdata/program/vars"
cap="$dir/cap.dtsnap"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-program.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# -S against dtrace -S
"$DTSNAP" program -S "$cap" >"$work/S" 2>"$work/S.err"
st=$?
if [ $st -eq 0 ] && cmp -s "$dir/dtrace.S" "$work/S" && [ ! -s "$work/S.err" ]; then
	ok "program -S equals dtrace -S byte for byte"
else
	not_ok "program -S equals dtrace -S byte for byte" "exit $st" \
	    "$(diff "$dir/dtrace.S" "$work/S" | head -n 5)" "$(head -n 2 "$work/S.err")"
fi

# the source listing, built independently
{
	printf 'options: -x strsize=64\nmacros: dtrace hello\n\n'
	printf 'source 1: -s script.d\n'
	cat "$dir/script.d"
	printf '\nsource 2: -n\nEND { trace($$1); }\n'
} >"$work/src.exp"
"$DTSNAP" program "$cap" >"$work/src" 2>"$work/src.err"
st=$?
if [ $st -eq 0 ] && cmp -s "$work/src.exp" "$work/src"; then
	ok "program prints the options, macro arguments and sources"
else
	not_ok "program prints the options, macro arguments and sources" \
	    "exit $st" "$(diff "$work/src.exp" "$work/src" | head -n 5)"
fi

# listings the capture does not hold
"$DTSNAP" program -S -x disasm=7 "$cap" >"$work/x7" 2>"$work/x7.err"
st=$?
if [ $st -eq 1 ] && cmp -s "$dir/dtrace.S" "$work/x7" &&
    grep -q 'holds the disasm listings 1, not 6' "$work/x7.err"; then
	ok "-x disasm=7: listings 2 and 4 reported missing, 1 printed"
else
	not_ok "-x disasm=7: listings 2 and 4 reported missing, 1 printed" \
	    "exit $st" "$(head -n 2 "$work/x7.err")"
fi
"$DTSNAP" program -S -x disasm=2 "$cap" >"$work/x2" 2>/dev/null
if [ $? -eq 1 ] && [ ! -s "$work/x2" ]; then
	ok "-x disasm=2: nothing listed, exit 1"
else
	not_ok "-x disasm=2: nothing listed, exit 1"
fi

# no program item (the README's sample was recorded before it existed)
"$DTSNAP" program "$top_builddir/testdata/samples/syscalls.dtsnap" \
    >"$work/none" 2>"$work/none.err"
st=$?
if [ $st -eq 1 ] && [ ! -s "$work/none" ] &&
    grep -q 'syscalls.dtsnap: no program item' "$work/none.err"; then
	ok "a capture without a program item is reported"
else
	not_ok "a capture without a program item is reported" "exit $st" \
	    "$(head -n 2 "$work/none.err")"
fi

# a decode passes over the item silently
"$DTSNAP" validate "$cap" >"$work/val" 2>"$work/val.err"
st=$?
if [ $st -eq 0 ] && ! grep -q program "$work/val.err"; then
	ok "validate reads the program item without a word"
else
	not_ok "validate reads the program item without a word" "exit $st" \
	    "$(head -n 2 "$work/val.err")"
fi

if ! command -v "$JQ" >/dev/null 2>&1; then
	echo "# no jq: damaged program items not made"
	finish
fi
"$DTSNAP" convert -f json "$cap" -o "$work/cap.jsonl" || exit 99
# damage NAME JQ-FILTER: the capture with its program item changed
damage() {
	"$JQ" -c "if .t == \"program\" then $2 else . end" "$work/cap.jsonl" \
	    >"$work/$1.jsonl" &&
	    "$DTSNAP" convert -f cbor "$work/$1.jsonl" -o "$work/$1.dtsnap"
}
item=$("$JQ" -r 'select(.t == "program") | .seq' "$work/cap.jsonl")
damage cut '.clauses[1].insns.hex |= .[2:]' || exit 99
"$DTSNAP" program -S "$work/cut.dtsnap" >"$work/cut" 2>"$work/cut.err"
st=$?
if [ $st -eq 1 ] && [ ! -s "$work/cut" ] &&
    grep -q "cut.dtsnap: item $item, offset [0-9][0-9]*: program item: 'insns' holds [0-9]* bytes, not a whole number of 8-byte instructions" "$work/cut.err"; then
	ok "instructions cut: located error"
else
	not_ok "instructions cut: located error" "exit $st" \
	    "$(head -n 2 "$work/cut.err")"
fi

damage src '.clauses[0].source = 7' || exit 99
"$DTSNAP" program "$work/src.dtsnap" >/dev/null 2>"$work/srcd.err"
st=$?
"$DTSNAP" validate "$work/src.dtsnap" >/dev/null 2>"$work/srcv.err"
vst=$?
if [ $st -eq 1 ] && grep -q "item $item, offset [0-9]*: program item: a clause's 'source' is not the index of a source" "$work/srcd.err" &&
    [ $vst -eq 1 ] && grep -q "item $item, offset [0-9]*: program item: a clause's 'source'" "$work/srcv.err"; then
	ok "a clause naming a missing source: located error, from validate too"
else
	not_ok "a clause naming a missing source: located error, from validate too" \
	    "exit $st/$vst" "$(head -n 1 "$work/srcd.err")" "$(head -n 1 "$work/srcv.err")"
fi

damage type '.macros = "hello"' || exit 99
"$DTSNAP" program "$work/type.dtsnap" >/dev/null 2>"$work/type.err"
if [ $? -eq 1 ] && grep -q "item $item, offset [0-9]*: program item: key 'macros' is not an array" "$work/type.err"; then
	ok "a key of the wrong type: located error"
else
	not_ok "a key of the wrong type: located error" "$(head -n 1 "$work/type.err")"
fi

damage noabi 'del(.abi)' || exit 99
"$DTSNAP" program -S "$work/noabi.dtsnap" >"$work/noabi" 2>"$work/noabi.err"
st=$?
"$DTSNAP" program "$work/noabi.dtsnap" >"$work/noabi.src" 2>/dev/null
st2=$?
if [ $st -eq 1 ] && grep -q 'no abi' "$work/noabi.err" && [ $st2 -eq 0 ] &&
    cmp -s "$work/src.exp" "$work/noabi.src"; then
	ok "no abi: -S says why, the sources still print"
else
	not_ok "no abi: -S says why, the sources still print" "exit $st/$st2" \
	    "$(head -n 1 "$work/noabi.err")"
fi
finish
