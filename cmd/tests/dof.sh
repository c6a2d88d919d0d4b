#!/bin/sh
# dtsnap dof: DOF objects listed (dof.c, dif.c, cmd/dtsnap_dof.c).
#
#  1. legacy DOF built by cmd/tests/dofgen.py from the specification's
#     tables (every DIF opcode once, subroutines, variables, relocations,
#     an ECB with a predicate and actions, a provider with a translated
#     argument and is-enabled offsets), in both byte orders: the DIF
#     listing equals testdata/dof/legacy.dis and the ECB lines
#     testdata/dof/legacy.ecb, both written by hand from dt_dis.c's
#     formats and the instruction encodings dofgen.py documents; the
#     header, section table and probe (-f json) equal what dofgen.py
#     wrote (facts.json, and the provider's values)
#  2. damaged copies: each fault is reported on stderr exactly as
#     testdata/dof/NAME.err says (file, section, byte offset from
#     facts.json), exit status 1, and what the fault does not touch is
#     still listed (the DIF listing of the intact DIFO)
#  3. dtrace -G objects (dtrace-utils, when present): several provider
#     definitions (testdata/dof/usdt-*.d: two providers, is-enabled
#     probes, translated arguments, "__" names, ten arguments, a probe in
#     two functions); every provider, probe, function, native and translated
#     argument type and argument mapping is compared with the provider
#     definition, and every offset and is-enabled offset with the call
#     sites readelf finds in the object before dtrace -G rewrites it;
#     and, probe by probe, with what dtrace-utils' own DOF reader reports
#     of the object (its showUSDT, installed with it, which needs no
#     dtprobed: provider, function, name, argument count, address,
#     offsets and is-enabled offsets; dtrace -l -v on a process needs
#     dtprobed, which needs CUSE: live_dof.sh)
#  4. no DOF: a file that is neither ELF nor DOF, and an ELF object
#     without .SUNW_dof, fail with a reason
#  5. dof items of a capture (dtsnap synth's "dof" key): the items' bytes
#     are the DOF files' (read back with dtsnap convert), dtsnap dof
#     CAPTURE lists each as dtsnap dof lists its file (text; JSON per
#     item, with the byte offset of the DOF checked in the capture's
#     bytes), dtconsume prints what it prints without them; a truncated
#     DOF item: each of the file's problems reported with the capture,
#     the item and the offset in the capture (the DOF's offset found in
#     the capture's bytes), the next dof item listed whole, dtconsume
#     reports it once and decodes the rest; version 1.4: a capture with a
#     program and a dof item decodes as without them, and, as a 1.3 reader
#     sees it, kinds unknown in a capture of a newer minor are skipped
#     silently (the same kinds in a capture of its own minor are reported)
. "${top_srcdir:-$(dirname "$0")/../..}/cmd/tests/lib.sh"
need_dtsnap
PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "# SKIP: no python3 (dofgen.py builds the DOF)"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-dof.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
exp="$top_srcdir/testdata/dof"
"$PY" "$top_srcdir/cmd/tests/dofgen.py" "$work" || exit 99

# the DIF listing: from the first "DIFO" title to the end
dis() {
	sed -n '/^DIFO \[section/,$p' "$1" | sed '1i\
'
}

# 1. legacy DOF, both byte orders
for v in legacy legacy-msb; do
	if "$DTSNAP" dof "$work/$v.dof" >"$work/$v.out" 2>"$work/$v.err" &&
	    [ ! -s "$work/$v.err" ]; then
		ok "$v: listed without problems"
	else
		not_ok "$v: listed without problems" "$(cat "$work/$v.err")"
	fi
	dis "$work/$v.out" >"$work/$v.dis"
	if cmp -s "$exp/legacy.dis" "$work/$v.dis"; then
		ok "$v: DIF listing as derived by hand"
	else
		not_ok "$v: DIF listing as derived by hand" \
		    "$(diff "$exp/legacy.dis" "$work/$v.dis" | head -n 20)"
	fi
	grep -A4 '^ECB' "$work/$v.out" >"$work/$v.ecb"
	if cmp -s "$exp/legacy.ecb" "$work/$v.ecb"; then
		ok "$v: ECB description"
	else
		not_ok "$v: ECB description" \
		    "$(diff "$exp/legacy.ecb" "$work/$v.ecb")"
	fi
	"$DTSNAP" dof -f json "$work/$v.dof" >"$work/$v.json" 2>/dev/null
	if why=$("$PY" - "$work/$v.json" "$work/facts.json" "$v" 2>&1 <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))
