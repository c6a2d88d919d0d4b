"""legacy_model.py: a small reference model of the legacy (illumos/FreeBSD)
libdtrace consumer and dtrace(1), driven directly by a `dtsnap synth`
description (testdata/SYNTH.md), for the aggs/, multiaggs/ and printa/
conformance fixtures.

    /usr/bin/python3 legacy_model.py DIR/desc.json     # prints stdout

It is a transcription of OpenDTrace lib/libdtrace/common/dt_consume.c,
dt_aggregate.c and dt_printf.c (kernel side: dtrace.c dtrace_aggregate_*),
limited to what these fixtures use: trace() of integers and strings,
printf/printa formats (pickled form), clear/normalize/denormalize/trunc/
setopt, exit, the consumer aggregation merge, the comparators and
dt_aggregate_qsort, joined printa (dtrace_aggregate_walk_joined with zero
fill), the default aggregation printers, quantize/lquantize/llquantize
histograms with x87 long double rounding, stddev, and dtrace(1)'s
end-of-run printing in _DTRACE_TESTING mode.  No stderr, no stacks or
symbols, no ring buffers, one CPU.

It was used to derive the expected.r of the legacy-corrected fixtures
(those with a LEGACY file) and to check every other description against
its corpus .r before the C decoder existed.  It is not the decoder and
not ground truth; where it and the C sources disagree, the sources win.
"""
import functools
import re
import sys
from fractions import Fraction

M64 = 1 << 64
UNSET = -2
INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


def s64(v):
    v &= M64 - 1
    return v - M64 if v >= 1 << 63 else v


def u64(v):
    return v & (M64 - 1)


def num(v):
    if isinstance(v, str):
        return int(v, 0)
    return v


# ---------------------------------------------------------------- long double
def ld(x):
    """Round a rational to the x87 80-bit format (64-bit significand)."""
    x = Fraction(x)
    if x == 0:
        return x
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    # find e with 2^e <= a < 2^(e+1)
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    scale = Fraction(2) ** (e - 63)
    m = a / scale
    q, r = divmod(m.numerator, m.denominator)
    rem = Fraction(r, m.denominator)
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and q % 2 == 1):
        q += 1
    return sign * q * scale


# ---------------------------------------------------------------- kernel side
def qbucketval(b):
    if b < 63:
        return -(1 << (62 - b))
    if b == 63:
        return 0
    return 1 << (b - 64)


def quantize_bucket(val):
    val = s64(val)
    if val < 0:
        for i in range(63):
            if val <= qbucketval(i):
                return i
        raise AssertionError
    for i in range(64, 127):
        if val < qbucketval(i):
            return i - 1
    return 126


def lq_arg(base, limit, step):
    levels = (limit - base) // step
    return (step << 48) | (levels << 32) | (base & 0xffffffff)


def lq_parts(arg):
    base = arg & 0xffffffff
    if base >= 1 << 31:
        base -= 1 << 32
    return base, (arg >> 48) & 0xffff, (arg >> 32) & 0xffff


def llq_arg(factor, low, high, nsteps):
    return (factor << 48) | (low << 32) | (high << 16) | nsteps


def llq_parts(arg):
    return ((arg >> 48) & 0xffff, (arg >> 32) & 0xffff, (arg >> 16) & 0xffff,
        arg & 0xffff)


def llq_bucket(factor, low, high, nsteps, value):
    this = 1
    for order in range(low):
        this *= factor
    if value < this:
        return 0
    last = this
    base = 1
    this *= factor
    order = low
    while order <= high:
        nbuckets = this if this <= nsteps else nsteps
        nxt = this * factor
        if nxt >= M64 // 2 or nxt < this:
            value = this - 1
        if value < this:
            return base + (value - last) // (this // nbuckets)
        base += nbuckets - nbuckets // factor
        last = this
        this = nxt
        order += 1
    return base


def func_init(a):
    f = a["func"]
    if f in ("count", "sum"):
        return [0]
    if f == "min":
        return [INT64_MAX]
    if f == "max":
        return [INT64_MIN]
    if f == "avg":
        return [0, 0]
    if f == "stddev":
        return [0, 0, 0, 0]
    if f == "quantize":
        return [0] * 127
    if f == "lquantize":
        arg = lq_arg(a["base"], a["limit"], a.get("step", 1))
        _, _, levels = lq_parts(arg)
        return [arg] + [0] * (levels + 2)
    if f == "llquantize":
        fa, lo, hi, ns = a["factor"], a["low"], a["high"], a["nsteps"]
        n = llq_bucket(fa, lo, hi, ns, INT64_MAX) + 2
        return [llq_arg(fa, lo, hi, ns)] + [0] * (n - 1)
    raise ValueError(f)


