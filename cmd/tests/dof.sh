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
#     sites readelf finds in the object before dtrace -G rewrites it
#  4. no DOF: a file that is neither ELF nor DOF, and an ELF object
#     without .SUNW_dof, fail with a reason
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
done
finish