fact = json.load(open(sys.argv[2]))[sys.argv[3]]
h = got["header"]
want = {"model": 2, "encoding": 1 if sys.argv[3] == "legacy" else 2,
        "version": 2, "difvers": 2, "difireg": 8, "diftreg": 8,
        "hdrsize": 64, "secsize": 32, "secnum": len(fact["sections"]),
        "secoff": 64, "loadsz": fact["size"], "filesz": fact["size"]}
for k, v in want.items():
    if h[k] != v:
        sys.exit("header %s: %r, not %r" % (k, h[k], v))
if len(got["sections"]) != len(fact["sections"]):
    sys.exit("%d sections" % len(got["sections"]))
for i, (g, f) in enumerate(zip(got["sections"], fact["sections"])):
    for k in ("align", "flags", "entsize", "offset", "size"):
        if g[k] != f[k]:
            sys.exit("section %d %s: %r, not %r" % (i, k, g[k], f[k]))
    if g["type_id"] != f["type"] or not g["ok"]:
        sys.exit("section %d type %r" % (i, g["type_id"]))
d = got["difos"]
if [x["section"] for x in d] != [6, 12] or len(d[0]["instructions"]) != 83:
    sys.exit("difos %r" % [x["section"] for x in d])
if d[0]["instructions"][36]["text"] != "setx DT_INTEGER[1], %r3\t\t! 0xffffffffffffffff":
    sys.exit("setx text %r" % d[0]["instructions"][36]["text"])
if d[0]["integers"] != [42, "18446744073709551615"]:
    sys.exit("integers %r" % d[0]["integers"])
# the provider dofgen.py wrote
want = {"provider": "prov", "function": "fn", "name": "pr",
        "provider_section": 20, "probes_section": 16, "address": 0x401000,
        "native_args": ["int", "char *"], "translated_args": ["string"],
        "argmap": [1], "offsets": [0x10, 0x24], "enabled_offsets": [0x8],
        "probe_attributes": {"name": "Private", "data": "Private",
                             "class": "Unknown"},
        "argument_attributes": {"name": "Evolving", "data": "Evolving",
                                "class": "Common"}}
if got["probes"] != [want]:
    sys.exit("probes %r" % got["probes"])
EOF
	); then
		ok "$v: header and sections (json) as laid out"
	else
		not_ok "$v: header and sections (json) as laid out" "$why"
	fi
done

# 2. damaged DOF: located errors, the rest listed
for v in bad-size bad-string loop bad-secnum bad-entsize bad-count bad-nargc \
    shared-probes; do
	"$DTSNAP" dof "$work/$v.dof" >"$work/$v.out" 2>"$work/$v.err"
	rc=$?
	sed "s|@FILE@|$work/$v.dof|" "$exp/$v.err" >"$work/$v.experr"
	if [ $rc = 1 ] && cmp -s "$work/$v.experr" "$work/$v.err"; then
		ok "$v: located errors, exit 1"
	else
		not_ok "$v: located errors, exit 1" "rc $rc" \
		    "$(diff "$work/$v.experr" "$work/$v.err")"
	fi
done
# the offsets in the .err files are the ones dofgen.py corrupted
if why=$("$PY" - "$work/facts.json" "$exp" 2>&1 <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
for name in ("bad-size", "bad-string", "loop", "bad-secnum", "bad-entsize",
             "bad-count", "bad-nargc", "shared-probes"):
    first = open("%s/%s.err" % (sys.argv[2], name)).readline()
    if ": offset %d: " % f[name]["at"] not in first:
        sys.exit("%s: first error not at offset %d" % (name, f[name]["at"]))
EOF
); then
	ok "damaged: errors name the corrupted offsets"
else
	not_ok "damaged: errors name the corrupted offsets" "$why"
fi
# what each fault leaves intact is still listed
for v in bad-string bad-count bad-nargc shared-probes; do
	dis "$work/$v.out" >"$work/bs.dis"
	if cmp -s "$exp/legacy.dis" "$work/bs.dis"; then
		ok "$v: both DIFOs still listed"
	else
		not_ok "$v: both DIFOs still listed"
	fi
