"""Capture.program (issue 23): the program item of a committed capture
of dtsnap record (testdata/program/vars), against the script and command
line it was recorded with and the dtrace -S output saved beside it; from
a path, bytes and a file object alike; None for a capture without one."""

import os
import unittest

import dtconsume
import util

VARS = os.path.join(util.TESTDATA, "program", "vars")
SAMPLE = os.path.join(util.BUILD, "testdata", "samples", "syscalls.dtsnap")


class ProgramTest(unittest.TestCase):
    def check(self, prog):
        self.assertIsNotNone(prog)
        with open(os.path.join(VARS, "script.d")) as f:
            script = f.read()
        self.assertEqual(prog["sources"], [
            {"opt": "s", "arg": "script.d", "text": script},
            {"opt": "n", "arg": "END { trace($$1); }",
             "text": "END { trace($$1); }"}])
        self.assertEqual(prog["options"], [{"opt": "x", "arg": "strsize=64"}])
        self.assertEqual(prog["macros"], ["dtrace", "hello"])
        self.assertEqual(prog["clauses"], 3)
        with open(os.path.join(VARS, "dtrace.S")) as f:
            self.assertEqual(prog["listing"], f.read())

    def test_path(self):
        self.check(dtconsume.Capture(os.path.join(VARS, "cap.dtsnap")).program)

    def test_bytes_and_file(self):
        path = os.path.join(VARS, "cap.dtsnap")
        with open(path, "rb") as f:
            data = f.read()
        self.check(dtconsume.Capture(data).program)
        with open(path, "rb") as f:
            self.check(dtconsume.Capture(f).program)

    def test_none(self):
        self.assertIsNone(dtconsume.Capture(SAMPLE).program)


if __name__ == "__main__":
    unittest.main()
