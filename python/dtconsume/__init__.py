"""dtconsume: DTrace captures (.dtsnap) in Python.

    import dtconsume

    cap = dtconsume.open("cap.dtsnap")
    for ev in cap:                      # dt2json's data model, as dicts
        ...
    for rec in cap.records():           # light records (trace/printf values)
        ...
    tables = cap.records(columns=True)  # numpy arrays per enabled probe
    frames = cap.to_pandas()            # DataFrames per probe and aggregation
    aggs = dtconsume.merge_aggregations(paths)   # as dtconsume --merge-aggs
    print(aggs.text(), end="")          # printed by libdtconsume's own code

Errors: a damaged capture is decoded as far as it can be; what was skipped
becomes a DecodeError (file, item, cpu, offset, code, text, and errors:
every problem of the run).  With errors="raise" (the default) the first is
raised once everything decodable was yielded; "warn" gives each to
warnings.warn as it comes; "ignore" keeps them in .errors only.  Of one
kind, 100 are kept (DTCONSUME_MAX_WARNINGS; 0: all), then one counts the
rest, as dtconsume prints them.

See python/README and libdtconsume(3).
"""

from __future__ import annotations

import builtins
import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from . import _dtconsume
from ._dtconsume import DecodeError, Record

__all__ = ["open", "Capture", "Table", "Column", "DecodeError", "Record",
           "Aggregations", "aggregations", "merge_aggregations",
           "library_version"]

Source = Any      # a path (str, os.PathLike), a binary file, or bytes
TableKey = Tuple[int, Optional[str]]   # (epid, "provider:module:function:name")


def library_version() -> str:
    """libdtconsume's version (the extension carries its own copy)."""
    return _dtconsume.version()


def _np():
    try:
        import numpy
    except ImportError as e:           # pragma: no cover - depends on host
        raise ImportError("columns need numpy (Debian: python3-numpy)") from e
    return numpy


class Column:
    """One record of a statement: a value per row.

    name      trace0, trace1 ... for trace() values, printf0_arg0 ... for
              printf() arguments, exit for exit()'s status
    kind      "int" (values: numpy int64, as dt2json shows them: 1- and
              2-byte records unsigned, 4 and 8 signed) or "bytes" (values:
              numpy object array of str, or bytes where the record is not a
              string as dtrace prints one)
    action, size, format, argindex, recindex: the record's description
    """

    __slots__ = ("name", "kind", "action", "size", "format", "argindex",
                 "recindex", "values")

    def __init__(self, name: str, desc: Dict[str, Any], values: Any) -> None:
        self.name = name
        self.kind = desc["kind"]
        self.action = desc["action"]
        self.size = desc["size"]
        self.format = desc["format"]
        self.argindex = desc["argindex"]
        self.recindex = desc["recindex"]
        self.values = values

    def __repr__(self) -> str:
        return f"Column({self.name!r}, {self.kind}, {len(self.values)} rows)"


class Table:
    """The record sets of one enabled probe (a DTrace v2 probe and
    statement), as numpy arrays: index (the record set's place in the
    capture, as dtc_reader_next orders them), cpu, timestamp, pass_, and the
    columns when the statement is plain data (data is True); a statement
    with other records (printa, stack, print() ...) has rows only."""

    __slots__ = ("epid", "probeid", "probe", "data", "index", "cpu",
                 "timestamp", "pass_", "columns")

    def __init__(self, d: Dict[str, Any]) -> None:
        self.epid: int = d["epid"]
        self.probeid: int = d["probeid"]
        self.probe: Optional[str] = d["probe"]
        self.data: bool = d["data"]
        self.index = self.cpu = self.timestamp = self.pass_ = None
        self.columns: List[Column] = []

    @property
    def key(self) -> TableKey:
        return (self.epid, self.probe)

    def __len__(self) -> int:
        return 0 if self.index is None else len(self.index)

    def __repr__(self) -> str:
        return (f"Table(epid={self.epid}, probe={self.probe!r}, "
                f"{len(self)} rows, columns={[c.name for c in self.columns]})")

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)


def _column_names(cols: List[Dict[str, Any]]) -> List[str]:
    names, ntrace, nprintf = [], 0, -1
    for c in cols:
        if c["action"] == "printf":
            if c["argindex"] == 0:
                nprintf += 1
            names.append(f"printf{nprintf}_arg{c['argindex']}")
        elif c["action"] == "exit":
            names.append("exit")
        else:
            names.append(f"trace{ntrace}")
            ntrace += 1
    return names


