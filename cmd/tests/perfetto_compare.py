#!/usr/bin/env python3
"""perfetto_compare.py TRACE.txt TRACE.json: the same timeline in both.

TRACE.txt is `protoc --decode=perfetto.protos.Trace` of dtconsume -f
perfetto's output, TRACE.json dtconsume -f trace-event's output of the same
capture.  Both are reduced to one list of events, in order:
(pid, tid, kind, name, ts in ns, args), interned names and strings
resolved, debug annotations turned back into JSON values; a counter
event of the JSON (one per variable, a series per row) becomes one
event per series.  The headers (otherData.captures in JSON, "header"
events in the trace) and the process and thread names are compared as
well.  Prints the first difference and exits 1, or prints the counts.
"""
import ast
import json
import sys


def parse_text(path):
    """protoc's text format into nested lists of (key, value)."""
    root = []
    stack = [root]
    with open(path, encoding="ascii") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line == "}":
                stack.pop()
                continue
            if line.endswith(" {"):
                node = []
                stack[-1].append((line[:-2], node))
                stack.append(node)
                continue
            key, _, val = line.partition(": ")
            if val.startswith('"'):
                val = ast.literal_eval("b" + val).decode("utf-8",
                                                         "replace")
            elif val in ("true", "false"):
                val = val == "true"
            elif val.startswith("TYPE_"):
                pass
            else:
                try:
                    val = int(val)
                except ValueError:
                    val = float(val)
            stack[-1].append((key, val))
    return root


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def getall(node, key):
    return [v for k, v in node if k == key]


def main():
    packets = getall(parse_text(sys.argv[1]), "packet")
    with open(sys.argv[2], encoding="utf-8") as f:
        te = json.load(f)

    names, anames, strs = {}, {}, {}
    tracks = {}
    got, got_headers, got_threads = [], [], set()

    def value(d):
        dict_entries = getall(d, "dictionary_entries")
        arr = getall(d, "array_values")
        for k in ("int_value", "double_value", "bool_value", "uint_value"):
            if get(d, k) is not None:
                return get(d, k)
        if get(d, "string_value_iid") is not None:
            return strs[get(d, "string_value_iid")]
        if get(d, "string_value") is not None:
            return get(d, "string_value")
        if dict_entries:
            return {aname(e): value(e) for e in dict_entries}
        if arr:
            return [value(e) for e in arr]
        # an empty object or array has neither: the JSON tells which
        return None

    def aname(d):
        if get(d, "name_iid") is not None:
            return anames[get(d, "name_iid")]
        return get(d, "name")

    for p in packets:
        idata = get(p, "interned_data")
        if idata is not None:
            for e in getall(idata, "event_names"):
                names[get(e, "iid")] = get(e, "name")
            for e in getall(idata, "debug_annotation_names"):
                anames[get(e, "iid")] = get(e, "name")
            for e in getall(idata, "debug_annotation_string_values"):
                strs[get(e, "iid")] = get(e, "str", "")
        td = get(p, "track_descriptor")
        if td is not None:
            th, pr = get(td, "thread"), get(td, "process")
            if th is not None:
                key = (get(th, "pid"), get(th, "tid"))
                got_threads.add(("thread", key, get(th, "thread_name")))
            elif pr is not None:
                key = (get(pr, "pid"), None)
                got_threads.add(("process", key[0],
                                 get(pr, "process_name")))
            else:
                parent = tracks[get(td, "parent_uuid")]
                key = (parent[0], 1000000, get(td, "name"))
            tracks[get(td, "uuid")] = key
            continue
        ev = get(p, "track_event")
        if ev is None:
            continue
        t = tracks[get(ev, "track_uuid")]
        kind = get(ev, "type")
        name = names.get(get(ev, "name_iid"), get(ev, "name"))
        ts = get(p, "timestamp")
        if kind == "TYPE_COUNTER":
            got.append((t[0], t[1], "C", t[2], ts,
                        get(ev, "counter_value")))
            continue
        args = {aname(d): value(d) for d in getall(ev, "debug_annotations")}
        if name == "header" and getall(ev, "categories") == ["header"]:
            got_headers.append(args)
            continue
        kind = {"TYPE_INSTANT": "i", "TYPE_SLICE_BEGIN": "B",
                "TYPE_SLICE_END": "E"}[kind]
        if kind == "E" and not args:
            name = None
        got.append((t[0], t[1], kind, name, ts, args or None))

    want, want_threads = [], set()
    for e in te["traceEvents"]:
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "thread_name":
                want_threads.add(("thread", (e["pid"], e["tid"]),
                                  e["args"]["name"]))
            elif e["name"] == "process_name":
                want_threads.add(("process", e["pid"], e["args"]["name"]))
            continue
        ts = round(e["ts"] * 1000)
        if ph == "C":
            for series, v in e["args"].items():
                want.append((e["pid"], e["tid"], "C",
                             e["name"] + " " + series, ts, v))
            continue
        name = e["name"] if ph != "E" or "args" in e else None
        want.append((e["pid"], e["tid"], ph, name, ts, e.get("args")))
    want_headers = te["otherData"]["captures"]

    def norm(x):
        # an empty object or array: no value in the trace (see value())
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, list):
            return [norm(v) for v in x]
        return x

    def strip_empty(x):
        if isinstance(x, dict):
            return {k: strip_empty(v) for k, v in x.items()
                    if v != {} and v != [] and v is not None}
        if isinstance(x, list):
            return [strip_empty(v) for v in x]
        return x

    def tidy(evs):
        return [(a, b, c, d, t, strip_empty(norm(g)) if isinstance(g, dict)
                 else g) for a, b, c, d, t, g in evs]

    def tidy_args(evs):
        out = []
        for x in evs:
            x = strip_empty(x)
            out.append({k: v for k, v in x.items() if v is not None})
        return out

    def drop_none(evs):
        out = []
        for a, b, c, d, t, g in evs:
            if isinstance(g, dict):
                g = {k: v for k, v in strip_empty(g).items()
                     if v is not None}
            out.append((a, b, c, d, t, g))
        return out

    got, want = drop_none(tidy(got)), drop_none(tidy(want))
    if got_threads != want_threads:
        print("tracks differ: only in perfetto:",
              sorted(map(str, got_threads - want_threads))[:5],
              "only in trace-event:",
              sorted(map(str, want_threads - got_threads))[:5])
        return 1
    if tidy_args(got_headers) != tidy_args(want_headers):
        print("headers differ")
        return 1
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("event %d differs:\n  perfetto:    %r\n  trace-event: %r"
                  % (i, g, w))
            return 1
    if len(got) != len(want):
        print("perfetto has %d events, trace-event %d" % (len(got),
                                                          len(want)))
        return 1
    kinds = {}
    for e in got:
        kinds[e[2]] = kinds.get(e[2], 0) + 1
    print("same: %d tracks, %d events (%s), %d headers" % (
        len(got_threads), len(got), ", ".join(
            "%s %d" % kv for kv in sorted(kinds.items())),
        len(got_headers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