def func_update(a, v, x, incr=1):
    f = a["func"]
    x = s64(num(x))
    incr = s64(num(incr))
    if f == "count":
        v[0] = s64(v[0] + 1)
    elif f == "sum":
        v[0] = s64(v[0] + x)
    elif f == "min":
        if x < v[0]:
            v[0] = x
    elif f == "max":
        if x > v[0]:
            v[0] = x
    elif f == "avg":
        v[0] = s64(v[0] + 1)
        v[1] = s64(v[1] + x)
    elif f == "stddev":
        v[0] = s64(v[0] + 1)
        v[1] = s64(v[1] + x)
        sq = abs(x) * abs(x)
        cur = u64(v[2]) | (u64(v[3]) << 64)
        cur = (cur + sq) % (1 << 128)
        v[2] = s64(cur & (M64 - 1))
        v[3] = s64(cur >> 64)
    elif f == "quantize":
        b = quantize_bucket(x)
        v[b] = s64(v[b] + incr)
    elif f == "lquantize":
        base, step, levels = lq_parts(v[0])
        val = s64(x) & 0xffffffff
        if val >= 1 << 31:
            val -= 1 << 32
        if val < base:
            i = 1
        else:
            level = (val - base) // step
            i = level + 2 if level < levels else levels + 2
        v[i] = s64(v[i] + incr)
    elif f == "llquantize":
        fa, lo, hi, ns = llq_parts(v[0])
        b = llq_bucket(fa, lo, hi, ns, x) + 1
        v[b] = s64(v[b] + incr)
    else:
        raise ValueError(f)


# ---------------------------------------------------------------- C printf
def cfmt(spec, conv, value):
    """spec: flags/width/prec text without '%', conv: final C letter."""
    if conv in "di":
        return ("%" + spec + "d") % value
    if conv in "uxXo":
        return ("%" + spec + conv.replace("u", "d")) % value
    if conv == "c":
        return ("%" + spec + "c") % chr(value & 0xff)
    if conv == "s":
        return ("%" + spec + "s") % value
    raise ValueError(conv)


