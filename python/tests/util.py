"""What the Python tests share: the captures of testdata/ (synthesized once
per run with cmd/dtsnap), the command-line tools as the reference, and the
rule that says when a Python value is the JSON value dt2json wrote.

Environment (set by cmd/tests/python.sh): top_srcdir, top_builddir.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Tuple

SRC = os.environ.get("top_srcdir") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.environ.get("top_builddir") or ".")
TESTDATA = os.path.join(SRC, "testdata")
DTSNAP = os.path.join(BUILD, "cmd", "dtsnap")
DTCONSUME = os.path.join(BUILD, "cmd", "dtconsume")
DT2JSON = os.path.join(BUILD, "cmd", "dt2json")

_work: Optional[str] = None


def workdir() -> str:
    """One temporary directory per test run, removed at exit."""
    global _work
    if _work is None:
        _work = tempfile.mkdtemp(prefix="dtc-py.")
        atexit.register(shutil.rmtree, _work, True)
    return _work


# Every warning: the tests compare the binding's with the programs', and
# both keep 100 of a kind by default (test_warncap.py tests the cap).
os.environ["DTCONSUME_MAX_WARNINGS"] = "0"


def run(argv: List[str], **kw: Any) -> subprocess.CompletedProcess:
    env = dict(os.environ, LC_ALL="C", TZ="UTC", DTCONSUME_MAX_WARNINGS="0")
    env.pop("_DTRACE_TESTING", None)
    return subprocess.run(argv, capture_output=True, env=env, **kw)


def synth(desc: str, out: str) -> bool:
    return run([DTSNAP, "synth", desc, "-o", out]).returncode == 0


_captures: Optional[List[Tuple[str, str]]] = None


def captures() -> List[Tuple[str, str]]:
    """(name, path) of every capture of testdata/valid (each *.json),
    testdata/conformance (desc.json or capture.dtsnap; cases marked skip
    and descriptions synth refuses are left out) and
    testdata/live/captures."""
    global _captures
    if _captures is not None:
        return _captures
    out: List[Tuple[str, str]] = []
    w = os.path.join(workdir(), "captures")
    os.makedirs(w, exist_ok=True)
    n = 0
    valid = os.path.join(TESTDATA, "valid")
    for case in sorted(os.listdir(valid)):
        d = os.path.join(valid, case)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".json"):
                p = os.path.join(w, f"{n}.dtsnap")
                n += 1
                if synth(os.path.join(d, f), p):
                    out.append((f"valid/{case}/{f}", p))
    conf = os.path.join(TESTDATA, "conformance")
    for root, dirs, files in sorted(os.walk(conf)):
        dirs.sort()
        rel = os.path.relpath(root, TESTDATA)
        if "skip" in files:
            continue
        if "capture.dtsnap" in files:
            out.append((rel, os.path.join(root, "capture.dtsnap")))
        elif "desc.json" in files:
            p = os.path.join(w, f"{n}.dtsnap")
            n += 1
            if synth(os.path.join(root, "desc.json"), p):
                out.append((rel, p))
    live = os.path.join(TESTDATA, "live", "captures")
    for case in sorted(os.listdir(live)):
        p = os.path.join(live, case, "cap.dtsnap")
        if os.path.isfile(p):
            out.append((f"live/captures/{case}", p))
    _captures = out
    return out


def bad_cases(aborted_too: bool = False) -> List[Tuple[str, str]]:
    """(name, path) of every damaged capture of testdata/bad; with
    aborted_too, those where dtrace says "processing aborted" as well."""
    root = os.path.join(TESTDATA, "bad")

    def aborted(c: str) -> bool:
        # dtrace's "processing aborted" comes from printing a record: the
        # events stop there as dt2json's lines do, the batch reader (which
        # prints nothing) does not
        if aborted_too:
            return False
        try:
            with open(os.path.join(root, c, "stderr")) as f:
                return "dtrace: processing aborted" in f.read()
        except OSError:
            return False
    return [(c, os.path.join(root, c, "input.dtsnap"))
            for c in sorted(os.listdir(root))
            if os.path.isfile(os.path.join(root, c, "input.dtsnap"))
            and not aborted(c)]


def dt2json(path: str, *args: str) -> Tuple[List[Dict[str, Any]], List[str]]:
    """dt2json's lines and its warnings (stderr lines without the
    program's name)."""
    p = run([DT2JSON, *args, path])
    lines = [json.loads(l) for l in p.stdout.decode("utf-8").splitlines()
             if l.strip()]
    errs = [l[len("dt2json: "):] for l in
            p.stderr.decode("utf-8", "replace").splitlines()
            if l.startswith("dt2json: ")]
    return lines, errs


