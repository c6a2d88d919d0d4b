"""The event iterator against dt2json: for every capture of testdata
(valid, conformance, live/captures), the dicts dtconsume.open() yields are
dt2json's JSON lines under the encoding rules (util.same), and its
DecodeErrors are dt2json's warnings."""

import io
import os
import pathlib
import unittest
import warnings

import dtconsume
import util


class EveryCapture(unittest.TestCase):
    def test_events_are_dt2json_lines(self):
        caps = util.captures()
        self.assertGreater(len(caps), 200)   # the fixtures were found
        for name, path in caps:
            with self.subTest(capture=name):
                want, errs = util.dt2json(path)
                cap = dtconsume.open(path, errors="ignore")
                got = list(cap)
                self.assertIsNone(util.same(want, got))
                self.assertEqual([str(e) for e in cap.errors], errs)

    def test_temporal_and_options(self):
        """--temporal and -x options reach the library alike."""
        for name, path in util.captures():
            if "temporal" not in name and "cpu-order" not in name:
                continue
            with self.subTest(capture=name):
                want, _ = util.dt2json(path, "--temporal", "-x", "quiet")
                got = list(dtconsume.open(path, temporal=True,
                                          options={"quiet": None},
                                          errors="ignore"))
                self.assertIsNone(util.same(want, got))


class Sources(unittest.TestCase):
    def setUp(self):
        self.path = util.captures()[0][1]
        self.want = list(dtconsume.open(self.path))

    def strip(self, lines):
        # the header names the source; everything else must not differ
        return [dict(l, source=None) if l["type"] == "header" else l
                for l in lines]

    def test_path_kinds(self):
        self.assertEqual(list(dtconsume.open(pathlib.Path(self.path))),
                         self.want)

    def test_bytes_file_and_bytesio(self):
        with open(self.path, "rb") as f:
            data = f.read()
        by_bytes = list(dtconsume.open(data, name="x.dtsnap"))
        self.assertEqual(by_bytes[0]["source"], "x.dtsnap")
        self.assertEqual(self.strip(by_bytes), self.strip(self.want))
        with open(self.path, "rb") as f:
            by_file = list(dtconsume.open(f))
        self.assertEqual(by_file[0]["source"], self.path)
        self.assertEqual(self.strip(by_file), self.strip(self.want))
        by_io = list(dtconsume.open(io.BytesIO(data)))
        self.assertEqual(self.strip(by_io), self.strip(self.want))

    def test_header_attribute(self):
        cap = dtconsume.open(self.path)
        it = iter(cap)
        first = next(it)
        self.assertEqual(first["type"], "header")
        self.assertEqual(cap.header["flavor"], first["capture"]["flavor"])
        self.assertEqual(cap.header["ncpu"], first["capture"]["ncpu"])

    def test_not_a_capture_source(self):
        with self.assertRaises(TypeError):
            list(dtconsume.open(12345))

    def test_missing_file(self):
        with self.assertRaises(dtconsume.DecodeError) as cm:
            list(dtconsume.open(os.path.join(util.workdir(), "nothing")))
        self.assertEqual(cm.exception.code, 2)      # DTC_E_IO
        self.assertIsNone(cm.exception.item)


class ErrorModes(unittest.TestCase):
    """One damaged capture (testdata/bad/cut-in-buf) in the three modes."""

    def setUp(self):
        self.path = dict(util.bad_cases())["cut-in-buf"]
        self.want, self.errs = util.dt2json(self.path)
        self.assertTrue(self.errs)

    def test_raise_after_everything(self):
        got = []
        with self.assertRaises(dtconsume.DecodeError) as cm:
            for ev in dtconsume.open(self.path):
                got.append(ev)
        self.assertIsNone(util.same(self.want, got))
        e = cm.exception
        self.assertEqual(str(e), self.errs[0])
        self.assertEqual([str(x) for x in e.errors], self.errs)
        self.assertEqual(e.file, self.path)

    def test_warn(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = list(dtconsume.open(self.path, errors="warn"))
        self.assertIsNone(util.same(self.want, got))
        self.assertEqual([str(x.message) for x in w], self.errs)

    def test_ignore(self):
        cap = dtconsume.open(self.path, errors="ignore")
        self.assertIsNone(util.same(self.want, list(cap)))
        self.assertEqual([str(e) for e in cap.errors], self.errs)

    def test_bad_mode(self):
        with self.assertRaises(ValueError):
            list(dtconsume.open(self.path, errors="shout"))


if __name__ == "__main__":
    unittest.main()
