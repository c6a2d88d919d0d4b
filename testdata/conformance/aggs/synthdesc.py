"""Builder for the `dtsnap synth` descriptions of the aggs/, multiaggs/ and
printa/ conformance fixtures (format: testdata/SYNTH.md).

Used by the gen.py next to the larger fixtures:  run
    /usr/bin/python3 gen.py
in a fixture directory to rewrite its desc.json (the output is
deterministic and byte-identical to the committed file).

Conventions, shared by every fixture of these sections:
- header.os "freebsd" (dt_act_base 55), one CPU; options hold what the
  script's pragmas set, as libdtrace keeps them (a flag pragma such as
  `quiet` is 0 = set; rates in nanoseconds), plus strsize.
- EPIDs are numbered in clause order (one enabling per clause and probe).
  A clause whose only data-storing statements are aggregations is an
  "aggonly" eprobe ("recs": [], size 0: the kernel never writes a record
  for it).  A clause that stores nothing at all (only assignments, e.g.
  BEGIN { i = 0; }) still takes an EPID but is not described: nothing
  refers to it.  (Either way the size-0 DIFEXPR records of assignments,
  which the kernel's eprobedesc would list, are left out; no consumer
  output depends on them.)
- Aggregation ids are numbered per statement, in clause then statement
  order; variable ids in order of first appearance in the script.
- Updates are grouped as the kernel's dtrace_aggregate() groups them: in
  one buffer generation (between two snapshots) every statement that
  updates the same variable with the same key tuple adds to ONE entry,
  tagged with the aggid of the statement that created it, because the
  kernel hash compares the varid record and the key records, never the
  aggid.  (tst.stddev shows why it matters: its ten statements share one
  entry, whose 128-bit sum of squares carries; the consumer merge of
  separate entries would not carry.)
- count() entries are given as their raw value word ("value": [n]).
"""
import json
from collections import OrderedDict

BEGIN = (1, "dtrace", "", "", "BEGIN")
END = (2, "dtrace", "", "", "END")
ERROR = (3, "dtrace", "", "", "ERROR")
# profile and syscall probe ids as a FreeBSD kernel might number them
TICK = {"tick-1ms": 73104, "tick-10ms": 73106, "tick-100ms": 73108,
        "tick-1hour": 73114}
SYSCALL = {"write": (384, "entry"), "ioctl": (436, "entry")}

UNSET = -2
Q = {"quiet": 0}
EXIT = {"exit": True}


K4 = [{"trace": 4}]              # one int key
K8 = [{"trace": 8}]              # one 8-byte key
S = [{"trace": "string"}]        # one string key
INT64_MAX = (1 << 63) - 1


def C(n):
    """n count() updates"""
    return ["count"] * n


def tick(name):
    return (TICK[name], "profile", "", "", name)


def syscall(func, name="entry"):
    base = {"write": 384, "ioctl": 436}[func]
    return (base if name == "entry" else base + 1, "syscall", "", func, name)


def ms(n):
    return n * 1000000


RATES = {"quiet": 0, "aggrate": ms(1), "switchrate": ms(50)}


class Pass:
    """One consume pass.  Aggregation updates are grouped as the kernel's
    dtrace_aggregate() does: within one buffer generation (between two
    snapshots) all statements updating the same variable with the same key
    tuple share ONE entry, tagged with the aggid of the statement that
    created it (the hash compares the varid record and the keys, never the
    aggid)."""
    def __init__(self, desc):
        self.desc = desc
        self.entries = OrderedDict()   # (varid, keysig) -> [aggid, points]
        self.records = []
        self.status = None
        self.options = None

    def agg(self, aggid, key, *points):
        a = self.desc.aggs[aggid - 1]
        sig = (a["varid"], tuple(json.dumps(k, sort_keys=True)
            for k in a["keys"]), tuple(key))
        ent = self.entries.setdefault(sig, [aggid, []])
        if a.get("has_incr"):
            points = [p if isinstance(p, list) else [p, 1] for p in points]
        ent[1].extend(points)
        return self

    def fire(self, epid, data=None, ts=None):
        r = OrderedDict([("epid", epid)])
        if ts is not None:
            r["ts"] = ts
        r["data"] = data if data is not None else []
        self.records.append(r)
        return self

    def to_json(self):
        p = OrderedDict()
        if self.status is not None:
            p["status"] = self.status
        if self.entries:
            ents = []
            for (varid, ks, key), (aggid, pts) in self.entries.items():
                e = OrderedDict([("agg", aggid), ("key", list(key))])
                if pts and pts[0] == "count":
                    e["value"] = [len(pts)]
                else:
                    if any(isinstance(x, list) for x in pts):
                        pts = [x if isinstance(x, list) else [x, 1]
                            for x in pts]
                    e["data"] = pts
                ents.append(e)
            p["aggbufs"] = [OrderedDict([("cpu", 0), ("entries", ents)])]
        if self.records:
            p["bufs"] = [OrderedDict([("cpu", 0), ("records", self.records)])]
        return p