def cli_escaped(s: str) -> str:
    """A message as the programs print it (cmd/cli.c): control characters,
    DEL and the C1 controls as \\xNN of their UTF-8 bytes (what is not
    UTF-8 the extension already gives as \\xNN)."""
    return "".join("".join("\\x%02x" % b for b in c.encode())
                   if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f else c
                   for c in s)


def same(j: Any, p: Any, where: str = "") -> Optional[str]:
    """None when the Python value p is what dt2json wrote as j, else where
    they differ.  The JSON encoding's rules (dt2json(1)): integers past
    2^53 as decimal strings, addresses as "0x..." strings, byte data as
    lower-case hex; Python has ints and bytes."""
    if isinstance(p, bool) or p is None:
        return None if j is p else f"{where}: {j!r} != {p!r}"
    if isinstance(p, int):
        if isinstance(j, bool):
            return f"{where}: {j!r} != {p!r}"
        if isinstance(j, int) and j == p:
            return None
        if isinstance(j, str) and (j == str(p) or j == "0x%x" % p):
            return None
        return f"{where}: {j!r} != {p!r}"
    if isinstance(p, bytes):
        return None if j == p.hex() else f"{where}: {j!r} != {p!r}"
    if isinstance(p, str):
        return None if j == p else f"{where}: {j!r} != {p!r}"
    if isinstance(p, float):
        return None if isinstance(j, (int, float)) and j == p else \
            f"{where}: {j!r} != {p!r}"
    if isinstance(p, list):
        if not isinstance(j, list) or len(j) != len(p):
            return f"{where}: {j!r} != {p!r}"
        for i, (a, b) in enumerate(zip(j, p)):
            r = same(a, b, f"{where}[{i}]")
            if r:
                return r
        return None
    if isinstance(p, dict):
        if not isinstance(j, dict) or set(j) != set(p):
            return f"{where}: keys {sorted(j) if isinstance(j, dict) else j!r} != {sorted(p)}"
        for k in p:
            r = same(j[k], p[k], f"{where}.{k}")
            if r:
                return r
        return None
    return f"{where}: unexpected Python type {type(p).__name__}"


def probe_of(line: Dict[str, Any]) -> Optional[str]:
    """A probe or error line's probe, as provider:module:function:name."""
    if "probe" in line:
        return line["probe"]
    if line.get("provider") is None:
        return None
    return ":".join(line[k] for k in ("provider", "module", "function",
                                      "name"))


def record_rows(lines: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The record sets among dt2json's lines, as the batch reader numbers
    them: probe lines, and error lines of ERROR-enabling records (not a
    DTrace v2 fault item: epid 0; not a failed setopt(): library)."""
    return [l for l in lines if l["type"] == "probe" or
            (l["type"] == "error" and l["epid"] != 0 and
             l["fault"] != "library")]


def data_values(line: Dict[str, Any]) -> Optional[list]:
    """The values of a probe line's trace(), printf() and exit() records,
    in record order; None when it has another record (the batch reader's
    "other" rows)."""
    if line["type"] != "probe":
        return None
    vals = []
    for r in line["records"]:
        if r["act"] == "printf" and "args" in r and "notice" not in r:
            for a in r["args"]:
                vals.append(_payload(a))
        elif r["act"] == "exit":
            vals.append(r["status"])
        elif r["act"] == "trace" and any(k in r for k in
                                         ("value", "string", "bytes")):
            vals.append(_payload(r))
        else:
            return None
    return vals


def _payload(r: Dict[str, Any]) -> Any:
    for k in ("value", "string", "bytes"):
        if k in r:
            return ("bytes", r[k]) if k == "bytes" else r[k]
    return None


def has_tool(*names: str) -> Optional[str]:
    """None when every module imports, else the reason to skip."""
    for n in names:
        try:
            __import__(n)
        except ImportError as e:
            return f"needs {n} ({e}); Debian: apt-get install python3-{n}"
    return None