done
dis "$work/bad-entsize.out" >"$work/be.dis"
if cmp -s "$exp/legacy.dis" "$work/be.dis" &&
    grep -q '^ECB \[section 14\] dtrace:::BEGIN' "$work/bad-entsize.out"; then
	ok "bad-entsize: ECB and DIFOs still listed"
else
	not_ok "bad-entsize: ECB and DIFOs still listed"
fi
sed -n '/^DIFO \[section 6\]/,/^UREL/p' "$work/loop.out" >"$work/loop.dis"
sed -n '/^DIFO \[section 6\]/,/^UREL/p' "$work/legacy.out" >"$work/legacy6.dis"
if cmp -s "$work/legacy6.dis" "$work/loop.dis" &&
    grep -q '^DIFO \[section 12\]' "$work/loop.out"; then
	ok "loop: the intact DIFO listed, the looping one listed empty"
else
	not_ok "loop: the intact DIFO listed, the looping one listed empty"
fi
# setx loses its comment (no integer table), nothing else does
sed -n '/^DIFO \[section 6\]/,/^UREL/p' "$work/bad-size.out" >"$work/bsz.dis"
if diff "$work/legacy6.dis" "$work/bsz.dis" | grep -c '^[<>]' |
    grep -qx 2 && grep -q '^36: 25000103    setx DT_INTEGER\[1\], %r3$' \
    "$work/bsz.dis"; then
	ok "bad-size: the DIFO listed without its integer table"
else
	not_ok "bad-size: the DIFO listed without its integer table"
fi
if grep -q '^INDEX' "$work/bad-secnum.out" &&
    ! grep -q '^ *0 strtab' "$work/bad-secnum.out" &&
    grep -q '^flags 0x0, header 64 bytes, 4294967295 sections' \
    "$work/bad-secnum.out"; then
	ok "bad-secnum: header listed, no section read"
else
	not_ok "bad-secnum: header listed, no section read"
fi

if [ "$("$DTSNAP" dof -f json "$work/shared-probes.dof" 2>/dev/null |
    "$PY" -c 'import json, sys; print(len(json.load(sys.stdin)["probes"]))')" = 1 ]
then
	ok "shared-probes: the shared probes listed once"
else
	not_ok "shared-probes: the shared probes listed once"
fi
# a name that is not UTF-8 is Latin-1 in JSON, not a probe left out
"$PY" - "$work/legacy.dof" "$work/latin1.dof" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(b"\0pr\0int\0")
b[i + 1] = 0xe9                         # "pr" -> "\xe9r"
open(sys.argv[2], "wb").write(b)
EOF
if "$DTSNAP" dof -f json "$work/latin1.dof" 2>/dev/null |
    "$PY" -c 'import json, sys
p = json.load(sys.stdin)["probes"]
sys.exit(0 if [x["name"] for x in p] == ["\u00e9r"] else 1)'; then
	ok "json: a name that is not UTF-8 is read as Latin-1"
else
	not_ok "json: a name that is not UTF-8 is read as Latin-1"
fi

# 4. no DOF at all
printf 'hello, world\n' >"$work/plain"
"$DTSNAP" dof "$work/plain" >/dev/null 2>"$work/plain.err"
rc=$?
if [ $rc = 1 ] && grep -q "plain: offset 0: no DOF magic" "$work/plain.err"; then
	ok "not DOF: refused with a reason"
else
	not_ok "not DOF: refused with a reason" "rc $rc" "$(cat "$work/plain.err")"
fi

# 5. dof items in captures (dtsnap(5), dof), written by dtsnap synth from
# the DOF files next to the description
DTCONSUME="$top_builddir/cmd/dtconsume"
# items as JSON lines: the writer's own lossless form
items() { "$DTSNAP" convert -f json "$1"; }
# one trace() firing, with or without dof items
desc() {
	printf '{ "probes": [ { "id": 1, "provider": "dtrace", "name": "BEGIN" } ],\n'
	printf '  "eprobes": [ { "epid": 1, "probe": 1, "recs": [ {"trace": 4} ] } ],\n'
	[ -n "$1" ] && printf '  "dof": [ %s ],\n' "$1"
	printf '  "passes": [ { "bufs": [ { "cpu": 0, "records": [ { "epid": 1, "data": [42] } ] } ] } ],\n'
	printf '  "end": {"exit_status": 0} }\n'
}
desc >"$work/none.json"
desc '{"file": "legacy.dof", "name": "enabling 1"}, {"file": "legacy-msb.dof"}' \
    >"$work/two.json"
