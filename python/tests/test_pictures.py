"""The pictures from Python: Capture.to_flamegraph(), to_speedscope()
and to_trace_event() give dtconsume -f flamegraph/speedscope/trace-event's
bytes, as a str or written to a path or a file object; folded_key= is
--folded-key; a cut capture raises the DecodeError dtconsume reports
(errors="ignore" gives the output of what was intact)."""

import io
import os
import unittest

import dtconsume
import util

LIVE = os.path.join(util.SRC, "testdata", "live", "captures", "ustack_v2",
                    "cap.dtsnap")
KERNEL = os.path.join(util.SRC, "testdata", "folded", "kernel.json")


def cli(fmt, path, *args):
    p = util.run([util.DTCONSUME, "-f", fmt, *args, path])
    return p.returncode, p.stdout, p.stderr


class Pictures(unittest.TestCase):
    def setUp(self):
        self.dir = util.workdir()
        self.kernel = os.path.join(self.dir, "kernel.dtsnap")
        if not util.synth(KERNEL, self.kernel):
            self.skipTest("dtsnap synth failed")

    def test_same_as_dtconsume(self):
        for path in (LIVE, self.kernel):
            cap = dtconsume.open(path)
            for fmt, fn in (("flamegraph", cap.to_flamegraph),
                            ("speedscope", cap.to_speedscope),
                            ("trace-event", cap.to_trace_event)):
                with self.subTest(capture=path, format=fmt):
                    rc, want, _ = cli(fmt, path)
                    self.assertEqual(rc, 0)
                    self.assertTrue(want)
                    self.assertEqual(fn().encode(), want)
                    # to a path, and to a file object
                    out = os.path.join(self.dir, "out")
                    self.assertIsNone(fn(out))
                    with open(out, "rb") as f:
                        self.assertEqual(f.read(), want)
                    with open(out, "wb") as f:
                        f.write(b"x")
                        fn(f)
                    with open(out, "rb") as f:
                        self.assertEqual(f.read(), b"x" + want)

    def test_folded_key(self):
        cap = dtconsume.open(self.kernel)
        _, want, _ = cli("flamegraph", self.kernel, "--folded-key", "2")
        got = cap.to_flamegraph(folded_key=[2]).encode()
        self.assertEqual(got, want)
        self.assertNotEqual(got, cap.to_flamegraph().encode())
        with self.assertRaises(ValueError):
            cap.to_flamegraph(folded_key=[0])

    def test_cut_capture(self):
        cut = os.path.join(self.dir, "cut.dtsnap")
        with open(LIVE, "rb") as f, open(cut, "wb") as g:
            g.write(f.read()[:1500])
        rc, want, err = cli("speedscope", cut)
        self.assertEqual(rc, 1)
        with self.assertRaises(dtconsume.DecodeError) as e:
            dtconsume.open(cut).to_speedscope()
        self.assertEqual(util.cli_escaped(str(e.exception)),
                         err.decode().strip().replace("dtconsume: ", "", 1))
        got = dtconsume.open(cut, errors="ignore").to_speedscope()
        self.assertEqual(got.encode(), want)


if __name__ == "__main__":
    unittest.main()
