#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (fuzz/README.md), written at build time.

    make_seeds.py MEMTOPO OUTDIR

OUTDIR/spec/       every presets/*.spec and tests/specs/*.spec, and
                   tests/sim-geometry.spec
OUTDIR/model/      tests/model/*.kd, and the toy ncu raw and SASS pages of
                   tests/model/ncu cut to their first 40 lines (header,
                   units, rows; a listing's start)
OUTDIR/recording/  small recordings in fuzz_recording.c's input layout
                   (manifest.json, experiments.csv, samples.csv,
                   sequences.csv, each part ended by a line "@@@@"):
                   a version-2 recording made now by MEMTOPO (chases and,
                   cut from a bigger one, sequences) and the recorded H100
                   run of tests/fixtures (version 1), cut to a few
                   experiments so mutations stay fast.

Cutting keeps a recording valid: the kept experiments are renumbered
0..k-1 in order, their samples and sequence entries follow, and the
manifest's counts are rewritten.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

SEP = b"@@@@\n"
FILES = ["manifest.json", "experiments.csv", "samples.csv", "sequences.csv"]


def cut(files, keep):
    """files: name -> bytes; keep: experiment ids to keep, ascending."""
    new_id = {old: i for i, old in enumerate(keep)}

    def rows(name, id_col):
        lines = files[name].decode().splitlines()
        out = [lines[0]]
        for line in lines[1:]:
            f = line.split(",")
            if int(f[id_col]) in new_id:
                f[id_col] = str(new_id[int(f[id_col])])
                out.append(",".join(f))
        return out

    exps = rows("experiments.csv", 0)
    samples = rows("samples.csv", 0)
    out = {"experiments.csv": exps, "samples.csv": samples}
    if "sequences.csv" in files:
        out["sequences.csv"] = rows("sequences.csv", 0)
    m = json.loads(files["manifest.json"])
    m["experiments"] = len(keep)
    m["samples"] = len(samples) - 1
    res = {"manifest.json": (json.dumps(m, indent=2) + "\n").encode()}
    for k, v in out.items():
        res[k] = ("\n".join(v) + "\n").encode()
    return res


def pack(files):
    return b"".join(files[n] + SEP for n in FILES if n in files)


def experiment_kinds(files):
    """id -> kind column (version 2) or 'chase'."""
    lines = files["experiments.csv"].decode().splitlines()
    head = lines[0].split(",")
    kinds = {}
    for line in lines[1:]:
        f = line.split(",")
        kinds[int(f[0])] = f[head.index("kind")] if "kind" in head else "chase"
    return kinds


def record(memtopo, args, tmp):
    d = os.path.join(tmp, "rec")
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([memtopo, "--quiet", "--record", d] + args, check=True,
                   stdout=subprocess.DEVNULL)
    return {n: open(os.path.join(d, n), "rb").read() for n in FILES
            if os.path.exists(os.path.join(d, n))}


def main():
    memtopo, outdir = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec_dir = os.path.join(outdir, "spec")
    rec_dir = os.path.join(outdir, "recording")
    model_dir = os.path.join(outdir, "model")
    for d in (spec_dir, rec_dir, model_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    for sub in ("presets", "tests/specs"):
        for name in sorted(os.listdir(os.path.join(root, sub))):
            if name.endswith(".spec"):
                prefix = sub.replace("/", "_")
                shutil.copy(os.path.join(root, sub, name), os.path.join(spec_dir, prefix + "_" + name))
    for name in sorted(os.listdir(os.path.join(root, "tests/model"))):
        if name.endswith(".kd"):
            shutil.copy(os.path.join(root, "tests/model", name), os.path.join(model_dir, name))
    for name in ("toy-raw.csv", "toy-sass.csv"):
        with open(os.path.join(root, "tests/model/ncu", name), encoding="utf-8") as f:
            head = "".join(f.readlines()[:40])
        open(os.path.join(model_dir, name), "w", encoding="utf-8").write(head)
    # The cache-geometry keys (unified, carveouts_kib, partition_of_sm)
    # appear in no preset; this spec gives the fuzzer all of them.
    shutil.copy(os.path.join(root, "tests/sim-geometry.spec"), os.path.join(spec_dir, "tests_sim-geometry.spec"))
    with tempfile.TemporaryDirectory() as tmp:
        small = record(memtopo, ["--sim", "h100", "--only", "shared"], tmp)
        open(os.path.join(rec_dir, "v2-shared"), "wb").write(pack(small))
        seq = record(memtopo, ["--sim", "kepler", "--only", "replacement"], tmp)
        kinds = experiment_kinds(seq)
        first_seq = [i for i in sorted(kinds) if kinds[i] == "sequence"][:2]
        keep = sorted(set([0] + first_seq))
        open(os.path.join(rec_dir, "v2-sequences"), "wb").write(pack(cut(seq, keep)))
        fixture = os.path.join(root, "tests/fixtures/h100-sxm5/recording.tar.xz")
        with tarfile.open(fixture) as t:
            v1 = {os.path.basename(m.name): t.extractfile(m).read()
                  for m in t.getmembers() if m.isfile()}
        open(os.path.join(rec_dir, "v1-h100"), "wb").write(pack(cut(v1, [0, 1, 2])))


if __name__ == "__main__":
    main()