"$DTSNAP" synth "$work/none.json" -o "$work/none.dtsnap" &&
    "$DTSNAP" synth "$work/two.json" -o "$work/two.dtsnap" || exit 99
items "$work/two.dtsnap" >"$work/two.lines"
# the items' bytes are the files' bytes, in file order, with their names
if why=$("$PY" - "$work" 2>&1 <<'EOF'
import json, sys
w = sys.argv[1]
its = [json.loads(l) for l in open(w + "/two.lines")]
d = [x for x in its if x["t"] == "dof"]
want = [(open(w + "/legacy.dof", "rb").read(), "enabling 1"),
        (open(w + "/legacy-msb.dof", "rb").read(), None)]
got = [(bytes.fromhex(x["data"]["hex"]), x.get("name")) for x in d]
if got != want:
    sys.exit("dof items %r" % [(len(b), n) for b, n in got])
if its[0]["version"] != [1, 4]:
    sys.exit("header version %r" % its[0]["version"])
EOF
); then
	ok "synth: dof items hold the files' bytes and names, version 1.4"
else
	not_ok "synth: dof items hold the files' bytes and names, version 1.4" "$why"
fi
# dtsnap dof CAPTURE: each item listed as dtsnap dof lists its file; the
# first line names the capture and the item instead of the file
set -- $(grep -n '"t":"dof"' "$work/two.lines" | cut -d: -f1)
i1=$(($1 - 1)) i2=$(($2 - 1))
{
	"$DTSNAP" dof "$work/legacy.dof" |
	    sed "1s|^$work/legacy.dof:|$work/two.dtsnap item $i1 (enabling 1):|"
	echo
	"$DTSNAP" dof "$work/legacy-msb.dof" |
	    sed "1s|^$work/legacy-msb.dof:|$work/two.dtsnap item $i2:|"
} >"$work/two.want"
"$DTSNAP" dof "$work/two.dtsnap" >"$work/two.got" 2>"$work/two.err"
rc=$?
if [ $rc = 0 ] && [ ! -s "$work/two.err" ] &&
    cmp -s "$work/two.want" "$work/two.got"; then
	ok "dof CAPTURE: every dof item listed as its DOF file is"
else
	not_ok "dof CAPTURE: every dof item listed as its DOF file is" "rc $rc" \
	    "$(head -n 3 "$work/two.err")" \
	    "$(diff "$work/two.want" "$work/two.got" | head -n 10)"
fi
"$DTSNAP" dof -f json "$work/two.dtsnap" >"$work/two.json.out" 2>/dev/null
"$DTSNAP" dof -f json "$work/legacy.dof" >"$work/l.json" 2>/dev/null
"$DTSNAP" dof -f json "$work/legacy-msb.dof" >"$work/lm.json" 2>/dev/null
if why=$("$PY" - "$work" "$i1" "$i2" 2>&1 <<'EOF'
import json, sys
w, i1, i2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
got = json.load(open(w + "/two.json.out"))
want = [json.load(open(w + "/l.json")), json.load(open(w + "/lm.json"))]
if [x["item"] for x in got["items"]] != [i1, i2]:
    sys.exit("items %r" % [x["item"] for x in got["items"]])
if [x["dof"] for x in got["items"]] != want:
    sys.exit("the items' DOF differs from the files'")
b = open(w + "/two.dtsnap", "rb").read()
dof = open(w + "/legacy.dof", "rb").read()
at = got["items"][0]["data_offset"]
if b[at:at + len(dof)] != dof:
    sys.exit("data_offset %d is not where the DOF is" % at)
EOF
); then
	ok "dof -f json CAPTURE: each item's dof equals the file's, data_offset is where it is"
else
	not_ok "dof -f json CAPTURE: each item's dof equals the file's, data_offset is where it is" "$why"
fi
# decoders check dof items and drop them: the trace is the same
"$DTCONSUME" "$work/none.dtsnap" >"$work/none.out" 2>&1
"$DTCONSUME" "$work/two.dtsnap" >"$work/two.out" 2>&1
rc=$?
if [ $rc = 0 ] && [ -s "$work/none.out" ] && cmp -s "$work/none.out" "$work/two.out"; then
	ok "dtconsume: dof items change nothing of the trace"