def _batch_arrays(np, d: Dict[str, Any]) -> Dict[str, Any]:
    """One table of one batch: bytes from the extension -> numpy arrays."""
    out = {"index": np.frombuffer(d["index"], dtype=np.uint64),
           "timestamp": np.frombuffer(d["timestamp"], dtype=np.uint64),
           "cpu": np.frombuffer(d["cpu"], dtype=np.int32),
           "pass_": np.frombuffer(d["pass"], dtype=np.uint32),
           "cols": []}
    for c in d["columns"]:
        if c["kind"] == "int":
            out["cols"].append(np.frombuffer(c["values"], dtype=np.int64))
        else:
            # one str per distinct value, then an index per row
            vals, codes = _dtconsume.uniques(c["offsets"], c["data"],
                                             c["isstr"])
            uniq = np.empty(len(vals), dtype=object)
            uniq[:] = vals
            out["cols"].append(uniq.take(np.frombuffer(codes,
                                                       dtype=np.int64)))
    return out


class Capture:
    """A capture to read.  Each iteration reads it again from the start
    (a file object or pipe can be read once)."""

    def __init__(self, source: Source, *, temporal: bool = False,
                 options: Optional[Dict[str, Any]] = None,
                 name: Optional[str] = None, errors: str = "raise",
                 probe: Any = None, cpu: Any = None, epid: Any = None,
                 since: Any = None, until: Any = None) -> None:
        if isinstance(source, (str, os.PathLike)):
            source = os.fspath(source)
        self.source = source
        self.select = _selection(probe=probe, cpu=cpu, epid=epid,
                                 since=since, until=until)
        self.temporal = temporal
        self.options = options
        self.name = name
        self.errors_mode = errors
        self.errors: List[DecodeError] = []
        self.header: Optional[Dict[str, Any]] = None

    def __enter__(self) -> "Capture":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def __repr__(self) -> str:
        return f"dtconsume.Capture({self.source if isinstance(self.source, str) else '<data>'!r})"

    # -- the program (issue 23) --------------------------------------------

    @property
    def program(self) -> Optional[Dict[str, Any]]:
        """The program behind the capture (dtsnap(5), program item), or
        None when the capture has none: {"sources": [{"opt", "arg",
        "text"}], "options": [{"opt", "arg"}], "macros": [...],
        "clauses": n, "listing": the clauses as dtrace -S printed them,
        or None}.  Read without decoding the trace."""
        return _dtconsume.program(self.source, name=self.name)

    # -- events ------------------------------------------------------------

    def events(self) -> Iterator[Dict[str, Any]]:
        """The events as dt2json's lines (dicts): header, probe, exit,
        aggregation, drop, error, notice, end.  Integers are ints at any
        size, addresses ints, byte data bytes (JSON: decimal strings past
        2^53, "0x..." strings, hex)."""
        # the extension's iterator itself (no Python call per event): it
        # sets self.header when it makes the header line
        ev = _dtconsume.Events(self.source, temporal=self.temporal,
                               options=self.options, name=self.name,
                               errors=self.errors_mode, select=self.select,
                               owner=self)
        self.errors = ev.errors
        return ev

    __iter__ = events

    # -- records -----------------------------------------------------------

    def records(self, columns: bool = False, max_rows: int = 1 << 20):
        """The record sets through the batch reader
        (dtc_batch_open_file(3)).  columns=False: Record objects (index, cpu, timestamp,
        pass_, epid, probe, values) in the order of the events;
        columns=True: {(epid, probe): Table} with numpy arrays."""
        if not columns:
            it = _dtconsume.Records(self.source, temporal=self.temporal,
                                    name=self.name, errors=self.errors_mode,
                                    max_rows=max_rows, select=self.select)
            self.errors = it.errors
            return it
        tables: Dict[TableKey, Table] = {}
        parts: Dict[TableKey, List[Dict[str, Any]]] = {}
        for batch in self.batches(max_rows=max_rows, _raw=True):
            for d in batch:
                key = (d["epid"], d["probe"])
                if key not in tables:
                    tables[key] = Table(d)
                    tables[key].columns = [
                        Column(n, c, None) for n, c in
                        zip(_column_names(d["columns"]), d["columns"])]
                parts.setdefault(key, []).append(d["arrays"])
        np = _np()
        for key, t in tables.items():
            ps = parts[key]
            # one batch (up to max_rows rows): its arrays as they are
            cat = (lambda xs: xs[0]) if len(ps) == 1 else np.concatenate
            t.index = cat([p["index"] for p in ps])
            t.timestamp = cat([p["timestamp"] for p in ps])
            t.cpu = cat([p["cpu"] for p in ps])
            t.pass_ = cat([p["pass_"] for p in ps])
            for k, c in enumerate(t.columns):
                c.values = cat([p["cols"][k] for p in ps])
        return tables

    def batches(self, max_rows: int = 1 << 20, _raw: bool = False):
        """The record sets in batches of at most max_rows: per batch a list
        of dicts (epid, probeid, probe, data and numpy arrays), for
        captures too large to hold as columns at once."""
        np = _np()
        b = _dtconsume.Batches(self.source, temporal=self.temporal,
                               name=self.name, errors=self.errors_mode,
                               select=self.select)
        self.errors = b.errors
        try:
            while True:
                batch = b.read(max_rows)
                if self.header is None:
                    self.header = b.header
                if batch is None:
                    return
                for d in batch:
                    d["arrays"] = _batch_arrays(np, d)
                yield batch
        finally:
            b.close()

    # -- aggregations and frames ------------------------------------------

    def aggregations(self, errors: str = "warn") -> "Aggregations":
        """This capture's aggregations at its end, as dtconsume
        --merge-aggs merges them (normalize() factors are not applied)."""
        return merge_aggregations([self.source], temporal=self.temporal,
                                  options=self.options, errors=errors)

    # -- pictures (dtconsume(1), PICTURES) --------------------------------

    def _render(self, fmt: str, out: Any, folded_keys: int) -> Optional[str]:
        def run(fd: int) -> Optional[str]:
            return _dtconsume.render(
                self.source, fmt, fd=fd, temporal=self.temporal,
                options=self.options, name=self.name,
                errors=self.errors_mode, select=self.select,
                folded_keys=folded_keys)
        if out is None:
            return run(-1)
        if isinstance(out, (str, os.PathLike)):
            with builtins.open(os.fspath(out), "wb") as f:
                return run(f.fileno())
        out.flush()
        return run(out.fileno())

    @staticmethod
    def _keys(folded_key: Optional[Iterable[int]]) -> int:
        bits = 0
        for k in folded_key or ():
            if not 1 <= k <= 64:
                raise ValueError("folded_key positions are 1 to 64")
            bits |= 1 << (k - 1)
        return bits

    def to_flamegraph(self, out: Any = None, *,
                      folded_key: Optional[Iterable[int]] = None
                      ) -> Optional[str]:
        """The interactive flame graph of dtconsume -f flamegraph (an SVG
        document) as a str, or written to out (a path or a binary file
        object; None is returned then).  folded_key: the aggregation key
        positions kept as frames (--folded-key; 1 is the first)."""
        return self._render("flamegraph", out, self._keys(folded_key))

    def to_speedscope(self, out: Any = None, *,
                      folded_key: Optional[Iterable[int]] = None
                      ) -> Optional[str]:
        """speedscope's JSON file format (dtconsume -f speedscope), as a
        str or written to out as to_flamegraph() does."""
        return self._render("speedscope", out, self._keys(folded_key))

    def to_trace_event(self, out: Any = None) -> Optional[str]:
        """Chrome/Perfetto trace events (dtconsume -f trace-event).  Given
        out (a path or a binary file object) it is written there as the
        capture is decoded, in bounded memory; without, returned as a str
        (the whole document in memory)."""
        return self._render("trace-event", out, 0)

    def to_pandas(self) -> Dict[str, Dict[Any, Any]]:
        """{"probes": {(epid, probe): DataFrame}, "aggregations":
        {"@name": DataFrame}}: see dtconsume._frames."""
        from . import _frames
        return {"probes": _frames.tables_to_frames(self.records(columns=True)),
                "aggregations": self.aggregations().to_pandas()}


