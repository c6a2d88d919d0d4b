"""Strings in the data model are the strings the text shows (issue 26).

For every real capture of testdata/live/captures, the trace() records and
printf() arguments of the data model, as JSON (dt2json), CBOR (dtconsume
-f cbor), Python events and the batch reader's records give them, are
checked against dtrace(1)'s own output for the same run (expected.out):

- a trace() string must be printed there, in order ("  %-33s" of it when
  the script is not quiet), and a trace() record given as bytes must be
  dumped there in hex (its first row's bytes);
- a printf() argument converted by a plain %s must be a string, and it
  must be inside the printf's message, which must be printed in order.

DTrace v2's copyinstr() leaves the buffer's old bytes after the NUL
(copyinstr_stale): dtrace prints the text up to the NUL, so must the
data model.
"""

import io
import os
import re
import unittest

import dtconsume
import util

LIVE = os.path.join(util.TESTDATA, "live", "captures")
CONV = re.compile(r"%([-+ #0']*)(\*|\d+)?(\.(\*|\d*))?"
                  r"(hh|h|ll|l|L|j|z|t|q)?([a-zA-Z%@])")


def live_captures():
    for name in sorted(os.listdir(LIVE)):
        d = os.path.join(LIVE, name)
        if os.path.exists(os.path.join(d, "cap.dtsnap")) and \
                not os.path.exists(os.path.join(d, "needs-ctf")):
            yield name, d


def script_of(name, d):
    for p in (os.path.join(d, "script.d"),
              os.path.join(util.TESTDATA, "live", "scripts", name + ".d")):
        if os.path.exists(p):
            with open(p, encoding="utf-8", errors="replace") as f:
                return f.read()
    return ""


def plain_s_args(fmt):
    """Indexes of the arguments a %s without precision converts."""
    out, k = [], 0
    for m in CONV.finditer(fmt):
        if m.group(6) == "%":
            continue
        if m.group(2) == "*":
            k += 1
        if m.group(4) == "*":
            k += 1
        if m.group(6) == "s" and m.group(3) is None:
            out.append(k)
        k += 1
    return out


def payload(r):
    """("string", str) or ("bytes", bytes) of a record or argument, None
    for another payload; JSON gives bytes as hex."""
    if "string" in r:
        return ("string", r["string"])
    if "bytes" in r:
        b = r["bytes"]
        return ("bytes", bytes.fromhex(b) if isinstance(b, str) else bytes(b))
    return None


def check_model(tc, name, lines, text, quiet, what):
    """Every string of the model's probe lines against the text."""
    at = 0
    nstr = 0

    def find(chunk, why):
        nonlocal at
        i = text.find(chunk, at)
        tc.assertNotEqual(i, -1, f"{what} {name}: {why}: {chunk[:80]!r} is "
                          f"not in dtrace's output after offset {at}")
        at = i + len(chunk)

    for l in lines:
        if l.get("type") != "probe":
            continue
        for r in l["records"]:
            if r["act"] == "trace":
                p = payload(r)
                if p is None:
                    continue
                if p[0] == "string":
                    nstr += 1
                    find(p[1] if quiet else "  %-33s" % p[1],
                         "a trace() string")
                else:
                    row = " ".join("%02x" % c for c in p[1][:16])
                    find(row, "a trace() record given as bytes")
            elif r["act"] == "printf" and r.get("message") is not None \
                    and "args" in r:
                for k in plain_s_args(r["format"] or ""):
                    if k >= len(r["args"]):
                        continue
                    p = payload(r["args"][k])
                    tc.assertIsNotNone(p, f"{what} {name}: %s argument {k}")
                    tc.assertEqual(p[0], "string",
                                   f"{what} {name}: the %s argument {k} of "
                                   f"{r['format']!r} is given as bytes "
                                   f"({p[1][:40]!r}); dtrace printed "
                                   f"{r['message'][:60]!r}")
                    tc.assertIn(p[1], r["message"], f"{what} {name}")
                    nstr += 1
                find(r["message"], "a printf() message")
    return nstr


def read_text(d):
    with open(os.path.join(d, "expected.out"), "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def is_quiet(name, d):
    return re.search(r"^#pragma D option quiet", script_of(name, d),
                     re.M) is not None


class StringsAsText(unittest.TestCase):
    def test_json(self):
        total = 0
        for name, d in live_captures():
            lines, _ = util.dt2json(os.path.join(d, "cap.dtsnap"))
            total += check_model(self, name, lines, read_text(d),
                                 is_quiet(name, d), "JSON")
        self.assertGreater(total, 100)

    @unittest.skipIf(util.has_tool("cbor2"), util.has_tool("cbor2"))
    def test_cbor(self):
        import cbor2
        for name, d in live_captures():
            p = util.run([util.DTCONSUME, "-f", "cbor",
                          os.path.join(d, "cap.dtsnap")])
            f = io.BytesIO(p.stdout)
            lines = []
            while f.tell() < len(p.stdout):
                lines.append(cbor2.load(f))
            check_model(self, name, lines, read_text(d), is_quiet(name, d),
                        "CBOR")

    def test_python_events(self):
        for name, d in live_captures():
            lines = list(dtconsume.open(os.path.join(d, "cap.dtsnap"),
                                        errors="ignore").events())
            check_model(self, name, lines, read_text(d), is_quiet(name, d),
                        "Python events")

    def test_python_records(self):
        """The batch reader's str and bytes are the model's."""
        for name, d in live_captures():
            path = os.path.join(d, "cap.dtsnap")
            lines, _ = util.dt2json(path)
            rows = util.record_rows(lines)
            recs = list(dtconsume.open(path, errors="ignore").records())
            self.assertEqual(len(recs), len(rows), name)
            for l, r in zip(rows, recs):
                want = util.data_values(l)
                if want is None or r.values is None:
                    continue
                for w, v in zip(want, r.values):
                    if isinstance(w, tuple):
                        self.assertIsInstance(v, bytes, name)
                    elif isinstance(w, str) and isinstance(v, (str, bytes)):
                        self.assertEqual(v, w, name)

    def test_stale_bytes_after_the_nul(self):
        """copyinstr_stale: paths shorter than the one before them."""
        d = os.path.join(LIVE, "copyinstr_stale")
        lines, _ = util.dt2json(os.path.join(d, "cap.dtsnap"))
        got = [r["string"] for l in lines if l["type"] == "probe"
               for r in l["records"] if r["act"] == "trace"]
        want = [s[:s.index("|")] for s in read_text(d).splitlines()
                if s.endswith("|")]
        self.assertEqual(len(got), len(want))
        self.assertEqual(got, [s for s in want])
        self.assertIn("/etc/hostname", got)
        # the batch reader (records(), the columns): the same strings
        recs = list(dtconsume.open(os.path.join(d, "cap.dtsnap")).records())
        self.assertEqual([r.values[0] for r in recs], got)
        self.assertEqual([r.values[1] for r in recs], got)


if __name__ == "__main__":
    unittest.main()
