#!/usr/bin/env python3
"""dofgen.py - legacy DOF objects for cmd/tests/dof.sh, built from the
OpenDTrace specification's tables (chapter 6: dof_hdr_t, dof_sec_t,
dof_ecbdesc_t, dof_probedesc_t, dof_actdesc_t, dof_difohdr_t,
dof_relohdr_t, dof_relodesc_t; chapters 7-8: the DIF instruction formats,
dtrace_difv_t, dtrace_diftype_t), with Python's struct and nothing of
dtconsume's.

  dofgen.py DIR     writes DIR/NAME.dof for every case below and
                    DIR/facts.json: the offsets and sizes this script laid
                    out, which dof.sh compares with what dtsnap reads

Cases: "legacy" (one ECB of dtrace:::BEGIN with a predicate and three
actions; a DIFO holding every DIF opcode once, with string, integer and
variable tables and kernel and user relocations; a predicate DIFO calling
three subroutines), "legacy-msb" (the same, big-endian), and damaged
copies of "legacy", each with one fault whose byte offset facts.json
gives.
"""
import json
import os
import struct
import sys

# section types (sys/dtrace.h DOF_SECT_*)
STRTAB, PROBEDESC, DIF, INTTAB, VARTAB, DIFOHDR = 8, 4, 7, 19, 9, 6
RELTAB, KRELHDR, URELHDR, ACTDESC, ECBDESC = 10, 13, 12, 5, 3
NONE = 0xffffffff


def ins(op, a=1, b=2, c=3):
    """DIF_INSTR_FMT(op, r1, r2, rd)"""
    return op << 24 | a << 16 | b << 8 | c


def ins16(op, v, c):
    """the 16-bit index forms: setx, sets, ldv/stv, call, xlate"""
    return op << 24 | v << 8 | c


# The main DIFO: opcodes 1-80 in order, then three illegal ones.
DIFSTR = b"\0x\0t\0l\0a\0args\0ta\0hello\0kname\0uname\0"
HELLO = DIFSTR.index(b"hello")
KNAME = DIFSTR.index(b"kname")
UNAME = DIFSTR.index(b"uname")
MAIN = []
for op in range(1, 81):
    if 17 <= op <= 27:                       # branches: a label
        MAIN.append(op << 24 | 5)
    elif op == 37:                           # setx DT_INTEGER[1]
        MAIN.append(ins16(op, 1, 3))
    elif op == 38:                           # sets DT_STRING["hello"]
        MAIN.append(ins16(op, HELLO, 3))
    elif op == 40:                           # ldga: variable 0 in r1
        MAIN.append(ins(op, 0, 2, 3))
    elif op == 43:                           # ldta: variable 4 in r1
        MAIN.append(ins(op, 4, 2, 3))
    elif op in (41, 42):                     # ldgs, stgs x
        MAIN.append(ins16(op, 0x500, 3 if op == 41 else 1))
    elif op in (44, 45):                     # ldts, stts t
        MAIN.append(ins16(op, 0x501, 3 if op == 44 else 1))
    elif op in (52, 54):                     # ldgaa, stgaa a
        MAIN.append(ins16(op, 0x503, 3 if op == 52 else 1))
    elif op in (53, 55):                     # ldtaa, sttaa ta
        MAIN.append(ins16(op, 0x504, 3 if op == 53 else 1))
    elif op in (56, 57):                     # ldls, stls l
        MAIN.append(ins16(op, 0x502, 3 if op == 56 else 1))
    elif op == 47:                           # call strjoin
        MAIN.append(ins16(op, 23, 3))
    elif op == 48:                           # pushtr string
        MAIN.append(ins(op, 1, 2, 3))
    elif op == 49:                           # pushtv D type
        MAIN.append(ins(op, 0, 0, 3))
    elif op in (78, 79):                     # xlate, xlarg
        MAIN.append(ins16(op, 1, 3))
    elif op == 80:                           # stga
        MAIN.append(ins(op, 0, 2, 3))
    else:
        MAIN.append(ins(op))
MAIN += [0x00000000, 0x51010203, 0xff000001]

# The predicate: rand(), strtoll(), subroutine 49 (none), ret.
PRED = [ins16(47, 0, 1), ins16(47, 48, 2), ins16(47, 49, 3), ins(35, 0, 0, 3)]

INTS = [42, 0xffffffffffffffff]


