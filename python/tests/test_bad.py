"""Damaged captures (testdata/bad) from Python: everything decodable is
yielded, then the documented DecodeError is raised with the location
dt2json reports (file, item, cpu, offset); the batch reader and the
aggregations read the same files without harm.  A crash of the
interpreter would end this run, and make check with it."""

import os
import unittest

import dtconsume
import util


class Damaged(unittest.TestCase):
    def test_events_then_the_error(self):
        n = 0
        for name, path in util.bad_cases(aborted_too=True):
            with self.subTest(case=name):
                want, errs = util.dt2json(path)
                got = []
                try:
                    for ev in dtconsume.open(path):
                        got.append(ev)
                except dtconsume.DecodeError as e:
                    self.assertTrue(errs, "raised, but dt2json was silent")
                    # dtc_error_format's text is dt2json's message,
                    # which escapes what a terminal would obey
                    self.assertEqual(util.cli_escaped(str(e)), errs[0])
                    self.assertEqual([util.cli_escaped(str(x))
                                      for x in e.errors], errs)
                    self.assertEqual(e.file, path)
                    # the location, field by field, as the message says
                    if e.item is not None:
                        self.assertIn(f"item {e.item}", errs[0])
                    if e.offset is not None:
                        self.assertTrue(f"{e.offset:#x}" in errs[0] or
                                        f"{e.offset}" in errs[0])
                    if e.cpu is not None:
                        self.assertIn(f"cpu {e.cpu}", errs[0])
                    n += 1
                else:
                    self.assertEqual(errs, [])
                # everything decodable came before the error
                self.assertIsNone(util.same(want, got))
        self.assertGreater(n, 90)

    def test_batches_and_aggregations_survive(self):
        """The batch reader reports damage to records as dt2json does
        (its warnings are some of dt2json's, in order, with the same
        location); aggregations read the files too."""
        for name, path in util.bad_cases():
            with self.subTest(case=name):
                _, errs = util.dt2json(path)
                cap = dtconsume.open(path, errors="ignore")
                recs = list(cap.records())
                self.assertEqual([r.index for r in recs],
                                 list(range(len(recs))))
                rest = iter(errs)
                for e in cap.errors:
                    self.assertTrue(any(util.cli_escaped(str(e)) == x
                                        for x in rest),
                                    f"{e} is not among {errs}")
                a = dtconsume.aggregations(path, errors="ignore")
                self.assertIsInstance(a.text(), str)
                if not util.has_tool("numpy"):
                    t = cap.records(columns=True)
                    self.assertEqual(sum(len(x) for x in t.values()),
                                     len(recs))

    def test_aggregation_text_that_cannot_be_printed(self):
        """diag-agg-quantize-8: dtconsume aborts with "Data record list
        does not match statement"; aggregations().text() raises that
        reason as a DecodeError (not a bare RuntimeError)."""
        d = os.path.join(util.TESTDATA, "bad", "diag-agg-quantize-8")
        with open(os.path.join(d, "stderr"), encoding="utf-8") as f:
            why = f.readline().split("processing aborted: ", 1)[1].strip()
        a = dtconsume.aggregations(os.path.join(d, "input.dtsnap"),
                                   errors="ignore")
        with self.assertRaises(dtconsume.DecodeError) as cm:
            a.text()
        e = cm.exception
        self.assertEqual(e.text, "failed to print aggregations: " + why)
        self.assertEqual(str(e), f"{e.file}: {e.text}")
        self.assertTrue(e.file)
        self.assertEqual(e.code, 16)        # DTC_E_DMISMATCH

    def test_format_not_utf8(self):
        """format-not-utf8: a format whose bytes are not UTF-8 is read as
        Latin-1 everywhere (no UnicodeDecodeError): the events' format and
        the batch columns' are the same str."""
        path = os.path.join(util.TESTDATA, "bad", "format-not-utf8",
                            "input.dtsnap")
        want = "read\u00ff\u00fe fd %d\n"
        fmts = {r["format"] for ev in dtconsume.open(path)
                if ev["type"] == "probe" for r in ev["records"]
                if r["act"] == "printf"}
        self.assertIn(want, fmts)
        recs = list(dtconsume.open(path).records())
        self.assertEqual(len(recs), 9)
        if util.has_tool("numpy"):
            self.skipTest(util.has_tool("numpy"))
        tables = dtconsume.open(path).records(columns=True)
        got = {c.format for t in tables.values() for c in t.columns}
        self.assertIn(want, got)
        self.assertEqual(got - fmts, set())


if __name__ == "__main__":
    unittest.main()
