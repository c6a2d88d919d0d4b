#!/bin/sh
# -f flamegraph, speedscope and trace-event (dtconsume(1), PICTURES): the
# outputs of real captures (testdata/live/captures/ustack_v2, and
# evented_v2: entry/return with trace(timestamp)), a
# description with kernel stacks, entry/return pairs, printf and drops
# (testdata/pictures/flow.json) and folded's kernel stacks
# (testdata/folded/kernel.json) against the files in testdata/pictures
# (README there says how each was checked); both JSON formats against
# their schemas (python3-jsonschema; that part skips without it); and the
# flame graph's counts against -f folded's lines.
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"
T="$top_srcdir/testdata/pictures"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-pictures.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# the captures under short names, so the outputs name them the same way
for c in ustack_v2 evented_v2; do
	cp "$top_srcdir/testdata/live/captures/$c/cap.dtsnap" \
	    "$work/$c.dtsnap" || exit 99
done
for j in "$T/flow.json" "$top_srcdir/testdata/folded/kernel.json"; do
	b=$(basename "$j" .json)
	"$DTSNAP" synth "$j" -o "$work/$b.dtsnap" 2>"$work/err" || {
		echo "# synth $j: $(cat "$work/err")"
		exit 99
	}
done
cd "$work" || exit 99

# same NAME EXPECTED ERR CMD...: stdout equals EXPECTED, stderr equals ERR
# (a file, or - for nothing), exit status 0
same() {
	name=$1 want=$2 werr=$3
	shift 3
	"$@" >out 2>err
	rc=$?
	[ "$werr" = - ] && werr=/dev/null
	if [ $rc -eq 0 ] && cmp -s "$werr" err && cmp -s "$want" out; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(head -n 3 err)" \
		    "$(diff "$want" out | head -n 10)"
	fi
}

# flow's drops on the error stream, once, as dtrace says them (the
# trace-event format has them as events instead)
printf 'dtrace: 3 drops on CPU 1\n' >flow.err
for c in ustack_v2 flow kernel; do
	e=-
	[ -f $c.err ] && e=$c.err
	same "$c: flamegraph" "$T/$c.svg" $e \
	    "$DTCONSUME" -f flamegraph $c.dtsnap
	same "$c: speedscope" "$T/$c.speedscope.json" $e \
	    "$DTCONSUME" -f speedscope $c.dtsnap
done
same "flow: trace-event" "$T/flow.trace.json" - \
    "$DTCONSUME" -f trace-event flow.dtsnap
same "ustack_v2: trace-event" "$T/ustack_v2.trace.json" - \
    "$DTCONSUME" -f trace-event ustack_v2.dtsnap
same "evented_v2: speedscope" "$T/evented_v2.speedscope.json" - \
    "$DTCONSUME" -f speedscope evented_v2.dtsnap
same "evented_v2: trace-event" "$T/evented_v2.trace.json" - \
    "$DTCONSUME" -f trace-event evented_v2.dtsnap
# DTrace v2: the evented profile's times are the timestamps the script
# traced, which dtrace printed (13 digits each, run together)
if ${PYTHON3:-python3} - "$top_srcdir/testdata/live/captures/evented_v2/expected.out" \
    "$T/evented_v2.speedscope.json" >err 2>&1 <<'PY'
import json, re, sys
printed = [int(x) for x in re.findall(r"\d{13}", open(sys.argv[1]).read())]
doc = json.load(open(sys.argv[2]))
(prof,) = [p for p in doc["profiles"] if p["type"] == "evented"]
names = [doc["shared"]["frames"][e["frame"]]["name"] for e in prof["events"]]
ats = [e["at"] for e in prof["events"]]
assert len(printed) == 8 and ats == printed, (ats, printed)
assert [e["type"] for e in prof["events"]] == ["O", "C"] * 4
assert names == ["write"] * 6 + ["close"] * 2, names
PY
then
	ok "evented_v2: O/C at the 8 timestamps dtrace printed (write x3, close)"
else
	not_ok "evented_v2: evented times" "$(tail -n 3 err)"
fi
same "--folded-key 2 keeps the stack key only" "$T/kernel-key2.svg" - \
    "$DTCONSUME" -f flamegraph --folded-key 2 kernel.dtsnap

