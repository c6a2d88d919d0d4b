#!/usr/bin/python3
"""gen_esc.py - the esc-* cases of testdata/bad/: hostile capture text.

Each case puts terminal controls in text a capture carries (an option
name, the kind of its first item, a system() command, a probe name) where
dtconsume quotes it in a message of its own.  The messages must show
every control byte, DEL, every UTF-8 C1 control and every byte that is
not well-formed UTF-8 as \\xNN, and keep printable ASCII and well-formed
UTF-8 as they are (cmd/cli.c explains the form), while standard output
keeps the bytes dtrace(1) prints as they are.

The layout is gen.py's (its Base capture and helpers, imported); the
expected messages are written out here by hand, escapes and all, not
computed by an escaping function, so that they check the escaping rather
than restate it.  Run with /usr/bin/python3 (python3-cbor2):
    /usr/bin/python3 testdata/bad/gen_esc.py [outdir]
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import (ACT_DIFEXPR, ACT_PRINTF, Base, enc, insert_before,  # noqa
                 item, layout, msg, rec, rechdr, set_buf, with_item)

import cbor2  # noqa: E402

ACT_SYSTEM = 0x0203

# A screen clear, a window title, a bell, a carriage return: what a
# hostile capture would send a terminal.
CLEAR = "\x1b[2J"
TITLE = "\x1b]0;owned\x07"

CASES = []
case = gen.case_registry(CASES)


@case("esc-option-name", "the options item names an option \"ESC [2J, "
      "ESC ]0;owned BEL, CR, LF, e-acute, TAB\" with value \"DEL\": the "
      "refusal quotes both escaped, on one line; quiet still applies")
def c_option_name(b):
    name = CLEAR + TITLE + "a\rb\nc\u00e9\t"
    with_item(b, "options", options={"quiet": "set", name: "\x7f"})
    i = b.i("options")
    o = b.off("options") + enc(b.items[i]).find(cbor2.dumps(name))
    shown = r"\x1b[2J\x1b]0;owned\x07a\x0db\x0ac" + "\u00e9" + r"\x09"
    return layout(b.items)[0], msg(i, None, o, "options item: couldn't set "
                                   "option \"" + shown + "\" to \"\\x7f\": "
                                   "Invalid option name"), b.stdout(), 1


@case("esc-first-kind", "the first item's kind holds ESC ]0;owned BEL, "
      "LF, the C1 control U+009B (C2 9B), a lone 9B, FF, e-acute and a "
      "character cut short (E2 82): the refusal shows every byte but "
      "e-acute as \\xNN")
def c_first_kind(b):
    # CBOR text strings are UTF-8 by RFC 8949, not by this reader: the
    # bytes are laid down by hand
    kind = (TITLE.encode() + b"\nforged line\xc2\x9b\x9b\xff" +
            "\u00e9".encode() + b"\xe2\x82")
    assert 24 <= len(kind) < 256
    first = b"\xa1" + cbor2.dumps("t") + bytes([0x78, len(kind)]) + kind
    shown = (r"\x1b]0;owned\x07\x0aforged line\xc2\x9b\x9b\xff" +
             "\u00e9" + r"\xe2\x82")
    return first + layout(b.items[1:])[0], \
        msg(0, None, 0, "not a dtsnap capture: its first item is of kind '" +
            shown + "', not the dtsnap header"), "", 1


def add_probe(b, pid, provider, function, name, epid, size, recs, fmts=()):
    """A probe, the format items and an enabled probe, before agg1."""
    new = [item("probe", id=pid, provider=provider, module="",
                function=function, name=name)]
    new += [item("format", id=f, string=s) for f, s in fmts]
    new.append(item("eprobe", epid=epid, probe=pid, uarg=0, size=size,
                    recs=recs))
    insert_before(b, "agg1", *new)


@case("esc-system", "a clause on CPU 0 in pass 1 runs system() with ESC "
      "[2J, ESC ]0;owned BEL, CR and e-acute in the command, then printf "
      "(\"%s|\\n\") of a string holding ESC [31m: the notice escapes the "
      "command; standard output keeps dtrace's raw bytes")
def c_system(b):
    # profile:::tick-1s { system("CMD"); printf("%s|\n", s); } with a
    # 16-byte string: the system() record is the 8-byte 0 of an argument
    # list that is empty, at 16 (8-aligned after the 12-byte header); the
    # string at 24 (its size is a multiple of 8); 40 bytes in all
    cmd = CLEAR + TITLE + "rm -rf ~\r" + "caf\u00e9"
    red = b"\x1b[31mred\x1b[0m"
    add_probe(b, 5, "profile", "", "tick-1s", 5, 40,
              [rec(ACT_SYSTEM, 8, 16, fmt=5, uarg=1),
               rec(ACT_PRINTF, 16, 24, fmt=6, uarg=2)],
              fmts=((5, cmd), (6, "%s|\n")))
    d = b.items[b.i("buf1.0")]["data"]
    r = rechdr(5, 105) + b"\0" * 4 + struct.pack("<q", 0) + \
        red + b"\0" * (16 - len(red))
    # after BEGIN's record (16 bytes): consumed second on CPU 0
    set_buf(b, "buf1.0", d[:16] + r + d[16:])
    out = b.stdout()
    assert out.startswith("hello from BEGIN\n")
    out = "hello from BEGIN\n" + red.decode() + "|\n" + \
        out[len("hello from BEGIN\n"):]
    err = ("dtconsume: system() not executed: "
           r"\x1b[2J\x1b]0;owned\x07rm -rf ~\x0d" + "caf\u00e9\n")
    return layout(b.items)[0], err, out, 0


@case("esc-system-newline", "a clause on CPU 0 in pass 1 runs system() "
      "with a command of two lines, the second made to look like a message "
      "of dtconsume's: the notice stays one line (the inner newline as "
      "\\x0a), the command's final newline ends it")
def c_system_newline(b):
    # profile:::tick-1s { system("echo a\ndtconsume: forged\n"); }: the
    # system() record is the 8-byte 0 of an empty argument list at 16
    # (8-aligned after the 12-byte header); 24 bytes in all
    cmd = "echo a\ndtconsume: input.dtsnap: forged line\n"
    add_probe(b, 5, "profile", "", "tick-1s", 5, 24,
              [rec(ACT_SYSTEM, 8, 16, fmt=5, uarg=1)], fmts=((5, cmd),))
    d = b.items[b.i("buf1.0")]["data"]
    r = rechdr(5, 105) + b"\0" * 4 + struct.pack("<q", 0)
    set_buf(b, "buf1.0", d[:16] + r + d[16:])
    err = ("dtconsume: system() not executed: echo a"
           r"\x0a" + "dtconsume: input.dtsnap: forged line\n")
    return layout(b.items)[0], err, b.stdout(), 0


@case("esc-probe-name", "the ERROR enabling reports a fault in a clause "
      "of a probe whose function and name hold ESC [2J, BEL and CR: "
      "dtrace's error line names it escaped")
def c_probe_name(b):
    # the faulting clause never fires; only its probe is named
    add_probe(b, 5, "syscall", "open" + CLEAR, "en\x07try\r", 5, 16,
              [rec(ACT_PRINTF, 4, 12, fmt=gen.FMT_HELLO, uarg=1)])
    # libdtrace's ERROR enabling: five 8-byte records from offset 16
    insert_before(b, "agg1",
                  item("probe", id=6, provider="dtrace", module="",
                       function="", name="ERROR"),
                  item("eprobe", epid=6, probe=6, uarg=1, size=56,
                       recs=[rec(ACT_DIFEXPR, 8, 16 + 8 * k, uarg=1)
                             for k in range(5)]))
    d = b.items[b.i("buf2.0")]["data"]
    # epid 5, action #1, DIF offset 12, fault 1 (invalid address), 0x0
    e = rechdr(6, 205) + b"\0" * 4 + struct.pack("<QQQQQ", 5, 1, 12, 1, 0)
    set_buf(b, "buf2.0", e + d)
    # dt_handle_err's "error on enabled probe ID %u (ID %u: %s): %s in
    # %s%s", after dtrace(1)'s "dtrace: "
    err = ("dtrace: error on enabled probe ID 5 (ID 5: syscall::open"
           r"\x1b[2J:en\x07try\x0d): invalid address (0x0) in action #1 at "
           "DIF offset 12\n")
    return layout(b.items)[0], err, b.stdout(), 0


def main():
    gen.write_cases(CASES, gen.outdir_arg(), "esc-")


if __name__ == "__main__":
    main()
