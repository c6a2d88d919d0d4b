"""The event iterator against dt2json: for every capture of testdata
(valid, conformance, live/captures), the dicts dtconsume.open() yields are
dt2json's JSON lines under the encoding rules (util.same), and its
DecodeErrors are dt2json's warnings."""

import copy
import io
import json
import os
import pathlib
import unittest
import warnings

import dtconsume
import util


def order(j, p, where=""):
    """None when every dict in p has its keys in the order of the JSON
    object j (json.loads keeps it), else where they differ: the dicts are
    dt2json's lines member for member, not only equal as mappings."""
    if isinstance(p, dict) and isinstance(j, dict):
        if list(j) != list(p):
            return f"{where}: {list(j)} != {list(p)}"
        for k in p:
            r = order(j[k], p[k], f"{where}.{k}")
            if r:
                return r
    elif isinstance(p, list) and isinstance(j, list):
        for i, (a, b) in enumerate(zip(j, p)):
            r = order(a, b, f"{where}[{i}]")
            if r:
                return r
    return None


def repeats(lines):
    """How many probe lines come after one of the same EPID whose
    records differ from theirs (other values on the same template), and
    how many of those differ in a record's members (keys), as a cut
    message's "truncated" or a payload that is "bytes" this time."""
    last, values, shapes = {}, 0, 0
    for l in lines:
        if l["type"] != "probe":
            continue
        recs = l["records"]
        prev = last.get(l["epid"])
        if prev is not None and prev != recs:
            values += 1
            if [list(r) for r in prev] != [list(r) for r in recs]:
                shapes += 1
        last[l["epid"]] = recs
    return values, shapes


class EveryCapture(unittest.TestCase):
    def test_events_are_dt2json_lines(self):
        caps = util.captures()
        self.assertGreater(len(caps), 200)   # the fixtures were found
        kinds = set()
        values = shapes = 0
        for name, path in caps:
            with self.subTest(capture=name):
                want, errs = util.dt2json(path)
                cap = dtconsume.open(path, errors="ignore")
                got = list(cap)
                self.assertIsNone(util.same(want, got))
                self.assertIsNone(order(want, got))
                self.assertEqual([str(e) for e in cap.errors], errs)
                kinds |= {l["type"] for l in want}
                kinds |= {r["act"] for l in want if l["type"] == "probe"
                          for r in l["records"]}
                kinds |= {k for l in want if l["type"] == "probe"
                          for r in l["records"] for k in r
                          if k in ("truncated", "bytes", "frames")}
                v, s = repeats(want)
                values += v
                shapes += s
        # Probe lines and their records are built from templates by EPID
        # (pyout.c): the captures compared above have lines that differ
        # from the last of their EPID in values and in members, and every
        # other kind of line and record
        # (where members differ: Departures below)
        self.assertGreater(values, 200)
        self.assertLessEqual({"probe", "drop", "error", "aggregation",
                              "exit", "end", "notice", "printf", "printa",
                              "trace", "print", "tracemem", "ustack",
                              "usym", "umod", "uaddr", "bytes", "frames"},
                             kinds)

    def test_mutating_an_event(self):
        """A dict is the caller's: changing one, at any depth, changes
        no other line (the template a line was copied from included)."""
        for name, path in util.captures():
            want, _ = util.dt2json(path)
            if repeats(want)[0] < 10:
                continue
            with self.subTest(capture=name):
                got = []
                for ev in dtconsume.open(path, errors="ignore"):
                    got.append(ev)
                    snap = copy.deepcopy(ev)
                    self.assertEqual(snap, ev)
                    if ev["type"] != "probe":
                        continue
                    for r in ev["records"]:
                        for a in r.get("args", []):
                            a["size"] = -1
                            a.pop("value", None)
                            a["extra"] = 1
                        r["act"] = "changed"
                        r.pop("size")
                        r["extra"] = []
                    ev["records"].append({"act": "extra"})
                    ev["epid"] = -1
                    ev["probe"] = "changed"
                    del ev["provider"]
                    ev["extra"] = {}
                    got[-1] = snap
                self.assertIsNone(util.same(want, got))
                self.assertIsNone(order(want, got))

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
                self.assertIsNone(order(want, got))


class Departures(unittest.TestCase):
    """Lines of one EPID whose records have other members than the last
    one's: a trace() record that is a string, then bytes, then a string
    again; a printf() message cut at the cap ("truncated") between whole
    ones.  Each line departs from the template the one before left."""

    def test_members_that_come_and_go(self):
        def hexed(b, n):
            return {"hex": (b + bytes(n - len(b))).hex()}
        firings = [(b"abc", b"hi"), (b"\x00\xff\x10\xab\x7f", b"x" * 29),
                   (b"abc", b"hi again"), (b"abc", b"hi"),
                   (b"\x01\x02", b"y" * 30), (b"xyz", b"short"),
                   (b"xyz", b"short")]
        desc = {
            "header": {"os": "freebsd", "ncpu": 1},
            "options": {"quiet": 1, "strsize": 32},
            "probes": [{"id": 1, "provider": "dtrace", "name": "BEGIN"},
                       {"id": 2, "provider": "profile", "name": "tick-1ms"}],
            "eprobes": [{"epid": 2, "probe": 2, "recs": [
                {"trace": "bytes", "size": 6},
                {"printf": "%s\n", "args": ["string"]}]}],
            "passes": [{"bufs": [{"cpu": 0, "records": [
                {"epid": 2, "data": [hexed(t, 6), [hexed(m, 32)]]}
                for t, m in firings]}]}],
            "end": {"exit_status": 0}}
        src = os.path.join(util.workdir(), "departures.json")
        path = os.path.join(util.workdir(), "departures.dtsnap")
        with open(src, "w") as f:
            json.dump(desc, f)
        self.assertTrue(util.synth(src, path))
        want, errs = util.dt2json(path, "-x", "maxmsgsize=16")
        recs = [l["records"] for l in want if l["type"] == "probe"]
        self.assertEqual([list(r[0])[2] for r in recs], ["string", "bytes",
                         "string", "string", "bytes", "string", "string"])
        self.assertEqual(["truncated" in r[1] for r in recs],
                         [False, True, False, False, True, False, False])
        self.assertEqual(repeats(want), (5, 4))
        cap = dtconsume.open(path, options={"maxmsgsize": "16"},
                             errors="ignore")
        got = list(cap)
        self.assertIsNone(util.same(want, got))
        self.assertIsNone(order(want, got))
        self.assertEqual([str(e) for e in cap.errors], errs)


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
