"""pandas DataFrames of a capture's tables and aggregations.

Probes: one DataFrame per enabled probe (a DTrace v2 probe and statement):
index, cpu, timestamp, pass, then a column per data record (trace0 ...,
printf0_arg0 ..., exit).  Statements that are not plain data have the
first four only.

Aggregations: one DataFrame per aggregation, named "@name" ("@" alone for
the anonymous one; "@name#2" ... when two differ in layout): the keys as
key0, key1 ... (stacks as tuples of their frames' symbols, other
structured keys as the dict dt2json gives), then

  count, sum, min, max          value
  avg                           value, count, sum
  stddev                        value, count, sum, sum_sq
  quantize, lquantize,          a long table: one row per bucket dtrace
  llquantize                    shows (min, max: None for an open end;
                                count), the keys repeated
"""

from __future__ import annotations

from typing import Any, Dict, List


def _pd():
    try:
        import pandas
    except ImportError as e:           # pragma: no cover - depends on host
        raise ImportError("DataFrames need pandas (Debian: python3-pandas)") from e
    return pandas


def tables_to_frames(tables: Dict[Any, Any]) -> Dict[Any, Any]:
    pd = _pd()
    out = {}
    for key, t in tables.items():
        cols = {"index": t.index, "cpu": t.cpu, "timestamp": t.timestamp,
                "pass": t.pass_}
        for c in t.columns:
            cols[c.name] = c.values
        df = pd.DataFrame(cols)
        df.attrs["epid"] = t.epid
        df.attrs["probe"] = t.probe
        df.attrs["columns"] = [
            {"name": c.name, "action": c.action, "size": c.size,
             "format": c.format} for c in t.columns]
        out[key] = df
    return out


def _key(k: Any) -> Any:
    """A key as a hashable cell: stacks as tuples of frame symbols."""
    if isinstance(k, list):
        return tuple(f.get("symbol") if isinstance(f, dict) else f for f in k)
    return k


_SCALAR = {"count", "sum", "min", "max"}
_HIST = {"quantize", "lquantize", "llquantize"}


def aggregations_to_frames(lines: List[Dict[str, Any]]) -> Dict[str, Any]:
    pd = _pd()
    out: Dict[str, Any] = {}
    for line in lines:
        if line.get("type") != "aggregation":
            continue
        func = line["func"]
        nkeys = len(line["key_desc"])
        keys = [f"key{i}" for i in range(nkeys)]
        rows = []
        for row in line["rows"]:
            kv = {k: _key(v) for k, v in zip(keys, row["keys"])}
            val = row["values"][0]
            if func in _HIST:
                for b in val["buckets"]:
                    rows.append({**kv, "min": b["min"], "max": b["max"],
                                 "count": b["count"]})
            elif func == "avg":
                rows.append({**kv, "value": val["value"],
                             "count": val["count"], "sum": val["sum"]})
            elif func == "stddev":
                rows.append({**kv, "value": val["value"],
                             "count": val["count"], "sum": val["sum"],
                             "sum_sq": val["sum_sq"]})
            else:
                rows.append({**kv, "value": val["value"]})
        if func in _HIST:
            columns = keys + ["min", "max", "count"]
        elif func == "avg":
            columns = keys + ["value", "count", "sum"]
        elif func == "stddev":
            columns = keys + ["value", "count", "sum", "sum_sq"]
        else:
            columns = keys + ["value"]
        df = pd.DataFrame(rows, columns=columns)
        df.attrs["func"] = func
        df.attrs["params"] = line.get("params")
        df.attrs["key_desc"] = line["key_desc"]
        name = "@" + (line["name"] or "")
        base, n = name, 1
        while name in out:
            n += 1
            name = f"{base}#{n}"
        out[name] = df
    return out