def difv(name, vid, kind, scope, flags, tkind, tckind, tflags, tsize):
    return (name, vid, kind, scope, flags, tkind, tckind, tflags, tsize)


VARS = [
    difv(DIFSTR.index(b"x\0"), 0x500, 1, 0, 3, 0, 1, 0, 8),
    difv(DIFSTR.index(b"t\0"), 0x501, 1, 1, 1, 1, 0, 1, 256),
    difv(DIFSTR.index(b"l\0"), 0x502, 1, 2, 2, 0, 3, 0, 8),
    difv(DIFSTR.index(b"a\0"), 0x503, 0, 0, 0, 0, 6, 1, 24),
    difv(DIFSTR.index(b"args"), 0, 0, 0, 5, 0, 1, 2, 8),
    difv(DIFSTR.index(b"ta"), 0x504, 0, 1, 3, 0, 8, 0, 4),
]

ECBSTR = b"\0dtrace\0\0BEGIN\0hello %d\0"
PSTR = b"\0prov\0fn\0pr\0int\0char *\0string\0"
PROBES, PRARGS, PROFFS, PRENOFFS, PROVIDER = 16, 17, 18, 26, 15


class Dof:
    """Sections are appended in order, each aligned; then the header and
    section table are put in front."""

    def __init__(self, end):
        self.e = end
        self.secs = []      # [type, align, flags, entsize, data]

    def add(self, typ, data, align=8, entsize=0, flags=1):
        self.secs.append([typ, align, flags, entsize, data])
        return len(self.secs) - 1

    def u32(self, *v):
        return struct.pack(self.e + "%dI" % len(v), *v)

    def build(self):
        n = len(self.secs)
        off = 64 + 32 * n
        body = b""
        self.offsets = []
        for typ, align, flags, ent, data in self.secs:
            pad = (-(off + len(body))) % align
            body += b"\0" * pad
            self.offsets.append(off + len(body))
            body += data
        total = off + len(body)
        hdr = bytes([0x7f, ord("D"), ord("O"), ord("F"), 2,
                     1 if self.e == "<" else 2, 2, 2, 8, 8]) + b"\0" * 6
        hdr += struct.pack(self.e + "4I4Q", 0, 64, 32, n, 64, total, total,
                           0)
        tab = b""
        for (typ, align, flags, ent, data), o in zip(self.secs,
                                                      self.offsets):
            tab += struct.pack(self.e + "4I2Q", typ, align, flags, ent, o,
                               len(data))
        return bytearray(hdr + tab + body)