else
	not_ok "dtconsume: dof items change nothing of the trace" "rc $rc" \
	    "$(diff "$work/none.out" "$work/two.out" | head -n 5)"
fi

# a truncated DOF item: its DOF's first 1000 bytes of 1700
head -c 1000 "$work/legacy.dof" >"$work/cut.dof"
desc '{"file": "cut.dof"}, {"file": "legacy-msb.dof"}' >"$work/cut.json"
"$DTSNAP" synth "$work/cut.json" -o "$work/cut.dtsnap" || exit 99
items "$work/cut.dtsnap" >"$work/cut.lines"
ci=$(($(grep -n '"t":"dof"' "$work/cut.lines" | head -n 1 | cut -d: -f1) - 1))
base=$("$PY" -c 'import sys; print(open(sys.argv[1], "rb").read().find(b"\x7fDOF"))' \
    "$work/cut.dtsnap")
# the raw file's problems, each located in the capture instead
"$DTSNAP" dof "$work/cut.dof" >/dev/null 2>"$work/cut.raw.err"
nraw=$(wc -l <"$work/cut.raw.err")
sed -n "s|^dtsnap: $work/cut.dof: offset \([0-9]*\): \(.*\)|\1 \2|p" \
    "$work/cut.raw.err" | while read -r off text; do
	echo "dtsnap: $work/cut.dtsnap: item $ci, offset $((base + off)): dof item, DOF offset $off: $text"
done >"$work/cut.want.err"
"$DTSNAP" dof "$work/cut.dtsnap" >"$work/cut.got" 2>"$work/cut.err"
rc=$?
if [ $rc = 1 ] && [ "$nraw" -gt 1 ] && cmp -s "$work/cut.want.err" "$work/cut.err"; then
	ok "truncated dof item: its problems name the capture, the item and byte offsets"
else
	not_ok "truncated dof item: its problems name the capture, the item and byte offsets" \
	    "rc $rc" "$(diff "$work/cut.want.err" "$work/cut.err" | head -n 6)"
fi
# the intact item after it: listed as in two.dtsnap (its item number aside)
sed -n '/^.*item [0-9]*: DOF version 2, LP64, MSB/,$p' "$work/two.got" |
    sed '1s|^.*item [0-9]*:||' >"$work/msb.want"
sed -n '/^.*item [0-9]*: DOF version 2, LP64, MSB/,$p' "$work/cut.got" |
    sed '1s|^.*item [0-9]*:||' >"$work/msb.got"
if [ -s "$work/msb.want" ] && cmp -s "$work/msb.want" "$work/msb.got"; then
	ok "truncated dof item: the next dof item still listed whole"
else
	not_ok "truncated dof item: the next dof item still listed whole" \
	    "$(diff "$work/msb.want" "$work/msb.got" | head -n 5)"
fi
"$DTCONSUME" "$work/cut.dtsnap" >"$work/cut.out" 2>"$work/cut.dec.err"
rc=$?
first=$(sed -n '1s/^dtsnap: //p' "$work/cut.want.err")
if [ $rc = 1 ] && cmp -s "$work/none.out" "$work/cut.out" &&
    [ "$(cat "$work/cut.dec.err")" = "dtconsume: $first (and $((nraw - 1)) more problems)" ]; then
	ok "truncated dof item: dtconsume reports it once, located, and decodes the rest"
else
	not_ok "truncated dof item: dtconsume reports it once, located, and decodes the rest" \
	    "rc $rc" "$(cat "$work/cut.dec.err")" \
	    "$(diff "$work/none.out" "$work/cut.out" | head -n 3)"
fi

