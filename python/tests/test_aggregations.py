"""Aggregations from Python against dtconsume --merge-aggs: text printed
by the library's own printing, merges (a + b) equal to the command's,
the kept form (pickle, a capture of its own) losing nothing, and
DataFrames holding the rows of dt2json's aggregation lines."""

import os
import pickle
import unittest

import dtconsume
import util

SKIP_PANDAS = util.has_tool("pandas")


def dtconsume_out(*args):
    p = util.run([util.DTCONSUME, *args])
    return p.stdout.decode("utf-8", "surrogateescape"), p.returncode


class MergeAggs(unittest.TestCase):
    def test_hand_derived_merge(self):
        """testdata/valid/merge-aggs: expected.txt was derived by hand for
        dtconsume --merge-aggs a b; each capture ends its run with a
        newline, then come the merged aggregations."""
        d = os.path.join(util.TESTDATA, "valid", "merge-aggs")
        with open(os.path.join(d, "expected.txt")) as f:
            want = f.read()
        paths = []
        for f in ("a.json", "b.json"):
            p = os.path.join(util.workdir(), "merge-" + f + ".dtsnap")
            self.assertTrue(util.synth(os.path.join(d, f), p))
            paths.append(p)
        a, b = (dtconsume.aggregations(p) for p in paths)
        self.assertEqual("\n\n" + (a + b).text(), want)
        self.assertEqual("\n\n" + dtconsume.merge_aggregations(paths).text(),
                         want)
        self.assertEqual(sum([a, b]).text(), (a + b).text())

    def test_every_capture(self):
        """For each capture C: the text is what dtconsume --merge-aggs C
        ends with, C merged with itself what --merge-aggs C C ends with,
        and dtconsume reading the kept capture prints the text after its
        run's newline."""
        nonempty = 0
        for name, path in util.captures():
            with self.subTest(capture=name):
                one, _ = dtconsume_out("--merge-aggs", path)
                two, _ = dtconsume_out("--merge-aggs", path, path)
                a = dtconsume.aggregations(path, errors="ignore")
                t = a.text()
                nonempty += t != ""
                self.assertTrue(one.endswith(t))
                a2 = a + pickle.loads(pickle.dumps(a))
                self.assertTrue(two.endswith(a2.text()))
                kept = os.path.join(util.workdir(), "kept.dtsnap")
                a.save(kept)
                out, rc = dtconsume_out(kept)
                self.assertEqual(rc, 0)
                self.assertEqual(out, "\n" + t)
        self.assertGreater(nonempty, 80)   # most fixtures have some

    def test_lines_are_dt2json_lines(self):
        """lines(): dt2json --merge-aggs's aggregation lines (but seq)."""
        for name, path in util.captures():
            with self.subTest(capture=name):
                want, _ = util.dt2json(path, "--merge-aggs")
                want = [dict(l, seq=None) for l in want
                        if l["type"] == "aggregation" and
                        l["trigger"] == "exit"]
                got = [dict(l, seq=None) for l in
                       dtconsume.aggregations(path, errors="ignore").lines()]
                self.assertIsNone(util.same(want, got))

    def test_errors_modes(self):
        bad = dict(util.bad_cases())["cut-in-aggbuf"]
        with self.assertRaises(dtconsume.DecodeError):
            dtconsume.aggregations(bad, errors="raise")
        a = dtconsume.aggregations(bad, errors="ignore")
        self.assertTrue(a.errors)
        self.assertIsInstance(a.text(), str)


@unittest.skipIf(SKIP_PANDAS, SKIP_PANDAS)
class Frames(unittest.TestCase):
    def test_aggregation_frames_hold_the_rows(self):
        for name, path in util.captures():
            with self.subTest(capture=name):
                a = dtconsume.aggregations(path, errors="ignore")
                lines = a.lines()
                frames = a.to_pandas()
                self.assertEqual(len(frames), len(lines))
                for line, (fname, df) in zip(lines, frames.items()):
                    self.assertTrue(fname.startswith("@" + line["name"]))
                    hist = line["func"] in ("quantize", "lquantize",
                                            "llquantize")
                    n = sum(len(r["values"][0]["buckets"]) if hist else 1
                            for r in line["rows"])
                    self.assertEqual(len(df), n)
                    if not hist and n:
                        self.assertEqual(
                            list(df["value"]),
                            [r["values"][0]["value"] for r in line["rows"]])
                    if hist and n:
                        self.assertEqual(
                            list(df["count"]),
                            [b["count"] for r in line["rows"]
                             for b in r["values"][0]["buckets"]])

    def test_capture_to_pandas(self):
        path = os.path.join(util.BUILD, "testdata", "samples",
                            "syscalls.dtsnap")
        cap = dtconsume.open(path)
        fr = cap.to_pandas()
        tables = cap.records(columns=True)
        self.assertEqual(set(fr["probes"]), set(tables))
        for k, df in fr["probes"].items():
            self.assertEqual(len(df), len(tables[k]))
            self.assertEqual(list(df.columns[:4]),
                             ["index", "cpu", "timestamp", "pass"])
        self.assertEqual(set(fr["aggregations"]),
                         set(cap.aggregations().to_pandas()))


if __name__ == "__main__":
    unittest.main()