def _selection(**kw: Any) -> List[Tuple[str, str]]:
    """dtconsume's --probe/--cpu/--epid/--since/--until as (what, value)
    pairs for libdtconsume's dtc_reader_select: each value a str or int, or a
    list of them (any of which may match)."""
    pairs: List[Tuple[str, str]] = []
    for what in ("probe", "cpu", "epid", "since", "until"):
        v = kw.get(what)
        if v is None:
            continue
        vs = v if isinstance(v, (list, tuple, set, frozenset)) else [v]
        for x in vs:
            if isinstance(x, bool) or not isinstance(x, (str, int)):
                raise TypeError(f"{what}: a str or int, or a list of them")
            pairs.append((what, str(x)))
    return pairs


def open(source: Source, **kw: Any) -> Capture:
    """A capture: a path, a binary file object (read through its file
    descriptor from where it stands) or the bytes of one.  Keywords:
    temporal (merge CPUs by timestamp), options ({name: value} as dtrace
    -x), name (the file name in messages), errors ("raise", "warn",
    "ignore"), and the firings to take, as dtconsume's options: probe
    (a provider:module:function:name glob), cpu and epid (numbers or
    lists such as "0,2-3"), since and until (ns, "+1.5s" after the first
    record, or a wall-clock time "2026-11-25T16:00:00Z"); a value may be
    a list (any matches), the criteria together must all be met.  They
    apply to events(), records() and batches(); aggregations are not
    filtered, as with dtconsume."""
    return Capture(source, **kw)


