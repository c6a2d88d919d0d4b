#!/usr/bin/env python3
"""dofcheck.py DEF.d READELF JSON - what `dtsnap dof -f json` read of a
dtrace -G object, field by field against what it must hold, derived
without dtconsume:

  - from the provider definition DEF.d (parsed here): every provider and
    probe (D's "__" in a probe name is "-"), the native argument types,
    the translated ones ("probe p(int a, char *b) : (char *b)": by
    argument name; without ":", the native ones) and the native argument
    each translated one comes from
  - from `readelf -rsW` of the object before dtrace -G rewrote it: the
    call sites of __dtrace_PROV___PROBE (offsets) and of
    __dtraceenabled_PROV___PROBE (is-enabled offsets), each as the
    offset of the call instruction (the relocation's offset less the
    opcode byte) from the start of the function that holds it, which is
    the probe's function

Prints a summary on success; exits with the first difference.
"""
import json
import re
import sys

TYPEWORDS = {"int", "long", "short", "char", "unsigned", "signed", "void",
             "float", "double", "struct", "union", "enum", "const",
             "volatile", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
             "int8_t", "int16_t", "int32_t", "int64_t", "string"}


def norm(t):
    return re.sub(r"\s+", "", t)


def arg(a):
    """'char *b' -> ('char *', 'b'); 'long' -> ('long', None)"""
    toks = re.findall(r"[A-Za-z_]\w*|\*", a)
    if len(toks) > 1 and re.match(r"[A-Za-z_]\w*$", toks[-1]) and \
            toks[-1] not in TYPEWORDS:
        name = toks[-1]
        t = a[:a.rindex(name)].strip()
        return t, name
    return a.strip(), None


def definition(path):
    src = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    want = {}
    for prov, body in re.findall(r"provider\s+(\w+)\s*\{(.*?)\}\s*;", src,
                                 flags=re.S):
        for probe, nat, xl in re.findall(
                r"probe\s+(\w+)\s*\(([^)]*)\)\s*(?::\s*\(([^)]*)\))?\s*;",
                body):
            nargs = [arg(a) for a in nat.split(",") if a.strip()]
            if xl:
                xargs = [arg(a) for a in xl.split(",") if a.strip()]
                names = [n for _, n in nargs]
                argmap = [names.index(n) for _, n in xargs]
            else:
                xargs = nargs
                argmap = list(range(len(nargs)))
            want[(prov, probe.replace("__", "-"))] = {
                "sym": "%s___%s" % (prov, probe),
                "native": [norm(t) for t, _ in nargs],
                "translated": [norm(t) for t, _ in xargs],
                "argmap": argmap}
    return want


def callsites(path):
    funcs, relocs = [], []
    for line in open(path):
        f = line.split()
        # symbol table: Num: Value Size Type Bind Vis Ndx Name
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC":
            funcs.append((int(f[1], 16), int(f[2]), f[7]))
        # relocations: Offset Info Type Sym.Value Sym.Name + Addend
        elif len(f) >= 5 and re.match(r"[0-9a-f]{16}$", f[0]) and \
                f[2].startswith("R_"):
            relocs.append((int(f[0], 16), f[4]))
    sites = {}
    for off, sym in relocs:
        m = re.match(r"__dtrace(enabled)?_(\w+)$", sym)
        if not m:
            continue
        for start, size, name in funcs:
            if start <= off < start + size:
                key = (m.group(2), name, "en" if m.group(1) else "offs")
                sites.setdefault(key, []).append(off - 1 - start)
                break
        else:
            sys.exit("relocation at %#x outside every function" % off)
    return sites


def main():
    want = definition(sys.argv[1])
    sites = callsites(sys.argv[2])
    got = json.load(open(sys.argv[3]))
    seen = set()
    for p in got["probes"]:
        key = (p["provider"], p["name"])
        if key not in want:
            sys.exit("probe %s:%s is not in the definition" % key)
        w = want[key]
        if [norm(t) for t in p["native_args"]] != w["native"]:
            sys.exit("%s:%s native %r, not %r" % (key + (p["native_args"],
                                                       w["native"])))
        if [norm(t) for t in p["translated_args"]] != w["translated"]:
            sys.exit("%s:%s translated %r, not %r" %
                     (key + (p["translated_args"], w["translated"])))
        if p["argmap"] != w["argmap"]:
            sys.exit("%s:%s argmap %r, not %r" % (key + (p["argmap"],
                                                       w["argmap"])))
        fkey = (w["sym"], p["function"])
        offs = sorted(sites.get(fkey + ("offs",), []))
        en = sorted(sites.get(fkey + ("en",), []))
        if not offs and not en:
            sys.exit("%s:%s: no call site in function %s" %
                     (key + (p["function"],)))
        if sorted(p["offsets"]) != offs:
            sys.exit("%s:%s in %s: offsets %r, not %r" %
                     (key + (p["function"], p["offsets"], offs)))
        if sorted(p["enabled_offsets"]) != en:
            sys.exit("%s:%s in %s: is-enabled offsets %r, not %r" %
                     (key + (p["function"], p["enabled_offsets"], en)))
        seen.add(fkey)
    # every call site belongs to a probe that was listed
    for (sym, func, _k) in sites:
        if (sym, func) not in seen:
            sys.exit("call site of %s in %s not listed" % (sym, func))
    provs = {p for p, _ in want}
    if {p["provider"] for p in got["probes"]} != provs:
        sys.exit("providers %r, not %r" %
                 ({p["provider"] for p in got["probes"]}, provs))
    print("%d providers, %d probes, %d call sites" %
          (len(provs), len(got["probes"]),
           sum(len(v) for v in sites.values())))


main()