def legacy(e):
    d = Dof(e)
    p = lambda fmt, *v: struct.pack(e + fmt, *v)
    s_str = d.add(STRTAB, ECBSTR, 1)
    s_pd = d.add(PROBEDESC, p("6I", s_str, ECBSTR.index(b"dtrace"),
                              ECBSTR.index(b"\0\0") + 1,
                              ECBSTR.index(b"\0\0") + 1,
                              ECBSTR.index(b"BEGIN"), 0), 4)
    s_dif = d.add(DIF, p("%dI" % len(MAIN), *MAIN), 4, 4)
    s_dstr = d.add(STRTAB, DIFSTR, 1)
    s_int = d.add(INTTAB, p("%dQ" % len(INTS), *INTS), 8, 8)
    s_var = d.add(VARTAB, b"".join(p("2I2BH4BI", v[0], v[1], v[2], v[3],
                                      v[4], v[5], v[6], v[7], 0, v[8])
                                    for v in VARS), 4, 20)
    s_difo = d.add(DIFOHDR, p("4BI4I", 0, 1, 0, 0, 8, s_dif, s_dstr, s_int,
                              s_var), 4)
    s_krt = d.add(RELTAB, p("2I2Q", KNAME, 1, 16, 7) +
                  p("2I2Q", KNAME, 0, 24, 0), 8, 24)
    d.add(KRELHDR, p("3I", s_dstr, s_krt, s_difo), 4)
    s_urt = d.add(RELTAB, p("2I2Q", UNAME, 1, 8, 0xffffffff), 8, 24)
    d.add(URELHDR, p("3I", s_dstr, s_urt, s_difo), 4)
    s_pdif = d.add(DIF, p("%dI" % len(PRED), *PRED), 4, 4)
    s_pred = d.add(DIFOHDR, p("4BI1I", 0, 1, 0, 0, 4, s_pdif), 4)
    s_act = d.add(ACTDESC,
                  p("4I2Q", s_difo, NONE, 1, 0, 0, 0) +
                  p("4I2Q", NONE, s_str, 3, 1,
                    ECBSTR.index(b"hello"), 0) +
                  p("4I2Q", NONE, NONE, 2, 0, 0, 7), 8, 32)
    s_ecb = d.add(ECBDESC, p("4IQ", s_pd, s_pred, s_act, 0, 0x1234), 8)
    # a provider "prov" (DOF version 2 layout, with prenoffs) of one
    # probe fn:pr, native (int, char *), translated (string) from arg 1,
    # offsets 0x10 0x24, is-enabled offset 0x8
    s_pstr = d.add(STRTAB, PSTR, 1)
    s_probes = d.add(PROBES, p("Q6I2BHIHHI", 0x401000, PSTR.index(b"fn"),
                               PSTR.index(b"\0pr\0") + 1, PSTR.index(b"int"),
                               PSTR.index(b"string"), 0, 0, 2, 1, 2, 0, 1,
                               0, 0), 8, 48)
    s_args = d.add(PRARGS, bytes([1]), 1, 1)
    s_offs = d.add(PROFFS, p("2I", 0x10, 0x24), 4, 4)
    s_enoffs = d.add(PRENOFFS, p("I", 0x8), 4, 4)
    attr = lambda n, dd, c: n << 24 | dd << 16 | c << 8
    d.add(PROVIDER, p("11I", s_pstr, s_probes, s_args, s_offs,
                      PSTR.index(b"prov"), attr(5, 5, 5), attr(1, 1, 0),
                      attr(1, 1, 0), attr(5, 5, 5), attr(5, 5, 5),
                      s_enoffs), 4)
    return d


def main():
    out = sys.argv[1]
    facts = {}
    for name, e in (("legacy", "<"), ("legacy-msb", ">")):
        d = legacy(e)
        b = d.build()
        open(os.path.join(out, name + ".dof"), "wb").write(b)
        facts[name] = {"size": len(b), "sections": [
            {"type": s[0], "align": s[1], "flags": s[2], "entsize": s[3],
             "offset": o, "size": len(s[4])}
            for s, o in zip(d.secs, d.offsets)]}
    base = legacy("<")
    good = base.build()
    offs = base.offsets
    sec = lambda i: 64 + 32 * i          # a section header's offset

    def damaged(name, edits, **f):
        b = bytearray(good)
        for at, fmt, v in edits:
            struct.pack_into("<" + fmt, b, at, v)
        open(os.path.join(out, name + ".dof"), "wb").write(b)
        facts[name] = f

    # section 4 (inttab): size past the end of the file
    damaged("bad-size", [(sec(4) + 24, "Q", 1 << 40)], at=sec(4))
    # the probe description's name string outside its string table
    damaged("bad-string", [(offs[1] + 16, "I", 4000)], at=offs[1] + 16)
    # the predicate DIFO header links to itself (a loop), and the
    # exit action's DIFO is the ECB description
    damaged("loop", [(offs[12] + 8, "I", 12),
                     (offs[13] + 64, "I", 14)],
            at=offs[12] + 8, at2=offs[13] + 64)
    # an absurd section count
    damaged("bad-secnum", [(28, "I", 0xffffffff)], at=28)
    # an action table whose entries are smaller than an actdesc
    damaged("bad-entsize", [(sec(13) + 12, "I", 8)], at=sec(13))
    # absurd counts: 65535 offsets from index 0 of a two-entry table;
    # 255 native arguments from a string table of six strings
    damaged("bad-count", [(offs[16] + 34, "H", 0xffff)], at=offs[16] + 28)
    damaged("bad-nargc", [(offs[16] + 32, "B", 255)], at=offs[16] + 16)
    # a second provider linking the first one's probes section: read
    # once (listing it twice would let a few bytes allocate without end)
    d = legacy("<")
    d.add(PROVIDER, d.secs[20][4], 4)
    b = d.build()
    open(os.path.join(out, "shared-probes.dof"), "wb").write(b)
    facts["shared-probes"] = {"at": d.offsets[21] + 4}
    json.dump(facts, open(os.path.join(out, "facts.json"), "w"), indent=1)


main()