# The flame graph draws folded's counts: every folded line's count is the
# width (data-v) of its leaf frame's path, summed over lines ending there.
for c in ustack_v2 flow kernel; do
	"$DTCONSUME" -f folded $c.dtsnap >folded 2>/dev/null
	total=$(awk '{ n += $NF } END { print n + 0 }' folded)
	root=$(sed -n 's/.*data-v="\([0-9]*\)" data-d="0".*/\1/p' \
	    "$T/$c.svg")
	if [ "$total" = "$root" ] && [ "$total" -gt 0 ]; then
		ok "$c: the root frame holds folded's $total samples"
	else
		not_ok "$c: root frame" "folded $total, svg root $root"
	fi
done
# kernel frames are told apart: data-k="1" exactly on the kernel frames
k=$(grep -c 'data-k="1"' "$T/flow.svg")
u=$(grep 'data-k="0"' "$T/flow.svg" | grep -c 'data-n="kernel`')
if [ "$k" -eq 3 ] && [ "$u" -eq 0 ]; then
	ok "flow: the 3 kernel frames are marked kernel"
else
	not_ok "flow: kernel frames" "$k marked, $u kernel frames unmarked"
fi
# no network, no external script: no URL but the SVG namespace
if grep -o 'https\?://[^"]*' "$T"/*.svg | grep -v 'www.w3.org/2000/svg$' \
    >urls; [ -s urls ]; then
	not_ok "the SVG files refer to nothing outside" "$(head -3 urls)"
else
	ok "the SVG files refer to nothing outside"
fi

# A damaged capture (ustack_v2 cut at byte 1500, in item 8): each format
# says where, exits 1, and what it wrote is still a whole document
head -c 1500 ustack_v2.dtsnap >cut.dtsnap
for f in flamegraph speedscope trace-event; do
	"$DTCONSUME" -f $f cut.dtsnap >cut.out 2>cut.err
	rc=$?
	if [ $rc -eq 1 ] && grep -q '^dtconsume: cut.dtsnap: item 8, offset 1252: capture cut short' cut.err &&
	    ${PYTHON3:-python3} -c '
import json, sys, xml.etree.ElementTree as ET
if sys.argv[1] == "flamegraph":
    ET.parse("cut.out")
else:
    json.load(open("cut.out"))' $f 2>>cut.err; then
		ok "$f: a cut capture is reported (file, item, offset), the output stays whole"
	else
		not_ok "$f: cut capture" "exit $rc" "$(head -n 3 cut.err)"
	fi
done

# A symbol that is not UTF-8 (flow's zfs_read patched to zfs\xe9read in
# the capture's bytes): read as Latin-1, so the SVG still parses as XML
# (one bad byte makes a browser refuse it) and the JSON stays JSON
${PYTHON3:-python3} -c '
d = open("flow.dtsnap", "rb").read()
open("latin1.dtsnap", "wb").write(d.replace(b"zfs_read", b"zfs\xe9read"))'
for f in flamegraph speedscope trace-event; do
	"$DTCONSUME" -f $f latin1.dtsnap >l1.out 2>/dev/null
	if ${PYTHON3:-python3} -c '
import json, sys, xml.etree.ElementTree as ET
if sys.argv[1] == "flamegraph":
    names = [g.get("data-n") for g in ET.parse("l1.out").iter()
             if g.get("data-n")]
else:
    names = [open("l1.out", encoding="utf-8").read()]
    json.loads(names[0])
sys.exit(0 if any("zfs\u00e9read" in n for n in names) else 1)' $f 2>l1.err
	then
		ok "$f: a symbol that is not UTF-8 reads as Latin-1"
	else
		not_ok "$f: not UTF-8" "$(tail -n 2 l1.err)"
	fi
done

# Schemas: speedscope's published file-format-schema.json (a copy), and
# a schema of the Trace Event Format written from Google's document.
if ${PYTHON3:-python3} -c 'import jsonschema' 2>/dev/null; then
	for f in "$T"/*.speedscope.json "$T"/*.trace.json; do
		case $f in
		*.speedscope.json) s="$T/speedscope-schema.json" ;;
		*) s="$T/trace-event-schema.json" ;;
		esac
		if ${PYTHON3:-python3} - "$s" "$f" >err 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
# the schema must be able to fail: a profile of an unknown type
bad = json.loads(json.dumps(doc))
key = "profiles" if "profiles" in bad else "traceEvents"
bad[key][0]["type" if key == "profiles" else "ph"] = "bogus"
try:
    jsonschema.validate(bad, schema)
except jsonschema.ValidationError:
    sys.exit(0)
sys.exit("the schema accepted a bogus " + key + " entry")
PY
		then
			ok "$(basename "$f") is valid under $(basename "$s")"
		else
			not_ok "$(basename "$f") schema" "$(tail -n 3 err)"
		fi
	done
else
	echo "# python3-jsonschema is missing: schema checks skipped"
fi
finish
