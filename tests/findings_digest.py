#!/usr/bin/env python3
"""Canonical, order-independent list of the findings of a memtopo JSON report.

One line per finding: OBJECT.FINDING|kind|value|lo|hi|text|unit|source|method|confidence|note,
sorted.  Reads the report schema 1.x (caches + findings) and 2.x (objects with named
findings), so a report written before the architecture change and one written after
can be compared finding by finding (tests/sh/test_golden.sh).  Experiment counts and
timings are not findings and are left out.
"""
import json
import sys

# Schema 1 kept five findings outside the caches; schema 2 puts each on its object.
V1_OTHER = {
    "l1_caches_global": ("l1d", "caches_global_loads"),
    "l2_partition_size": ("l2", "partition_size"),
    "l2_far_latency": ("l2", "far_latency"),
    "timer_overhead_fine": ("gpu", "timer_overhead_fine"),
    "timer_overhead_agg": ("gpu", "timer_overhead_agg"),
}
V1_FIELDS = ("size", "line", "sector", "latency", "miss_penalty", "per_sm")


def num(x):
    return "" if x is None else repr(float(x))


def line(obj, name, f):
    conf = f.get("confidence")
    # An absent thing has no unit: schema 1 wrote a default one, schema 2 none.
    unit = "" if f["kind"] == "absent" else f.get("unit", "")
    return "|".join([
        f"{obj}.{name}", f["kind"], num(f.get("value")), num(f.get("lo", f.get("lower"))),
        num(f.get("hi", f.get("upper"))), str(f.get("text", "")), unit,
        f.get("source", ""), f.get("method", ""), "" if conf is None else f"{conf:.9g}",
        f.get("note", ""),
    ])


def v1(rep):
    out = []
    for key, c in rep["caches"].items():
        out.append(f"{key}.probed|{c['probed']}")
        for name in V1_FIELDS:
            if c.get(name):
                out.append(line(key, name, c[name]))
        if c.get("sharing_tested"):
            out.append(f"{key}.shared_with|{','.join(sorted(c['shared_with']))}")
    for name, (obj, new) in V1_OTHER.items():
        if rep["findings"].get(name):
            out.append(line(obj, new, rep["findings"][name]))
    return out


def v2(rep):
    out = []
    for o in rep["objects"]:
        key = o["key"]
        # An object nothing measured and nothing was said of tells nothing,
        # and one that a later version declares (an opt-in probe's rows) is
        # in no report written before it: left out, as unmeasured findings.
        said = o["probed"] or any(f["kind"] != "none" or f.get("note")
                                  for f in o["findings"].values())
        if o["type"] != "gpu" and said:
            out.append(f"{key}.probed|{o['probed']}")
        for name, f in o["findings"].items():
            if f["kind"] == "none" and not f.get("note"):
                continue  # declared but not measured: schema 1 wrote null; kept when it says why
            if name == "shared_with":
                out.append(f"{key}.shared_with|{','.join(sorted(f['members']))}")
            else:
                out.append(line(key, name, f))
    return out


def digest(path):
    rep = json.load(open(path))
    major = int(str(rep["schema_version"]).split(".")[0])
    return sorted(v1(rep) if major == 1 else v2(rep))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print("\n".join(digest(p)))