# version 1.4: a capture with a program item (the recorded one of
# testdata/program/vars) and a dof item after it
pcap="$top_srcdir/testdata/program/vars/cap.dtsnap"
items "$pcap" >"$work/prog.lines"
"$DTCONSUME" "$pcap" >"$work/prog.out" 2>"$work/prog.err"
"$DTSNAP" program "$pcap" >"$work/prog.prog" 2>&1
"$DTSNAP" dof "$work/legacy.dof" 2>/dev/null | sed '1s|^[^:]*:||' >"$work/l.txt"
# ver SUFFIX MINOR: it as version 1.MINOR, with the kinds program and dof
# spelled programSUFFIX and dofSUFFIX
ver() {
	"$PY" - "$work" "$1" "$2" >"$work/v.lines" <<'EOF' &&
import json, sys
w, suf, minor = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = []
for l in open(w + "/prog.lines"):
    x = json.loads(l)
    if x["t"] == "dtsnap":
        x["version"] = [1, minor]
    if x["t"] == "program":
        out.append(dict(x, t="program" + suf))
        x = {"t": "dof" + suf, "seq": 0,
             "data": {"hex": open(w + "/legacy.dof", "rb").read().hex()}}
    out.append(x)
for i, x in enumerate(out):
    x["seq"] = i
    print(json.dumps(x, separators=(",", ":")))
EOF
	"$DTSNAP" convert -f cbor "$work/v.lines" -o "$work/v$1$2.dtsnap"
}
ver "" 4 || exit 99
"$DTCONSUME" "$work/v4.dtsnap" >"$work/v4.out" 2>"$work/v4.err"
rc=$?
"$DTSNAP" program "$work/v4.dtsnap" >"$work/v4.prog" 2>&1
"$DTSNAP" dof "$work/v4.dtsnap" 2>&1 | sed '1s|^[^:]*:||' >"$work/v4.dof"
if [ $rc = 0 ] && [ ! -s "$work/v4.err" ] && [ -s "$work/prog.out" ] &&
    cmp -s "$work/prog.out" "$work/v4.out" &&
    cmp -s "$work/prog.prog" "$work/v4.prog" && cmp -s "$work/l.txt" "$work/v4.dof"
then
	ok "1.4 with program and dof items: decoded as without them, both still read"
else
	not_ok "1.4 with program and dof items: decoded as without them, both still read" \
	    "rc $rc" "$(cat "$work/v4.err")" "$(diff "$work/prog.prog" "$work/v4.prog" | head -n 3)" \
	    "$(diff "$work/l.txt" "$work/v4.dof" | head -n 3)"
fi
# what a 1.3 reader meets in a 1.4 capture (kinds it does not know, in a
# capture newer than itself) this reader meets in a 1.5 capture with the
# kinds renamed: skipped silently, the rest decoded as before; the same
# kinds in a 1.4 capture are reported (so the silence is the version's)
ver x 5 && ver x 4 || exit 99
"$DTCONSUME" "$work/vx5.dtsnap" >"$work/vx5.out" 2>"$work/vx5.err"
rc=$?
"$DTCONSUME" "$work/vx4.dtsnap" >/dev/null 2>"$work/vx4.err"
if [ $rc = 0 ] && [ ! -s "$work/vx5.err" ] && cmp -s "$work/prog.out" "$work/vx5.out" &&
    grep -q "of kind 'programx', which no capture of version 1.4 has; skipped" "$work/vx4.err" &&
    grep -q "of kind 'dofx', which no capture of version 1.4 has; skipped" "$work/vx4.err"; then
	ok "an older reader's view: kinds of a newer minor skipped silently, the rest intact"
else
	not_ok "an older reader's view: kinds of a newer minor skipped silently, the rest intact" \
	    "rc $rc" "$(cat "$work/vx5.err")" "$(cat "$work/vx4.err")"
fi

# 3. dtrace -G (dtrace-utils)
DTRACE=${DTRACE:-/var/tmp/dtrace-utils/dtrace}
if [ ! -x "$DTRACE" ]; then
	echo "# SKIP dtrace -G cases: no dtrace-utils dtrace at $DTRACE"
	finish
fi
if ! command -v cc >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1; then
	echo "# SKIP dtrace -G cases: no cc or readelf"
	finish
fi
[ -r "$(dirname "$DTRACE")/env" ] && . "$(dirname "$DTRACE")/env"
if [ -z "${SHOWUSDT+set}" ]; then
	for SHOWUSDT in "$(dirname "$DTRACE")"/inst/usr/share/doc/dtrace*/showUSDT \
	    "$(dirname "$DTRACE")/src/build/showUSDT" ""; do
		[ -x "$SHOWUSDT" ] && break
	done
fi
[ -n "$SHOWUSDT" ] ||
	echo "# SKIP the showUSDT comparisons: dtrace-utils' showUSDT not found"
cc -c -x c -o "$work/nodof.o" - <<'EOF'
int f(void) { return 0; }
EOF
"$DTSNAP" dof "$work/nodof.o" >/dev/null 2>"$work/nodof.err"
if [ $? = 1 ] && grep -q "no .SUNW_dof section" "$work/nodof.err"; then
	ok "ELF without .SUNW_dof: refused with a reason"
