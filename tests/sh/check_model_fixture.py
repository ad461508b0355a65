#!/usr/bin/env python3
"""Checks one recorded validation-suite fixture (tests/fixtures/model/<gpu>/,
written by validation/run_device.sh) is whole and consistent, so the model's
error table is computed over every case:

  - cases.tsv: one row per case, unique [a-z0-9_]+ names, a known group;
  - times.tsv: every case has a row with verify=ok, runs >= 20, a positive
    median between min and max, and the SM and memory clocks recorded;
  - ncu-raw.csv.xz: a header row, a units row and one row per case in
    cases.tsv's order, each naming the case's kernel, with its duration;
  - ncu-source.csv.xz (when kept): one section per case, same kernels;
  - report.json parses and names the GPU; gpu.txt and README.md exist and
    give the clocks.

Prints one line per check ("ok N - what" / "not ok N - what: why") and exits
non-zero when any fails.  Usage: check_model_fixture.py DIR"""
import csv
import io
import json
import lzma
import os
import re
import sys

MIN_RUNS = 20
GROUPS = {"synthetic", "real", "li"}
NAME = re.compile(r"^[a-z0-9_]+$")


def kernel_base(ncu_name):
    """ncu's demangled name without return type, template arguments and
    parameters: 'void fma_chain<1>(float *, int)' -> 'fma_chain'."""
    name = ncu_name.strip()
    if name.startswith("void "):
        name = name[5:]
    return re.split(r"[<(]", name, maxsplit=1)[0].strip()


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_xz_csv(path):
    with lzma.open(path, "rt", newline="") as f:
        return list(csv.reader(io.StringIO(f.read())))


def check_cases(d):
    rows = read_tsv(os.path.join(d, "cases.tsv"))
    if not rows:
        raise ValueError("no cases")
    names = [r["name"] for r in rows]
    bad = [n for n in names if not NAME.match(n)]
    if bad or len(set(names)) != len(names):
        raise ValueError("bad or repeated names: %s" % (bad or names))
    groups = {r["group"] for r in rows} - GROUPS
    if groups:
        raise ValueError("unknown groups %s" % sorted(groups))
    for r in rows:
        for k in ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z"):
            if int(r[k]) < 1:
                raise ValueError("%s: %s = %s" % (r["name"], k, r[k]))
    return rows


def check_times(d, cases):
    times = {r["name"]: r for r in read_tsv(os.path.join(d, "times.tsv"))}
    for c in cases:
        t = times.get(c["name"])
        if t is None:
            raise ValueError("%s: no times row" % c["name"])
        if t["verify"] != "ok":
            raise ValueError("%s: verify=%s" % (c["name"], t["verify"]))
        if int(t["runs"]) < MIN_RUNS:
            raise ValueError("%s: %s runs" % (c["name"], t["runs"]))
        lo, med, hi = float(t["min_ms"]), float(t["median_ms"]), float(t["max_ms"])
        if not 0 < lo <= med <= hi:
            raise ValueError("%s: min %g, median %g, max %g" % (c["name"], lo, med, hi))
        if int(t["sm_clock_mhz"]) <= 0 or int(t["mem_clock_mhz"]) <= 0:
            raise ValueError("%s: clocks not recorded" % c["name"])
    extra = set(times) - {c["name"] for c in cases}
    if extra:
        raise ValueError("times rows of no case: %s" % sorted(extra))


def check_ncu_raw(d, cases):
    rows = read_xz_csv(os.path.join(d, "ncu-raw.csv.xz"))
    if len(rows) != len(cases) + 2:
        raise ValueError("%d rows for %d cases (+ header and units)" % (len(rows), len(cases)))
    head = rows[0]
    for col in ("ID", "Kernel Name", "gpu__time_duration.sum"):
        if col not in head:
            raise ValueError("no column %s" % col)
    kid, kname, kdur = head.index("ID"), head.index("Kernel Name"), head.index("gpu__time_duration.sum")
    for i, (c, r) in enumerate(zip(cases, rows[2:])):
        if len(r) != len(head):
            raise ValueError("row %d has %d fields, the header %d" % (i, len(r), len(head)))
        if int(r[kid]) != i or kernel_base(r[kname]) != c["kernel"]:
            raise ValueError("row %d (ID %s) is %s, case %s runs %s" % (i, r[kid], r[kname], c["name"], c["kernel"]))
        if float(r[kdur].replace(",", "")) <= 0:
            raise ValueError("%s: no duration" % c["name"])


def check_ncu_source(d, cases):
    path = os.path.join(d, "ncu-source.csv.xz")
    if not os.path.exists(path):
        return "not kept (README says why)"
    sections = [r[1] for r in read_xz_csv(path) if len(r) >= 2 and r[0] == "Kernel Name"]
    if [kernel_base(s) for s in sections] != [c["kernel"] for c in cases]:
        raise ValueError("%d sections do not follow the %d cases' kernels" % (len(sections), len(cases)))
    return "%d sections" % len(sections)


def check_report(d):
    with open(os.path.join(d, "report.json")) as f:
        rep = json.load(f)
    if not isinstance(rep, dict) or not rep:
        raise ValueError("not a report object")


def check_docs(d):
    for name in ("gpu.txt", "README.md", "run.log"):
        if not os.path.getsize(os.path.join(d, name)):
            raise ValueError("%s is empty" % name)
    with open(os.path.join(d, "README.md")) as f:
        text = f.read()
    if "MHz" not in text:
        raise ValueError("README.md gives no clocks (MHz)")


def main():
    d = sys.argv[1]
    failed = 0
    n = 0

    def report(what, fn, *args):
        nonlocal failed, n
        n += 1
        try:
            extra = fn(*args)
            print("ok %d - %s: %s%s" % (n, d, what, " (%s)" % extra if isinstance(extra, str) else ""))
            return extra
        except (OSError, ValueError, KeyError, IndexError, json.JSONDecodeError, lzma.LZMAError) as e:
            failed += 1
            print("not ok %d - %s: %s: %s" % (n, d, what, e))
            return None

    cases = report("cases.tsv", check_cases, d)
    if cases is None:
        return 1
    report("times.tsv: every case timed, verified, at a recorded clock", check_times, d, cases)
    report("ncu-raw.csv.xz: one row per case, same kernel", check_ncu_raw, d, cases)
    report("ncu-source.csv.xz: one section per case", check_ncu_source, d, cases)
    report("report.json", check_report, d)
    report("gpu.txt, run.log, README.md with the clocks", check_docs, d)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