class Desc:
    def __init__(self, os="freebsd", options=None):
        self.os = os
        self.options = OrderedDict([("strsize", 256)])
        if options:
            self.options.update(options)
        self.probes = OrderedDict()
        self.eprobes = []
        self.nepid = 0
        self.epprobe = {}
        self.aggs = []
        self.varids = OrderedDict()
        self.passes = []
        self.exit_status = 0
        self.options_later = []

    # -- probes and clauses
    def _probe(self, p):
        pid = p[0]
        if pid not in self.probes:
            self.probes[pid] = OrderedDict([("id", pid), ("provider", p[1]),
                ("module", p[2]), ("function", p[3]), ("name", p[4])])
        return pid

    def clause(self, probe, recs=None):
        """One clause enabled on one probe.  recs None: the clause stores
        nothing in the principal buffer (no eprobe described); [] = default
        action (header-only record)."""
        self.nepid += 1
        pid = self._probe(probe)
        self.epprobe[self.nepid] = pid
        if recs is not None:
            self.eprobes.append(OrderedDict([("epid", self.nepid),
                ("probe", pid), ("recs", recs)]))
        return self.nepid

    # -- aggregations
    def var(self, *names):
        for n in names:
            if n not in self.varids:
                self.varids[n] = len(self.varids) + 1

    def agg(self, epid, name, func, keys=(), **params):
        self.var(name)
        a = OrderedDict([("id", len(self.aggs) + 1), ("epid", epid),
            ("varid", self.varids[name]), ("name", name),
            ("keys", list(keys)), ("func", func)])
        for k, v in params.items():
            a[k] = v
        self.aggs.append(a)
        return a["id"]

    def new_pass(self):
        p = Pass(self)
        self.passes.append(p)
        return p

    def to_json(self):
        d = OrderedDict()
        d["header"] = OrderedDict([("os", self.os), ("host", "fixture"),
            ("ncpu", 1)])
        d["options"] = self.options
        if self.options_later:
            d["options_later"] = self.options_later
        d["probes"] = list(self.probes.values())
        eps = list(self.eprobes)
        have = set(e["epid"] for e in eps)
        for a in self.aggs:
            if a["epid"] not in have:
                have.add(a["epid"])
                eps.append(OrderedDict([("epid", a["epid"]),
                    ("probe", self.epprobe[a["epid"]]), ("recs", []),
                    ("aggonly", True)]))
        d["eprobes"] = sorted(eps, key=lambda e: e["epid"])
        d["aggs"] = self.aggs
        d["passes"] = [p.to_json() for p in self.passes]
        d["end"] = OrderedDict([("exit_status", self.exit_status)])
        return d

    def dumps(self):
        return dumps(self.to_json())


def _big(v):
    if isinstance(v, int) and (v > 2**53 or v < -2**53):
        return str(v)
    if isinstance(v, list):
        return [_big(x) for x in v]
    if isinstance(v, (dict, OrderedDict)):
        return OrderedDict((k, _big(x)) for k, x in v.items())
    return v


def dumps(d):
    """Compact but readable: one line per probe/eprobe/agg/entry/record."""
    d = _big(d)
    out = ["{"]
    keys = list(d.keys())
    for i, k in enumerate(keys):
        v = d[k]
        comma = "," if i < len(keys) - 1 else ""
        if k in ("probes", "eprobes", "aggs", "options_later") and v:
            out.append('  "%s": [' % k)
            for j, x in enumerate(v):
                out.append("    " + json.dumps(x) +
                    ("," if j < len(v) - 1 else ""))
            out.append("  ]" + comma)
        elif k == "passes":
            out.append('  "passes": [')
            for j, p in enumerate(v):
                out.append("    {")
                pk = list(p.keys())
                for m, kk in enumerate(pk):
                    pc = "," if m < len(pk) - 1 else ""
                    if kk == "aggbufs":
                        ab = p[kk][0]
                        out.append('      "aggbufs": [ { "cpu": 0, "entries": [')
                        for n, e in enumerate(ab["entries"]):
                            out.append("        " + json.dumps(e) +
                                ("," if n < len(ab["entries"]) - 1 else ""))
                        out.append("      ] } ]" + pc)
                    elif kk == "bufs":
                        bb = p[kk][0]
                        out.append('      "bufs": [ { "cpu": 0, "records": [')
                        for n, r in enumerate(bb["records"]):
                            out.append("        " + json.dumps(r) +
                                ("," if n < len(bb["records"]) - 1 else ""))
                        out.append("      ] } ]" + pc)
                    else:
                        out.append('      "%s": %s%s' % (kk, json.dumps(p[kk]), pc))
                out.append("    }" + ("," if j < len(v) - 1 else ""))
            out.append("  ]" + comma)
        else:
            out.append('  "%s": %s%s' % (k, json.dumps(v), comma))
    out.append("}")
    return "\n".join(out) + "\n"
