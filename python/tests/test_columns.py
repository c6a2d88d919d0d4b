"""The batch reader from Python: light records and numpy columns against
dt2json's probe lines (the per-event reader) on every capture of testdata,
damaged ones included, in both orders (plain and temporal)."""

import unittest

import dtconsume
import util

SKIP = util.has_tool("numpy")


def check_records(tc, path, temporal):
    """Records (the batch reader) against dt2json's record sets."""
    lines, _ = util.dt2json(path, *(["--temporal"] if temporal else []))
    rows = util.record_rows(lines)
    recs = list(dtconsume.open(path, temporal=temporal,
                               errors="ignore").records())
    tc.assertEqual(len(recs), len(rows))
    for i, (l, r) in enumerate(zip(rows, recs)):
        tc.assertEqual(r.index, i)
        tc.assertEqual(r.cpu, l["cpu"])
        ts = l["timestamp"] if l["timestamp"] is not None else 0  # v2: none
        tc.assertIsNone(util.same(ts, r.timestamp))
        tc.assertEqual(r.epid, l["epid"])
        tc.assertEqual(r.probe, util.probe_of(l))
        if l["type"] == "probe":
            tc.assertEqual(r.pass_, l["pass"])
        want = util.data_values(l)
        if want == [] and r.values is None:
            continue        # a damaged statement: no record was decoded
        if want is None:
            tc.assertIsNone(r.values, f"row {i}")
            continue
        tc.assertIsNotNone(r.values, f"row {i}: {l['records']}")
        tc.assertEqual(len(r.values), len(want))
        for w, v in zip(want, r.values):
            if isinstance(w, tuple):          # ("bytes", hex)
                tc.assertIsInstance(v, bytes)
                tc.assertEqual(v.hex(), w[1])
            else:
                tc.assertNotIsInstance(v, bytes)
                tc.assertIsNone(util.same(w, v), f"row {i}")
    return recs


class RecordsLikeEvents(unittest.TestCase):
    def test_every_capture(self):
        for name, path in util.captures():
            for temporal in (False, True):
                with self.subTest(capture=name, temporal=temporal):
                    check_records(self, path, temporal)

    def test_damaged_captures(self):
        for name, path in util.bad_cases():
            with self.subTest(case=name):
                check_records(self, path, False)


@unittest.skipIf(SKIP, SKIP)
class Columns(unittest.TestCase):
    def test_columns_are_the_records(self):
        """records(columns=True) holds what records() yields, by table."""
        for name, path in util.captures() + util.bad_cases():
            with self.subTest(capture=name):
                cap = dtconsume.open(path, errors="ignore")
                recs = list(cap.records())
                tables = cap.records(columns=True)
                self.assertEqual(sum(len(t) for t in tables.values()),
                                 len(recs))
                pos = {}
                for r in recs:
                    t = tables[(r.epid, r.probe)]
                    k = pos.get(t.key, 0)
                    pos[t.key] = k + 1
                    self.assertEqual(int(t.index[k]), r.index)
                    self.assertEqual(int(t.cpu[k]), r.cpu)
                    self.assertEqual(int(t.timestamp[k]), r.timestamp)
                    self.assertEqual(int(t.pass_[k]), r.pass_)
                    if r.values is None:
                        self.assertFalse(t.data)
                        continue
                    self.assertEqual(len(t.columns), len(r.values))
                    for c, v in zip(t.columns, r.values):
                        got = c.values[k]
                        self.assertEqual(
                            int(got) if c.kind == "int" else got, v)

    def test_batches_of_any_size(self):
        """Batches of 7 rows give the columns of one batch."""
        import numpy as np
        path = max(util.captures(), key=lambda c: len(list(
            dtconsume.open(c[1], errors="ignore").records())))[1]
        cap = dtconsume.open(path, errors="ignore")
        whole = cap.records(columns=True)
        small = cap.records(columns=True, max_rows=7)
        self.assertEqual(set(whole), set(small))
        for k in whole:
            self.assertTrue(np.array_equal(whole[k].index, small[k].index))
            for a, b in zip(whole[k].columns, small[k].columns):
                self.assertEqual(a.name, b.name)
                self.assertEqual(list(a.values), list(b.values))
        nb = sum(1 for _ in cap.batches(max_rows=7))
        self.assertGreater(nb, 1)

    def test_arrays_own_their_data(self):
        """Whether a table comes from one batch or from several, its
        arrays have the documented dtypes, are writable, and a write to
        one leaves a second read of the capture untouched; a bytes
        column is an object array of str and bytes."""
        import numpy as np
        path = max(util.captures(), key=lambda c: len(list(
            dtconsume.open(c[1], errors="ignore").records())))[1]
        cap = dtconsume.open(path, errors="ignore")
        for max_rows in (1 << 20, 7):
            tables = cap.records(columns=True, max_rows=max_rows)
            again = cap.records(columns=True, max_rows=max_rows)
            for k, t in tables.items():
                for a, dt in ((t.index, np.uint64), (t.timestamp, np.uint64),
                              (t.cpu, np.int32), (t.pass_, np.uint32)):
                    self.assertEqual(a.dtype, dt)
                    self.assertTrue(a.flags.writeable)
                for c in t.columns:
                    self.assertEqual(c.values.dtype, np.int64
                                     if c.kind == "int" else object)
                    self.assertTrue(c.values.flags.writeable)
                    if c.kind != "int":
                        for v in c.values:
                            self.assertIsInstance(v, (str, bytes))
                if len(t) == 0:
                    continue
                t.cpu[0] = -99
                t.index[0] = 12345678
                self.assertNotEqual(int(again[k].cpu[0]), -99)
                self.assertNotEqual(int(again[k].index[0]), 12345678)

    def test_column_names(self):
        for name, path in util.captures():
            cap = dtconsume.open(path, errors="ignore")
            for t in cap.records(columns=True).values():
                names = [c.name for c in t.columns]
                self.assertEqual(len(names), len(set(names)))
                for c in t.columns:
                    self.assertEqual(c.name.split("_")[0].rstrip(
                        "0123456789"), {"trace": "trace", "printf": "printf",
                                        "exit": "exit"}[c.action])


if __name__ == "__main__":
    unittest.main()