# -- aggregations -----------------------------------------------------------

class Aggregations:
    """Aggregations at the end of one or more runs, merged as dtconsume
    --merge-aggs merges them.  a + b merges two; the object pickles to its
    bytes (a small capture holding only the aggregations, their printing
    options and symbols), which is all that crosses the network when a
    Dask cluster folds them.  text() prints them with libdtconsume's own
    printing; lines() gives dt2json's aggregation lines; to_pandas() a
    DataFrame per aggregation."""

    __slots__ = ("data", "errors")

    def __init__(self, data: bytes, errors: Iterable[Any] = ()) -> None:
        self.data = bytes(data)
        self.errors = list(errors)

    def __add__(self, other: "Aggregations") -> "Aggregations":
        if not isinstance(other, Aggregations):
            return NotImplemented
        data, errs = _dtconsume.merge_aggs([self.data, other.data])
        return Aggregations(data, self.errors + other.errors + errs)

    def __radd__(self, other: Any) -> "Aggregations":
        if isinstance(other, int) and other == 0:     # sum([...])
            return self
        return NotImplemented

    def __reduce__(self):
        return (Aggregations, (self.data, self.errors))

    def __bytes__(self) -> bytes:
        return self.data

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"Aggregations({len(self.data)} bytes)"

    def text(self) -> str:
        """The aggregations exactly as dtconsume prints them at the end of
        a run (the run's final newline, which dtconsume prints before
        them, is not part of it)."""
        return _dtconsume.agg_text(self.data)

    def lines(self) -> List[Dict[str, Any]]:
        """dt2json's "aggregation" lines of these aggregations."""
        return _dtconsume.agg_lines(self.data)

    def to_pandas(self) -> Dict[str, Any]:
        from . import _frames
        return _frames.aggregations_to_frames(self.lines())

    def save(self, path: str) -> None:
        """Write the aggregations as a capture: dtconsume reads it."""
        with builtins.open(path, "wb") as f:
            f.write(self.data)


def _finish(aggs: Aggregations, errors: str) -> Aggregations:
    if aggs.errors:
        if errors == "raise":
            first = aggs.errors[0]
            first.errors = aggs.errors
            raise first
        if errors == "warn":
            import warnings
            for e in aggs.errors:
                warnings.warn(str(e), RuntimeWarning, stacklevel=3)
    return aggs


def merge_aggregations(sources: Iterable[Source], *, temporal: bool = False,
                       options: Optional[Dict[str, Any]] = None,
                       errors: str = "warn") -> Aggregations:
    """The aggregations of several captures merged, as dtconsume
    --merge-aggs merges them: same name, function, parameters and keys
    merge; the first capture's options and symbols print them.  Sources
    may be Aggregations too: merging many at once reads each once, where
    a + b + c ... writes every intermediate result.  Problems are
    reported as dtconsume reports them (errors="warn"), raised, or kept
    in .errors ("ignore")."""
    srcs, kept = [], []
    for s in sources:
        if isinstance(s, Aggregations):      # merged before: its capture
            srcs.append(s.data)
            kept.extend(s.errors)
        elif isinstance(s, (str, os.PathLike)):
            srcs.append(os.fspath(s))
        else:
            srcs.append(s)
    data, errs = _dtconsume.merge_aggs(srcs, temporal=temporal,
                                       options=options)
    return _finish(Aggregations(data, kept + errs), errors)


def aggregations(source: Source, **kw: Any) -> Aggregations:
    """One capture's aggregations (merge_aggregations of one)."""
    return merge_aggregations([source], **kw)
