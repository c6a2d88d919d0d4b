"""When a record is a string: the batch reader's rule at its edges.

A trace() record of a string type, or a printf() argument, is a string
when dtrace would print it as one (libdtrace's dt_print_bytes): printable
bytes (isprint, isspace, \\a, \\b) up to a NUL that is not the first byte,
then only NULs; or printable bytes filling the record.  Anything else is
bytes.  The batch reader (libdtconsume/read/batch.c: string_len) decides
this with word-at-a-time and vector scans, so its edges are tested here
on records written by dtsnap synth: a NUL first, every kind of byte
before the NUL, and one non-zero byte at every offset of the tail (every
position in a word, and the last byte).  The expected value comes from
the rule written out below, byte by byte, and from the event iterator
(formats/model.c, a separate implementation of the same rule).
"""

import json
import os
import unittest

import dtconsume
import util

SIZE = 72               # nine words: a tail that spans several of them


def printable(c):
    # C's isprint/isspace in the C locale, and \a \b
    return 0x20 <= c <= 0x7e or 9 <= c <= 13 or c in (7, 8)


def expected(b):
    """dt_print_bytes's decision, byte by byte: str or bytes."""
    for i, c in enumerate(b):
        if printable(c):
            continue
        if c == 0 and i > 0 and all(x == 0 for x in b[i + 1:]):
            return b[:i].decode("latin-1")
        return bytes(b)
    return b.decode("latin-1")


def cases():
    out = []
    out.append(bytes(SIZE))                              # NUL first
    out.append(b"\x01" + bytes(SIZE - 1))
    out.append(b"x" * SIZE)                              # full, no NUL
    out.append(b"x" * (SIZE - 1) + b"\x00")              # NUL last
    out.append(b"x" * (SIZE - 1) + b"\x7f")
    for n in range(1, 20):                               # NUL after 1..19
        out.append(b"a" * n + bytes(SIZE - n))
    # every byte value before the NUL, at word offsets 0, 3, 7 and 8
    for c in range(1, 256):
        for at in (0, 3, 7, 8, 12):
            s = bytearray(b"abcdefghijklmnop")
            s[at] = c
            out.append(bytes(s) + bytes(SIZE - len(s)))
    # one non-zero byte in the tail, at every offset after the NUL
    for n in (1, 5, 8, 13):
        for at in range(n + 1, SIZE):
            for c in (1, 0x80):
                s = bytearray(b"b" * n + bytes(SIZE - n))
                s[at] = c
                out.append(bytes(s))
    return out


class StringRule(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cases = cases()
        desc = {
            "header": {"os": "freebsd", "host": "fixture", "ncpu": 1},
            "options": {"strsize": SIZE, "quiet": 1},
            "probes": [{"id": 1, "provider": "p", "module": "",
                        "function": "", "name": "n"}],
            "eprobes": [{"epid": 1, "probe": 1, "recs": [
                {"trace": "string", "size": SIZE},
                {"printf": "%s\n", "args": ["string"]}]}],
            "passes": [{"bufs": [{"cpu": 0, "records": [
                {"epid": 1, "ts": 100 + i,
                 "data": [{"hex": b.hex()}, [{"hex": b.hex()}]]}
                for i, b in enumerate(cls.cases)]}]}],
            "end": {"exit_status": 0},
        }
        d = util.workdir()
        j = os.path.join(d, "strrule.json")
        cls.cap = os.path.join(d, "strrule.dtsnap")
        with open(j, "w") as f:
            json.dump(desc, f)
        if not util.synth(j, cls.cap):
            raise AssertionError(util.run([util.DTSNAP, "synth", j, "-o",
                                           cls.cap]).stderr.decode())

    def test_records(self):
        recs = list(dtconsume.open(self.cap).records())
        self.assertEqual(len(recs), len(self.cases))
        for b, r in zip(self.cases, recs):
            want = expected(b)
            self.assertEqual(r.values, (want, want), b.hex())
            self.assertIs(type(r.values[0]), type(want), b.hex())

    def test_columns(self):
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("no numpy (Debian: python3-numpy)")
        t = dtconsume.open(self.cap).records(columns=True)[(1, "p:::n")]
        for name in ("trace0", "printf0_arg0"):
            vals = list(t.column(name).values)
            self.assertEqual(vals, [expected(b) for b in self.cases], name)

    def test_events_agree(self):
        """model.c (the events) decides every case the same way."""
        n = 0
        for ev in dtconsume.open(self.cap):
            if ev.get("type") != "probe":
                continue
            b = self.cases[n]
            want = expected(b)
            r = ev["records"][0]
            if isinstance(want, str):
                self.assertEqual(r.get("string"), want, b.hex())
            else:
                self.assertEqual(bytes(r.get("bytes")), want, b.hex())
            n += 1
        self.assertEqual(n, len(self.cases))


if __name__ == "__main__":
    unittest.main()
