#!/usr/bin/python3
"""The CBOR output and the JSON output carry the same data model.

Usage: cbor_vs_json.py OUT.cbor OUT.jsonl

Decodes the CBOR sequence with cbor2 and the JSON Lines with json, then
compares them object for object after mapping CBOR values onto the JSON
encoding rules of dt2json(1): byte strings become lower-case hex, integers
beyond +-(2^53-1) decimal strings, addresses ("pc", "addr") "0x..." text.
Inside the "value" of a print() record, whose member names are the C
type's, a pointer is an address too: there a CBOR integer matches the
JSON "0x..." text of the same number.
Exits 0 when equal, 1 with the first difference otherwise.
"""
import io
import json
import sys

import cbor2

SAFE = 2**53 - 1
ADDRESS_KEYS = {"pc", "addr"}


def as_json(v, key=None):
    if isinstance(v, dict):
        return {k: as_json(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [as_json(x, key) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        if key in ADDRESS_KEYS:
            return "0x%x" % v
        if -SAFE <= v <= SAFE:
            return v
        return str(v)
    return v


def same(c, j, typed=False):
    """c (CBOR, mapped by as_json) equals j (JSON)."""
    if isinstance(c, dict) and isinstance(j, dict):
        if c.keys() != j.keys():
            return False
        printed = c.get("act") == "print"
        return all(same(c[k], j[k], typed or (printed and k == "value"))
                   for k in c)
    if isinstance(c, list) and isinstance(j, list):
        return len(c) == len(j) and all(
            same(x, y, typed) for x, y in zip(c, j))
    if typed and isinstance(j, str) and j.startswith("0x"):
        try:
            return int(c) == int(j, 16)
        except (TypeError, ValueError):
            return False
    return c == j


def main():
    cpath, jpath = sys.argv[1], sys.argv[2]
    with open(cpath, "rb") as f:
        data = f.read()
    objs = []
    stream = io.BytesIO(data)
    while stream.tell() < len(data):
        objs.append(cbor2.load(stream))
    with open(jpath, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    if len(objs) != len(lines):
        print("%d CBOR items, %d JSON lines" % (len(objs), len(lines)))
        return 1
    for i, (c, j) in enumerate(zip(objs, lines)):
        if not same(as_json(c), j):
            print("object %d differs:\n cbor: %s\n json: %s"
                  % (i, json.dumps(as_json(c), sort_keys=True)[:2000],
                     json.dumps(j, sort_keys=True)[:2000]))
            return 1
    print("%d objects equal" % len(objs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
