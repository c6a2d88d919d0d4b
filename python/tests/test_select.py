"""Record selection from Python (probe=, cpu=, epid=, since=, until=):
events() against dt2json with the same --probe/--cpu/... options, and the
batch reader (records(), records(columns=True)), whose selection is its
own code (dtc_batch_select), against those same dt2json lines."""

import unittest

import dtconsume
import util

SKIP_NP = util.has_tool("numpy")


def selections(lines):
    """Selections worth trying on a capture, from its own record sets:
    the first record set's probe (full name, and by function:name), its
    CPU, its EPID, and a list of two CPUs."""
    rows = util.record_rows(lines)
    if not rows:
        return []
    first = rows[0]
    out = [({"cpu": first["cpu"]}, ["--cpu", str(first["cpu"])]),
           ({"epid": first["epid"]}, ["--epid", str(first["epid"])]),
           ({"cpu": [0, 1]}, ["--cpu", "0", "--cpu", "1"])]
    probe = util.probe_of(first)
    if probe is not None:
        fn_name = ":".join(probe.split(":")[2:])
        out.append(({"probe": probe}, ["--probe", probe]))
        out.append(({"probe": fn_name, "cpu": first["cpu"]},
                    ["--probe", fn_name, "--cpu", str(first["cpu"])]))
    return out


def without_header(lines):
    return [l for l in lines if l["type"] != "header"]


class SelectLikeDt2json(unittest.TestCase):
    def test_every_capture(self):
        tried = 0
        for name, path in util.captures():
            lines, _ = util.dt2json(path)
            for kw, args in selections(lines):
                with self.subTest(capture=name, select=kw):
                    want, _ = util.dt2json(path, *args)
                    cap = dtconsume.open(path, errors="ignore", **kw)
                    got = list(cap.events())
                    self.assertEqual(len(without_header(got)),
                                     len(without_header(want)))
                    for g, w in zip(without_header(got),
                                    without_header(want)):
                        self.assertEqual(g["type"], w["type"])
                        if w["type"] == "probe":
                            self.assertEqual(g["epid"], w["epid"])
                            self.assertEqual(g["cpu"], w["cpu"])
                    rows = util.record_rows(want)
                    recs = list(cap.records())
                    self.assertEqual([(r.index, r.cpu, r.epid)
                                      for r in recs],
                                     [(i, l["cpu"], l["epid"])
                                      for i, l in enumerate(rows)])
                    tried += 1
        self.assertGreater(tried, 100)

    @unittest.skipIf(SKIP_NP, SKIP_NP)
    def test_columns(self):
        for name, path in util.captures()[:40]:
            lines, _ = util.dt2json(path)
            for kw, args in selections(lines):
                with self.subTest(capture=name, select=kw):
                    want = util.record_rows(util.dt2json(path, *args)[0])
                    tabs = dtconsume.open(path, errors="ignore",
                                          **kw).records(columns=True)
                    got = sorted((int(i), int(c), key[0])
                                 for key, t in tabs.items()
                                 for i, c in zip(t.index, t.cpu))
                    self.assertEqual(got, [(i, l["cpu"], l["epid"])
                                           for i, l in enumerate(want)])

    def test_refused(self):
        path = util.captures()[0][1]
        with self.assertRaises(ValueError):
            list(dtconsume.open(path, cpu="x").events())
        with self.assertRaises(ValueError):
            list(dtconsume.open(path, since="yesterday").records())
        with self.assertRaises(TypeError):
            dtconsume.open(path, cpu=1.5)
        with self.assertRaises(TypeError):
            dtconsume.open(path, probe=True)

    def test_nothing_selected(self):
        for name, path in util.captures()[:20]:
            with self.subTest(capture=name):
                cap = dtconsume.open(path, errors="ignore",
                                     probe="no_such_provider:::")
                self.assertEqual([l for l in cap.events()
                                  if l["type"] == "probe"], [])
                self.assertEqual(list(cap.records()), [])


if __name__ == "__main__":
    unittest.main()
