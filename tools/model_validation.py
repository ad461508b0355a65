#!/usr/bin/python3
"""The model's error against measured times (tests/sh/test_model_validation.sh).

Usage: model_validation.py CASES.tsv TIMES.tsv RAW.csv PRED.json LABEL OUT.tsv [TARGET_CASES.tsv]

Pairs the k-th prediction of PRED.json (memtopo model --json over the ncu
raw page RAW.csv, one launch per case, cases in CASES.tsv's order) with case
k, and its time with TIMES.tsv's median of that case (verify=ok rows only).
Appends one row per case to OUT.tsv: label, case, group, measured and
predicted ms, the signed error, the model's dominant CPI class and ncu's
dominant stall class (docs/model.md, "Stall-reason mapping").  Prints one
summary line per group: the median absolute error and the share of cases
whose dominant classes agree.

TARGET_CASES.tsv (a prediction on another GPU, whose times TIMES.tsv are):
the target GPU's own cases.tsv.  A case sized from the device (its grid or
footprint differs there: the L2-sized streams run 20% more bytes on the
H200's 60 MiB L2 than on the H100's 50 MiB) is not the kernel that was
profiled, so it is left out of the comparison and counted on stderr."""
import csv
import json
import statistics
import sys

# ncu's warp-stall reasons (smsp__pcsamp_warps_issue_stalled_<reason>)
# and the model's CPI components, each mapped to one class.
STALL_CLASS = {
    "selected": "issue", "not_selected": "issue", "dispatch_stall": "issue",
    "math_pipe_throttle": "issue", "no_instructions": "issue", "imc_miss": "issue",
    "branch_resolving": "issue", "misc": "issue", "drain": "issue", "sleeping": "issue",
    "wait": "dependence",
    "long_scoreboard": "memory",
    "lg_throttle": "lsu", "mio_throttle": "lsu", "tex_throttle": "lsu",
    "short_scoreboard": "shared",
    "barrier": "barrier", "membar": "barrier",
}
STACK_CLASS = {
    "base": "issue", "dependences": "dependence",
    "l1": "memory", "l2_near": "memory", "l2_far": "memory", "dram": "memory", "mshr": "memory",
    "bw_l2": "memory", "bw_dram": "memory",
    "bw_l1": "lsu", "bank_conflicts": "shared", "barriers": "barrier",
}


def dominant(weights, mapping):
    total = {}
    for k, v in weights.items():
        c = mapping.get(k)
        if c:
            total[c] = total.get(c, 0) + v
    return max(total, key=total.get) if total and max(total.values()) > 0 else "-"


def ncu_rows(path):
    rows = [r for r in csv.reader(open(path, encoding="utf-8", errors="replace")) if len(r) > 2]
    head = next(i for i, r in enumerate(rows) if "ID" in r and "Kernel Name" in r)
    h = rows[head]
    out = []
    for r in rows[head + 1:]:
        if len(r) != len(h) or not r[h.index("ID")].strip().isdigit():
            continue
        stalls = {}
        for i, name in enumerate(h):
            p = "smsp__pcsamp_warps_issue_stalled_"
            if name.startswith(p) and not name.endswith("_not_issued"):
                try:
                    stalls[name[len(p):]] = float(r[i].replace(",", ""))
                except ValueError:
                    pass
        out.append(stalls)
    return out


def main(argv):
    cases_p, times_p, raw_p, pred_p, label, out_p = argv[1:7]
    cases = list(csv.DictReader(open(cases_p), delimiter="\t"))
    target = {}
    if len(argv) > 7:
        target = {r["name"]: r for r in csv.DictReader(open(argv[7]), delimiter="\t")}
    launch_keys = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
                   "dyn_smem_bytes", "footprint_bytes")
    resized = 0
    times = {r["name"]: r for r in csv.DictReader(open(times_p), delimiter="\t")
             if r.get("verify") == "ok"}
    preds = json.load(open(pred_p))["predictions"]
    stalls = ncu_rows(raw_p)
    if not (len(preds) == len(cases) == len(stalls)):
        print("error: %d cases, %d ncu rows, %d predictions" % (len(cases), len(stalls), len(preds)))
        return 1
    by_group = {}
    with open(out_p, "a") as out:
        for c, p, s in zip(cases, preds, stalls):
            t = times.get(c["name"])
            if not t:
                continue
            other = target.get(c["name"]) if target else c
            if other is None or any(other.get(k) != c.get(k) for k in launch_keys):
                resized += 1
                continue
            measured = float(t["median_ms"])
            predicted = p["base"]["seconds"] * 1e3
            err = predicted / measured - 1
            stack = dict(p["base"]["stack"])
            stack.pop("tail", None)
            mdl, ncu = dominant(stack, STACK_CLASS), dominant(s, STALL_CLASS)
            out.write("%s\t%s\t%s\t%.6f\t%.6f\t%+.1f\t%s\t%s\t%s\n" % (
                label, c["name"], c["group"], measured, predicted, 100 * err, mdl, ncu,
                "yes" if mdl == ncu else "no"))
            g = by_group.setdefault(c["group"], [[], 0])
            g[0].append(abs(err))
            g[1] += mdl == ncu
    if resized:
        print("%s: %d cases left out: not the same launch on the target GPU" % (label, resized),
              file=sys.stderr)
    for g, (errs, agree) in sorted(by_group.items()):
        print("%s\t%s\t%.1f\t%d\t%.0f" % (label, g, 100 * statistics.median(errs), len(errs),
                                          100.0 * agree / len(errs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