else
	not_ok "ELF without .SUNW_dof: refused with a reason" "$(cat "$work/nodof.err")"
fi
for t in "$top_srcdir"/testdata/dof/usdt-*.d; do
	name=$(basename "$t" .d)
	cp "$t" "$work/$name.d"
	if ! (cd "$work" && "$DTRACE" -h -s "$name.d" -o "$name.h" &&
	    cc -c -o "$name.o" -I. -x c "$top_srcdir/testdata/dof/$name.c" &&
	    readelf -rsW "$name.o" >"$name.readelf" &&
	    "$DTRACE" -G -s "$name.d" -o "$name-dof.o" "$name.o") \
	    >"$work/$name.log" 2>&1; then
		not_ok "$name: dtrace -G" "$(tail -n 3 "$work/$name.log")"
		continue
	fi
	if ! "$DTSNAP" dof -f json "$work/$name-dof.o" >"$work/$name.json" \
	    2>"$work/$name.err" || [ -s "$work/$name.err" ]; then
		not_ok "$name: dtsnap dof" "$(cat "$work/$name.err")"
		continue
	fi
	if why=$("$PY" "$top_srcdir/cmd/tests/dofcheck.py" "$work/$name.d" \
	    "$work/$name.readelf" "$work/$name.json" 2>&1); then
		ok "$name: providers, probes, arguments, offsets ($why)"
	else
		not_ok "$name: providers, probes, arguments, offsets" "$why"
	fi
	# dtrace-utils' own DOF reader, which needs no dtprobed (and so no
	# CUSE): its test utility showUSDT, installed with its documentation
	if [ -n "$SHOWUSDT" ]; then
		"$SHOWUSDT" "$work/$name-dof.o" >"$work/$name.show" 2>&1
		if why=$("$PY" - "$work/$name.show" "$work/$name.json" 2>&1 <<'EOF'
import json, re, sys
show, prov = [], None
for line in open(sys.argv[1]):
    m = re.match(r"    Provider '(.*)' with (\d+) probes:$", line)
    if m:
        prov = m.group(1)
        continue
    m = re.match(r"      Probe \d+: (.*?):(.*?):(.*?):(.*)$", line)
    if m:
        if m.group(1) != prov:
            sys.exit("showUSDT: probe %r under provider %r" % (line, prov))
        show.append({"provider": prov, "function": m.group(3),
                     "name": m.group(4), "offsets": [], "enabled": [],
                     "addr": None})
        continue
    m = re.match(r"        argc (\d+) noffs (\d+) nenoffs (\d+)$", line)
    if m:
        show[-1]["argc"], show[-1]["noffs"], show[-1]["nenoffs"] = \
            map(int, m.groups())
        continue
    m = re.match(r"          (Regular|Is-Enabled) probe at 0x([0-9a-f]+) "
                 r"\+ 0x([0-9a-f]+) = ", line)
    if m:
        show[-1]["addr"] = int(m.group(2), 16)
        show[-1]["offsets" if m.group(1) == "Regular" else "enabled"] \
            .append(int(m.group(3), 16))
if not show:
    sys.exit("showUSDT listed no probe")
got = [{"provider": p["provider"], "function": p["function"],
        "name": p["name"], "offsets": p["offsets"],
        "enabled": p["enabled_offsets"], "argc": len(p["native_args"]),
        "noffs": len(p["offsets"]), "nenoffs": len(p["enabled_offsets"]),
        "addr": p["address"]} for p in json.load(open(sys.argv[2]))["probes"]]
if len(show) != len(got):
    sys.exit("showUSDT %d probes, dtsnap %d" % (len(show), len(got)))
# (a probe without offset lines shows no address: None, not compared)
for s, g in zip(show, got):
    for k in s:
        if s[k] is not None and s[k] != g[k]:
            sys.exit("%s:%s:%s %s: showUSDT %r, dtsnap %r" % (
                s["provider"], s["function"], s["name"], k, s[k], g[k]))
print("%d probes" % len(show))
EOF
		); then
			ok "$name: every probe field as dtrace-utils' showUSDT reads it ($why)"
		else
			not_ok "$name: every probe field as dtrace-utils' showUSDT reads it" "$why"
		fi
	fi
done
finish
