"""The binding keeps the warnings of a capture as the programs print them
(cmd/decode.c): at most 100 of one kind, DTCONSUME_MAX_WARNINGS of them
when it is set (0: all), and one more DecodeError per kind with the
programs' count line, so that a capture of a million damaged items does
not cost a million DecodeErrors (issue 24).  The reference is dtconsume's
own stderr for the same capture and the same setting."""

import os
import tracemalloc
import unittest

import dtconsume
import util

# {"t": "dtsnap", "version": [1, 3], "byteorder": "little", "model": "LP64"}
HEADER = (b"\xa4\x61t\x66dtsnap\x67version\x82\x01\x03"
          b"\x69byteorder\x66little\x65model\x64LP64")
# an empty map: an item without its key "t" ("required key missing")
DAMAGED = b"\xa0"


def capture(n):
    return HEADER + DAMAGED * n


class Cap:
    """DTCONSUME_MAX_WARNINGS set (or unset: None) for a block."""

    def __init__(self, value):
        self.value = value

    def __enter__(self):
        self.old = os.environ.get("DTCONSUME_MAX_WARNINGS")
        if self.value is None:
            os.environ.pop("DTCONSUME_MAX_WARNINGS", None)
        else:
            os.environ["DTCONSUME_MAX_WARNINGS"] = self.value

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("DTCONSUME_MAX_WARNINGS", None)
        else:
            os.environ["DTCONSUME_MAX_WARNINGS"] = self.old


def program_lines(path, value):
    """dtconsume's warnings for path under the cap value (None: unset)."""
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    env.pop("DTCONSUME_MAX_WARNINGS", None)
    if value is not None:
        env["DTCONSUME_MAX_WARNINGS"] = value
    import subprocess
    p = subprocess.run([util.DTCONSUME, path], capture_output=True, env=env)
    return [l[len("dtconsume: "):] for l in
            p.stderr.decode("utf-8", "replace").splitlines()]


class WarningCap(unittest.TestCase):
    N = 5000

    def setUp(self):
        self.path = os.path.join(util.workdir(), "damaged-%d.dtsnap" % self.N)
        with open(self.path, "wb") as f:
            f.write(capture(self.N))

    def events_errors(self):
        cap = dtconsume.open(self.path, errors="ignore")
        for _ in cap:
            pass
        return [str(e) for e in cap.errors]

    def test_events_as_the_program(self):
        """Events keep what dtconsume prints, line for line: 100 of the
        kind, the missing end item, the count line; 10 with the variable
        at 10; all of them at 0."""
        for value, nkept in ((None, 100), ("10", 10), ("0", self.N)):
            with self.subTest(cap=value), Cap(value):
                got = self.events_errors()
                want = program_lines(self.path, value)
                self.assertEqual(got, want)
                nkind = sum("has no text key 't'" in l for l in got)
                self.assertEqual(nkind, nkept)
                if nkept < self.N:
                    self.assertEqual(
                        got[-1], "%s: %d more warnings like 'required key "
                        "missing' not shown (dtsnap validate -a shows "
                        "them all)" % (self.path, self.N - nkept))
                    self.assertEqual(len(got), nkept + 2)

    def test_records_and_aggregations(self):
        """The batch reader and the aggregations keep no more."""
        with Cap(None):
            cap = dtconsume.open(self.path, errors="ignore")
            self.assertEqual(list(cap.records()), [])
            errs = [str(e) for e in cap.errors]
            self.assertLessEqual(len(errs), 102)
            self.assertIn("%s: %d more warnings like 'required key missing' "
                          "not shown (dtsnap validate -a shows them all)" %
                          (self.path, self.N - 100), errs)
            aggs = dtconsume.open(self.path).aggregations(errors="ignore")
            errs = [str(e) for e in aggs.errors]
            self.assertLessEqual(len(errs), 102)
            self.assertIn("%s: %d more warnings like 'required key missing' "
                          "not shown (dtsnap validate -a shows them all)" %
                          (self.path, self.N - 100), errs)

    def test_a_million_damaged_items(self):
        """A million damaged items: 102 DecodeErrors, and the memory the
        decoding takes stays small (a DecodeError each would be some
        hundreds of MB)."""
        n = 1000000
        path = os.path.join(util.workdir(), "damaged-1m.dtsnap")
        with open(path, "wb") as f:
            f.write(capture(n))
        with Cap(None):
            tracemalloc.start()
            try:
                cap = dtconsume.open(path, errors="ignore")
                for _ in cap:
                    pass
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        self.assertEqual(len(cap.errors), 102)
        self.assertEqual(str(cap.errors[-1]), "%s: %d more warnings like "
                         "'required key missing' not shown (dtsnap validate "
                         "-a shows them all)" % (path, n - 100))
        self.assertLess(peak, 8 << 20)


if __name__ == "__main__":
    unittest.main()