# ---------------------------------------------------------------- the model
class Model:
    def __init__(self, desc, testing=True):
        self.d = desc
        self.os = desc.get("header", {}).get("os", "freebsd")
        self.opts = {}
        for k, v in desc.get("options", {}).items():
            self.opts[k] = v
        self.strsize = num(self.opts.get("strsize", 256))
        self.probes = {p["id"]: p for p in desc.get("probes", [])}
        self.eprobes = {e["epid"]: e for e in desc.get("eprobes", [])}
        self.aggs = {a["id"]: a for a in desc.get("aggs", [])}
        self.varbyname = {}
        for a in desc.get("aggs", []):
            self.varbyname.setdefault(a["name"], a["varid"])
        self.hash = []          # entries in insertion order
        self.printed = set()    # aggids with DTRACE_AGD_PRINTED
        self.out = []
        self.err = []
        self.testing = testing
        self.heading = False
        self.exit_status = None

    def opt(self, name):
        v = self.opts.get(name, UNSET)
        if isinstance(v, str):
            return v
        return v

    def isset(self, name):
        return self.opt(name) != UNSET

    def p(self, s):
        self.out.append(s)

    # ---- keys
    def keysize(self, rec):
        t = rec.get("trace")
        if isinstance(t, int):
            return t
        if t == "string":
            return num(rec.get("size", self.strsize))
        raise ValueError(rec)

    def keyval(self, rec, v):
        size = self.keysize(rec)
        if rec.get("trace") == "string":
            b = v.encode("latin-1")[:size]
            return (size, "s", b + b"\0" * (size - len(b)))
        return (size, "i", u64(num(v)) & ((1 << (8 * size)) - 1))

    # ---- aggregation snapshots
    def snap(self, aggbufs):
        for ab in aggbufs:
            for ent in ab.get("entries", []):
                aggid = ent["agg"]
                if isinstance(aggid, str):
                    aggid = min(a["id"] for a in self.aggs.values()
                        if a["name"] == aggid)
                a = self.aggs[aggid]
                keys = tuple(self.keyval(r, v) for r, v in
                    zip(a["keys"], ent.get("key", [])))
                if "value" in ent:
                    val = [s64(num(x)) for x in ent["value"]]
                    if a["func"] in ("lquantize", "llquantize") and \
                            len(val) == len(func_init(a)) - 1:
                        val = [func_init(a)[0]] + val
                else:
                    val = func_init(a)
                    for pt in ent.get("data", []):
                        if isinstance(pt, list):
                            func_update(a, val, pt[0], pt[1])
                        else:
                            func_update(a, val, pt)
                self.merge(aggid, a, keys, val)

    def merge(self, aggid, a, keys, val):
        for e in self.hash:
            if e["varid"] == a["varid"] and e["keys"] == keys and \
                    len(e["val"]) == len(val):
                ea = self.aggs[e["aggid"]]
                f = ea["func"]
                ev = e["val"]
                if f == "min":
                    if val[0] < ev[0]:
                        ev[0] = val[0]
                elif f == "max":
                    if val[0] > ev[0]:
                        ev[0] = val[0]
                elif f in ("lquantize", "llquantize"):
                    for i in range(1, len(ev)):
                        ev[i] = s64(ev[i] + val[i])
                else:
                    for i in range(len(ev)):
                        ev[i] = s64(ev[i] + val[i])
                return
        self.hash.append({"aggid": aggid, "varid": a["varid"], "keys": keys,
            "val": list(val), "normal": 1})

    # ---- comparators
    def rev(self):
        return -1 if self.sort_rev else 1

    def varcmp(self, l, r):
        if l["varid"] != r["varid"]:
            return self.rev() * (-1 if l["varid"] < r["varid"] else 1)
        return 0

    def keycmp(self, l, r):
        lk, rk = l["keys"], r["keys"]
        if len(lk) != len(rk):
            return self.rev() * (-1 if len(lk) < len(rk) else 1)
        nrecs = len(lk) + 1
        keypos = 0 if self.sort_keypos + 1 >= nrecs else self.sort_keypos
        for i in range(1, nrecs):
            ndx = i + keypos
            if ndx >= nrecs:
                ndx = ndx - nrecs + 1
            a, b = lk[ndx - 1], rk[ndx - 1]
            if a[0] != b[0]:
                return self.rev() * (-1 if a[0] < b[0] else 1)
            if a[1] != b[1]:
                return self.rev() * (-1 if a[1] == "i" else 1)
            if a[2] != b[2]:
                return self.rev() * (-1 if a[2] < b[2] else 1)
        return 0

    def sortval(self, e):
        a = self.aggs[e["aggid"]]
        f = a["func"]
        v = e["val"]
        if f in ("count", "sum", "min", "max"):
            return (v[0], 0)
        if f == "avg":
            return (ctrunc(v[1], v[0]) if v[0] else 0, 0)
        if f == "stddev":
            return (stddev(v, 1), 0)
        if f == "quantize":
            tot = Fraction(0)
            for i in range(127):
                tot = ld(tot + ld(Fraction(qbucketval(i)) * v[i]))
            return (tot, v[63])
        if f == "lquantize":
            base, step, levels = lq_parts(v[0])
            q = v[1:]
            tot = ld(Fraction(q[0]) * (base - 1))
            b = base
            for i in range(levels):
                tot = ld(tot + ld(Fraction(q[i + 1]) * b))
                b += step
            tot = ld(tot + ld(Fraction(q[levels + 1]) * (b + 1)))
            # zero
            base0 = base
            zero = 0
            if base0 - 1 == 0:
                zero = q[0]
            else:
                b = base0
                found = False
                for i in range(levels):
                    if b == 0:
                        zero = q[i + 1]
                        found = True
                        break
                    b += step
                if not found:
                    zero = q[levels + 1] if b + 1 == 0 else 0
            return (tot, zero)
        if f == "llquantize":
            fa, lo, hi, ns = llq_parts(v[0])
            q = v[1:]
            value = 1
            for _ in range(lo):
                value *= fa
            b = 0
            tot = ld(Fraction(q[b]) * (value - 1))
            b += 1
            nxt = value * fa
            step = nxt // ns if nxt > ns else 1
            order = lo
            while order <= hi:
                tot = ld(tot + ld(Fraction(q[b]) * value))
                b += 1
                value += step
                if value != nxt:
                    continue
                nxt = value * fa
                step = nxt // ns if nxt > ns else 1
                order += 1
            tot = ld(tot + ld(Fraction(q[b]) * value))
            return (tot, q[0])
        raise ValueError(f)

    def valcmp(self, l, r):
        a, b = self.sortval(l), self.sortval(r)
        if a[0] != b[0]:
            return self.rev() * (-1 if a[0] < b[0] else 1)
        if a[1] != b[1]:
            return self.rev() * (-1 if a[1] < b[1] else 1)
        return 0

    def varvalcmp(self, l, r):
        return self.varcmp(l, r) or self.valcmp(l, r) or self.keycmp(l, r)

    def varkeycmp(self, l, r):
        return self.varcmp(l, r) or self.keycmp(l, r)

    def keyvarcmp(self, l, r):
        return self.keycmp(l, r) or self.varcmp(l, r)

    def sorted_walk(self, entries, cmp=None):
        if cmp is None:
            self.sort_rev = self.isset("aggsortrev")
            self.sort_keysort = self.isset("aggsortkey")
            kp = self.opt("aggsortkeypos")
            self.sort_keypos = num(kp) if kp != UNSET else 0
            cmp = self.varkeycmp if self.sort_keysort else self.varvalcmp
        else:
            self.sort_rev = False
            self.sort_keysort = False
            self.sort_keypos = 0
        return sorted(entries, key=functools.cmp_to_key(cmp))

    # ---- printing of data
    def print_datum_key(self, k):
        size, kind, v = k
        if kind == "s":
            self.p(print_bytes(v, -50, False))
            return
        w = {1: 3, 2: 5, 4: 8, 8: 16}[size]
        if size == 8:
            self.p(" %*d" % (w, s64(v)))
        elif size == 4:
            self.p(" %*d" % (w, v - (1 << 32) if v >= 1 << 31 else v))
        else:
            self.p(" %*d" % (w, v))

    def print_value(self, e):
        a = self.aggs[e["aggid"]]
        f = a["func"]
        v = e["val"]
        normal = e["normal"]
        if f in ("count", "sum", "min", "max"):
            self.p(" %16d" % s64(u64(v[0]) // normal))
        elif f == "avg":
            self.p(" %16d" % (s64(ctrunc(ctrunc(v[1], normal), v[0]))
                if v[0] else 0))
        elif f == "stddev":
            self.p(" %16d" % (stddev(v, normal) if v[0] else 0))
        elif f == "quantize":
            self.p(print_quantize(v, normal))
        elif f == "lquantize":
            self.p(print_lquantize(v, normal))
        elif f == "llquantize":
            self.p(print_llquantize(v, normal))

    def print_aggs(self, bundle, allunprint):
        """bundle: [representative] for one var; [rep, v1, v2...] joined."""
        rep = bundle[0]
        for k in rep["keys"]:
            self.print_datum_key(k)
        vals = bundle if len(bundle) == 1 else bundle[1:]
        for e in vals:
            self.print_value(e)
            if not allunprint:
                self.printed.add(e["aggid"])
        self.p("\n")

    # ---- formatted printa / printf
    def fmt_parse(self, fmt):
        """Return list of (prefix, conv) where conv is None or a dict."""
        pieces = []
        i = 0
        pre = ""
        n = len(fmt)
        while i < n:
            c = fmt[i]
            if c != "%":
                pre += c
                i += 1
                continue
            i += 1
            if fmt[i] == "%":
                pieces.append((pre, {"name": "%"}))
                pre = ""
                i += 1
                continue
            cv = {"alt": 0, "zpad": 0, "left": 0, "spos": 0, "space": 0,
                "group": 0, "dynw": 0, "dynp": 0, "agg": 0, "width": 0,
                "prec": 0}
            while True:
                c = fmt[i]
                if c == "#":
                    cv["alt"] = 1
                elif c == "0" and cv["width"] == 0:
                    cv["zpad"] = 1
                elif c == "-":
                    cv["left"] = 1
                elif c == "+":
                    cv["spos"] = 1
                elif c == " ":
                    cv["space"] = 1
                elif c == "'":
                    cv["group"] = 1
                elif c == "@":
                    cv["agg"] = 1
                elif c == "*":
                    cv["dynw"] = 1
                elif c == "?":
                    cv["width"] = 16
                elif c == ".":
                    if fmt[i + 1] == "*":
                        cv["dynp"] = 1
                        i += 1
                    else:
                        j = i + 1
                        while fmt[j].isdigit():
                            j += 1
                        cv["prec"] = int(fmt[i + 1:j] or "0")
                        i = j - 1
                elif c.isdigit():
                    j = i
                    while fmt[j].isdigit():
                        j += 1
                    cv["width"] = int(fmt[i:j])
                    i = j - 1
                else:
                    break
                i += 1
            m = re.match(r"(hh|h|ll|l|L|w)?([a-zA-Z])", fmt[i:])
            cv["name"] = m.group(0)
            cv["len"] = m.group(1) or ""
            cv["conv"] = m.group(2)
            i += len(m.group(0))
            pieces.append((pre, cv))
            pre = ""
        if pre:
            pieces.append((pre, None))
        return pieces

    def do_format(self, fmt, recs, aggsdata=None):
        """recs: list of (size, kind, value) consumed in order.  aggsdata:
        list of entries (joined: [rep, v1..]); returns text."""
        out = []
        pieces = self.fmt_parse(fmt)
        curagg = (1 if aggsdata and len(aggsdata) > 1 else 0)
        ri = 0
        for pre, cv in pieces:
            out.append(pre)
            if cv is None:
                continue
            if cv["name"] == "%":
                out.append("%")
                continue
            width, prec = cv["width"], cv["prec"]
            if cv["dynp"]:
                prec = recint(recs[ri]); ri += 1
            if cv["dynw"]:
                width = recint(recs[ri]); ri += 1
            spec = ""
            if cv["alt"]:
                spec += "#"
            if cv["zpad"]:
                spec += "0"
            if width < 0 or cv["left"]:
                spec += "-"
            if cv["spos"]:
                spec += "+"
            if cv["space"]:
                spec += " "
            if width:
                spec += str(abs(width))
            if prec > 0:
                spec += ".%d" % prec
            conv = cv["conv"]
            if cv["agg"]:
                e = aggsdata[curagg]
                if curagg < len(aggsdata) - 1:
                    curagg += 1
                a = self.aggs[e["aggid"]]
                f = a["func"]
                v = e["val"]
                normal = e["normal"]
                if f == "quantize":
                    out.append(print_quantize(v, normal)); continue
                if f == "lquantize":
                    out.append(print_lquantize(v, normal)); continue
                if f == "llquantize":
                    if self.os == "freebsd":
                        out.append(print_llquantize(v, normal)); continue
                    raise ValueError("illumos %@ llquantize")
                if f == "avg":
                    x = (u64(v[1]) // normal // u64(v[0])) if v[0] else 0
                    out.append(self.int_conv(spec, conv, cv, 8, x)); continue
                if f == "stddev":
                    x = stddev(v, normal) if v[0] else 0
                    out.append(self.int_conv(spec, conv, cv, 8, x)); continue
                x = v[0]
                if conv in "di":
                    x = s64(u64(x) // normal) if normal != 1 else x
                else:
                    x = u64(x) // normal
                out.append(self.int_conv(spec, conv, cv, 8, x))
                continue
            size, kind, val = recs[ri]
            ri += 1
            if conv == "s":
                if kind == "s":
                    s = val.split(b"\0")[0].decode("latin-1")
                else:
                    raise ValueError("%s of int")
                out.append(cfmt(spec, "s", s))
            else:
                out.append(self.int_conv(spec, conv, cv, size, val))
        return "".join(out)

    def int_conv(self, spec, conv, cv, size, val):
        bits = 8 * size
        uv = u64(val) & ((1 << bits) - 1)
        if conv == "i" or (conv == "d" and self.os != "illumos"):
            sv = uv - (1 << bits) if uv >= 1 << (bits - 1) else uv
            if size < 8 and cv["len"] != "ll":
                sv = s32(sv)
            return cfmt(spec, "d", sv)
        if conv == "d":
            # illumos pfprint_dint: zero-extend narrow values, %d of int
            if size < 4:
                return cfmt(spec, "d", uv)
            sv = uv - (1 << bits) if uv >= 1 << (bits - 1) else uv
            return cfmt(spec, "d", sv)
        if conv == "c":
            return cfmt(spec, "c", uv)
        if cv["len"] != "ll" and size == 8:
            uv &= 0xffffffff
        return cfmt(spec, conv, uv)

    def printa_fmt(self, fmt, varids):
        if len(varids) == 1:
            vid = varids[0]
            for e in self.sorted_walk(list(self.hash)):
                if e["varid"] != vid:
                    continue
                self.p(self.do_format(fmt, list(e["keys"]) + [None], [e]))
                self.printed.add(e["aggid"])
        else:
            for bundle in self.joined(varids):
                rep = bundle[0]
                self.p(self.do_format(fmt, list(rep["keys"]), bundle))
                for e in bundle[1:]:
                    if e.get("aggid") is not None:
                        self.printed.add(e["aggid"])

    def zero_entry(self, vid, proto_keys):
        for aid in sorted(self.aggs):
            a = self.aggs[aid]
            if a["varid"] == vid:
                v = [0] * len(func_init(a))
                if a["func"] == "lquantize":
                    v[0] = func_init(a)[0]
                return {"aggid": aid, "varid": vid, "keys": proto_keys,
                    "val": v, "normal": 1, "zero": True}
        raise ValueError("no aggdesc for varid %d" % vid)

    def joined(self, aggvars):
        n = len(aggvars)
        sp = self.opt("aggsortpos")
        sortpos = num(sp) if sp != UNSET else 0
        if sortpos >= n:
            sortpos = 0
        mp = {}
        remap = [0] * n
        for i in range(n):
            ndx = (i + sortpos) % n
            av = aggvars[ndx]
            if av in mp:
                remap[i] = mp[av]
                continue
            mp[av] = i + 1
        ents = [e for e in self.hash if e["varid"] in mp]
        if not ents:
            return []
        zag = {}
        for i in range(n):
            av = aggvars[(i - sortpos + n) % n]
            first = next((e for e in self.hash if e["varid"] == av), None)
            z = self.zero_entry(av, None)
            if first is not None:
                z["aggid"] = first["aggid"]
                z["val"] = [0] * len(first["val"])
                if self.aggs[first["aggid"]]["func"] == "lquantize":
                    z["val"][0] = first["val"][0]
            zag[i] = z
        self.sort_rev = False
        self.sort_keysort = False
        self.sort_keypos = 0
        kp = self.opt("aggsortkeypos")
        # keyvarcmp qsort uses the globals as left by the previous sort;
        # in practice keypos 0 / rev 0 here
        s = sorted(ents, key=functools.cmp_to_key(self.keyvarcmp))
        bundles = []
        start = 0
        for i in range(1, len(s) + 1):
            if i < len(s) and self.keycmp(s[i], s[i - 1]) == 0:
                continue
            nb = [None] * (n + 1)
            for j in range(start, i):
                nb[mp[s[j]["varid"]] - 1] = s[j]
                if nb[n] is None:
                    nb[n] = s[j]
            for j in range(n):
                if nb[j] is None:
                    if remap[j]:
                        nb[j] = nb[remap[j] - 1]
                    else:
                        nb[j] = dict(zag[j], keys=nb[n]["keys"])
            bundles.append(nb)
            start = i
        self.sort_rev = self.isset("aggsortrev")
        self.sort_keysort = self.isset("aggsortkey")
        self.sort_keypos = num(kp) if kp != UNSET else 0

        def bundlecmp(lh, rh):
            if self.sort_keysort:
                r = self.keycmp(lh[n], rh[n])
                if r:
                    return r
            for i in range(n):
                r = self.valcmp(lh[i], rh[i])
                if r:
                    return r
            if self.sort_keysort:
                return 0
            return self.keycmp(lh[n], rh[n])
        bundles.sort(key=functools.cmp_to_key(bundlecmp))
        res = []
        for b in bundles:
            data = [b[n]]
            for j in range(n):
                ndx = j - sortpos
                if ndx < 0:
                    ndx += n
                data.append(b[ndx])
            res.append(data)
        return res

    # ---- principal records
    def rec_items(self, rec, item):
        """Expand one REC + its data item into (size, kind, value) list."""
        if "printf" in rec:
            out = []
            args = rec.get("args", [])
            for spec, v in zip(args, item or []):
                if spec == "string":
                    out.append(self.keyval({"trace": "string"}, v))
                else:
                    out.append(self.keyval({"trace": spec}, v))
            return out
        raise ValueError(rec)

    def consume(self, recs_in_buf):
        for r in recs_in_buf:
            ep = self.eprobes[r["epid"]]
            probe = self.probes[ep["probe"]]
            quiet = self.isset("quiet")
            if not quiet:
                if not self.heading:
                    self.p("%32s\n" % "FUNCTION:NAME" if self.testing else
                        "%3s %6s %32s\n" % ("CPU", "ID", "FUNCTION:NAME"))
                    self.heading = True
                name = "%s:%s" % (probe["function"], probe["name"])
                self.p("%32s " % name if self.testing else
                    "%3d %6d %32s " % (0, probe["id"], name))
            data = r.get("data", [])
            recs = ep["recs"]
            i = 0
            while i < len(recs):
                rec = recs[i]
                item = data[i] if i < len(data) else None
                i += 1
                quiet = self.isset("quiet")
                if "exit" in rec:
                    self.exit_status = item
                elif "trace" in rec:
                    t = rec["trace"]
                    if isinstance(t, int):
                        v = u64(num(item)) & ((1 << (8 * t)) - 1)
                        if t == 8:
                            self.p(("%d" if quiet else " %16d") % s64(v))
                        elif t == 4:
                            sv = v - (1 << 32) if v >= 1 << 31 else v
                            self.p(("%d" if quiet else " %8d") % sv)
                        else:
                            self.p(("%d" if quiet else (" %3d" if t == 1
                                else " %5d")) % v)
                    else:
                        size = self.keysize(rec)
                        b = item.encode("latin-1")[:size]
                        b += b"\0" * (size - len(b))
                        self.p(print_bytes(b, -33, quiet))
                elif "printf" in rec:
                    self.p(self.do_format(rec["printf"],
                        self.rec_items(rec, item)))
                elif "printa" in rec:
                    varids = [self.varbyname[n] for n in rec["aggs"]]
                    if rec["printa"] is None:
                        self.p("\n")
                        if len(varids) == 1:
                            for e in self.sorted_walk(list(self.hash)):
                                if e["varid"] == varids[0]:
                                    self.print_aggs([e], False)
                        else:
                            for b in self.joined(varids):
                                self.print_aggs(b, False)
                    else:
                        self.printa_fmt(rec["printa"], varids)
                elif "clear" in rec:
                    vid = self.varbyname[rec["clear"]]
                    for e in self.hash:
                        if e["varid"] == vid:
                            f = self.aggs[e["aggid"]]["func"]
                            keep = 1 if f == "lquantize" or (f ==
                                "llquantize" and self.os == "illumos") else 0
                            for j in range(keep, len(e["val"])):
                                e["val"][j] = 0
                elif "denormalize" in rec:
                    vid = self.varbyname[rec["denormalize"]]
                    for e in self.hash:
                        if e["varid"] == vid:
                            e["normal"] = 1
                elif "normalize" in rec:
                    vid = self.varbyname[rec["normalize"]]
                    n = u64(num(item)) & ((1 << (8 * rec.get("size", 8))) - 1)
                    for e in self.hash:
                        if e["varid"] == vid:
                            e["normal"] = n if n else 1
                elif "trunc" in rec:
                    vid = self.varbyname[rec["trunc"]]
                    size = rec.get("size", 8)
                    n = u64(num(item)) & ((1 << (8 * size)) - 1)
                    if n >= 1 << (8 * size - 1):
                        n -= 1 << (8 * size)
                    if n < 0:
                        cmp = self.varvalcmp
                        n = -n
                        s = self.sorted_walk(list(self.hash), cmp)
                    else:
                        s = self.sorted_walk(list(self.hash),
                            lambda l, r: self.varvalcmp(r, l))
                    for e in s:
                        if e["varid"] != vid:
                            continue
                        if n == 0:
                            self.hash.remove(e)
                        else:
                            n -= 1
                elif "setopt" in rec:
                    self.setopt(rec["setopt"], rec.get("value"))
                elif "action" in rec and rec["action"] == 5:
                    # raw LIBACT setopt pair
                    nxt = recs[i]
                    val = data[i] if i < len(data) else None
                    i += 1
                    self.setopt(item, val if nxt.get("size", 8) > 8 else None)
                else:
                    raise ValueError(rec)
            if not self.isset("quiet"):
                self.p("\n")

    def setopt(self, name, value):
        if value is None:
            value = "1"
        if name in ("aggsortkey", "aggsortrev", "quiet"):
            low = value.lower()
            if low in ("yes", "enable", "enabled", "true", "on", "set"):
                v = 1
            elif low in ("no", "disable", "disabled", "false", "off",
                    "unset", ""):
                v = UNSET
            else:
                v = int(value, 0)
        else:
            v = int(value, 0) if value != "" else UNSET
        self.opts[name] = v

    def run(self):
        for ps in self.d.get("passes", []):
            for k, v in ps.get("options", {}).items():
                self.opts[k] = v
            self.snap(ps.get("aggbufs", []))
            for b in ps.get("bufs", []):
                self.consume(b.get("records", []))
        # end of run: dtrace(1)
        self.p("\n")
        for e in self.sorted_walk(list(self.hash)):
            if e["aggid"] in self.printed:
                continue
            self.print_aggs([e], True)
        return "".join(self.out)


def s32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >= 1 << 31 else v


def recint(r):
    size, kind, v = r
    bits = 8 * size
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def ctrunc(a, b):
    """C signed division (truncate toward zero)."""
    a, b = s64(a), s64(b)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def stddev(v, normal):
    if v[0] == 0:
        return 0
    sq = u64(v[2]) | (u64(v[3]) << 64)
    aos = sq // normal // normal // u64(v[0])
    na = ctrunc(ctrunc(v[1], normal), v[0])
    na = abs(na)
    soa = (na * na) % (1 << 128)
    diff = (aos - soa) % (1 << 128)
    import math
    return math.isqrt(diff)


# ---------------------------------------------------------------- printers
def isprint_c(b):
    return 0x20 <= b <= 0x7e or b in (9, 10, 11, 12, 13, 8, 7)


def print_bytes(b, width, quiet, forceraw=False):
    n = len(b)
    if n == 0:
        return ""
    if not forceraw:
        i = 0
        while i < n:
            if isprint_c(b[i]):
                i += 1
                continue
            if b[i] == 0 and i > 0:
                if all(x == 0 for x in b[i + 1:]):
                    s = b[:i].decode("latin-1")
                    if quiet:
                        return s
                    return " " + (" " if width < 0 else "") + \
                        ("%*s" % (width, s) if width >= 0 else
                         "%-*s" % (-width, s))
            break
        if i == n:
            return "  %-*s" % (abs(width), b.decode("latin-1")) if width < 0 \
                else "  %*s" % (width, b.decode("latin-1"))
    out = ["\n%5s      " % ""]
    for i in range(16):
        out.append("  %c" % "0123456789abcdef"[i])
    out.append("  0123456789abcdef\n")
    for i in range(0, n, 16):
        out.append("%5s%5x:" % ("", i))
        j = i
        while j < i + 16 and j < n:
            out.append(" %02x" % b[j])
            j += 1
        while j % 16:
            out.append("   ")
            j += 1
        out.append("  ")
        for j in range(i, min(i + 16, n)):
            c = b[j]
            out.append("." if c < 0x20 or c > 0x7e else chr(c))
        out.append("\n")
    return "".join(out)


HDR = "\n%16s %41s %-9s\n" % ("value", "------------- Distribution -------------",
    "count")


def quantline(val, normal, total, positives, negatives):
    ats = "@" * 40
    spaces = " " * 40
    ln = 40
    cnt = s64(u64(val) // normal)
    if not negatives:
        if positives:
            f = ld(ld(Fraction(abs(val)) * ln) / total)
            depth = int(ld(f + Fraction(1, 2)))
        else:
            depth = 0
        return "|%s%s %-9d\n" % (ats[ln - depth:], spaces[depth:], cnt)
    if not positives:
        f = ld(ld(Fraction(abs(val)) * ln) / total)
        depth = int(ld(f + Fraction(1, 2)))
        return "%s%s| %-9d\n" % (spaces[depth:], ats[ln - depth:], cnt)
    ln = 20
    ats = ats[20:]
    spaces = spaces[20:]
    f = ld(ld(Fraction(abs(val)) * ln) / total)
    depth = int(ld(f + Fraction(1, 2)))
    if val <= 0:
        return "%s%s|%*s %-9d\n" % (spaces[depth:], ats[ln - depth:], ln, "",
            cnt)
    return "%20s|%s%s %-9d\n" % ("", ats[ln - depth:], spaces[depth:], cnt)


def _range(data, first_limit):
    pass


def print_quantize(v, normal):
    data = v
    first = 0
    last = 126
    while first < 126 and data[first] == 0:
        first += 1
    if first == 126:
        first, last = 62, 64
    else:
        if first > 0:
            first -= 1
        while last > 0 and data[last] == 0:
            last -= 1
        if last < 126:
            last += 1
    pos = any(data[i] > 0 for i in range(first, last + 1))
    neg = any(data[i] < 0 for i in range(first, last + 1))
    total = Fraction(0)
    for i in range(first, last + 1):
        total = ld(total + abs(data[i]))
    out = [HDR]
    for i in range(first, last + 1):
        out.append("%16d " % qbucketval(i))
        out.append(quantline(data[i], normal, total, pos, neg))
    return "".join(out)


def print_lquantize(v, normal):
    base, step, levels = lq_parts(v[0])
    data = v[1:]
    first, last = 0, levels + 1
    while first <= levels + 1 and data[first] == 0:
        first += 1
    if first > levels + 1:
        first, last = 0, 2
    else:
        if first > 0:
            first -= 1
        while last > 0 and data[last] == 0:
            last -= 1
        if last < levels + 1:
            last += 1
    pos = any(data[i] > 0 for i in range(first, last + 1))
    neg = any(data[i] < 0 for i in range(first, last + 1))
    total = Fraction(0)
    for i in range(first, last + 1):
        total = ld(total + abs(data[i]))
    out = [HDR]
    for i in range(first, last + 1):
        if i == 0:
            out.append("%16s " % ("< %d" % base))
        elif i == levels + 1:
            out.append("%16s " % (">= %d" % (base + levels * step)))
        else:
            out.append("%16d " % (base + (i - 1) * step))
        out.append(quantline(data[i], normal, total, pos, neg))
    return "".join(out)


def print_llquantize(v, normal):
    factor, low, high, nsteps = llq_parts(v[0])
    data = v[1:]
    levels = len(data)
    first, last = 0, levels - 1
    while first < levels and data[first] == 0:
        first += 1
    if first == levels:
        first, last = 0, 1
    else:
        if first > 0:
            first -= 1
        while last > 0 and data[last] == 0:
            last -= 1
        if last < levels - 1:
            last += 1
    pos = any(data[i] > 0 for i in range(first, last + 1))
    neg = any(data[i] < 0 for i in range(first, last + 1))
    total = Fraction(0)
    for i in range(first, last + 1):
        total = ld(total + abs(data[i]))
    out = [HDR]
    value = 1
    order = 0
    while order < low:
        value *= factor
        order += 1
    nxt = value * factor
    step = nxt // nsteps if nxt > nsteps else 1
    if first == 0:
        out.append("%16s " % ("< %d" % value))
        out.append(quantline(data[0], normal, total, pos, neg))
    b = 1
    while order <= high:
        if first <= b <= last:
            out.append("%16d " % value)
            out.append(quantline(data[b], normal, total, pos, neg))
        b += 1
        value += step
        if value != nxt:
            continue
        nxt = value * factor
        step = nxt // nsteps if nxt > nsteps else 1
        order += 1
    if last < b:
        return "".join(out)
    assert last == b
    out.append("%16s " % (">= %d" % value))
    out.append(quantline(data[b], normal, total, pos, neg))
    return "".join(out)


def run_file(path):
    import json
    with open(path) as f:
        d = json.load(f)
    m = Model(d)
    return m.run()


if __name__ == "__main__":
    sys.stdout.write(run_file(sys.argv[1]))
