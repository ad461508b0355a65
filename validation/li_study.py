#!/usr/bin/env python3
"""The Li et al. shared-memory vs L1 study (docs/li-study.md) from its fixture.

    li_study.py table DIR [REPORT.json]   the study's tables (Markdown) on stdout
    li_study.py check DIR DOC [REPORT.json]
                                          the fixture is well-formed and DOC holds
                                          exactly the tables `table` prints
    li_study.py write DIR DOC [REPORT.json]
                                          rewrites DOC's tables (between the markers)
                                          from the fixture
    li_study.py plotdata DIR OUTDIR       the data files validation/li_plots.gp draws
    li_study.py winners DIR PRED.json     DIR/model-winners.tsv from `memtopo model
                                          --json PRED.json` over DIR's ncu-raw (one
                                          prediction per case, in order)

DIR is a validation-suite fixture (tests/fixtures/model/README.md) of li
cases; tests/sh/check_model_fixture.py's checks run first (every case
verified, timed at least 20 times at a recorded clock, one ncu row of its
own kernel, in order).  DIR may hold model-winners.tsv (family, predicted
winner: what `memtopo model` predicts; without it the model column stays
empty).  REPORT (default DIR/report.json) is memtopo's carveout report,
whose L1 size at each shared-memory configuration is printed beside the
configuration ncu says the launch got.

Exit status: 0 ok; 1 the fixture is malformed or DOC differs (one line on
stderr says where); 2 bad usage or an unreadable file.
"""
import csv
import importlib.util
import json
import lzma
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
# The fixture checks are the suite's (one copy): loaded from tests/sh.
_spec = importlib.util.spec_from_file_location(
    'check_model_fixture', os.path.join(HERE, '..', 'tests', 'sh', 'check_model_fixture.py'))
fixture_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture_check)
BEGIN, END = '<!-- li-table begin: validation/li_study.py table -->', '<!-- li-table end -->'
LIMITS = ['blocks', 'registers', 'shared_mem', 'warps', 'barriers']
METRICS = {
    'config': 'launch__shared_mem_config_size',
    'occ': 'sm__warps_active.avg.pct_of_peak_sustained_active',
    'theo_warps': 'sm__maximum_warps_per_active_cycle_pct',
    'conflicts': 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum',
    'l1hit': 'l1tex__t_sector_hit_rate.pct',
    'inst': 'smsp__inst_executed.sum',
    'barrier': 'smsp__pcsamp_warps_issue_stalled_barrier',
    'samples': 'smsp__pcsamp_sample_count',
    'l2sectors': 'lts__t_sectors.sum',   # 32-byte sectors handled by the L2
    'dramread': 'dram__bytes_read.sum',
    'dramwrite': 'dram__bytes_write.sum',
    'l1busy': 'l1tex__throughput.avg.pct_of_peak_sustained_active',
}
STALL = 'smsp__pcsamp_warps_issue_stalled_'


class Bad(Exception):
    """The fixture or the document is not what it should be (exit 1)."""


def read_tsv(path):
    with open(path, newline='') as f:
        rows = list(csv.reader(f, delimiter='\t'))
    if not rows:
        raise Bad(f'{path}: empty')
    return [dict(zip(rows[0], r)) for r in rows[1:] if r]


def read_ncu(path):
    """ncu's raw page: a header row, a units row, one row per kernel; lines
    that are not CSV rows (==PROF== notes, the program's output) skipped."""
    with lzma.open(path, 'rt', newline='') as f:
        lines = [ln for ln in f if ln.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 3 or rows[0][:1] != ['ID']:
        raise Bad(f'{path}: no ncu raw CSV header')
    return [dict(zip(rows[0], r)) for r in rows[2:]]


def num(s, what):
    try:
        return float(s.replace(',', ''))
    except (AttributeError, ValueError):
        raise Bad(f'{what}: not a number: {s!r}')


def l1_sizes(report_path):
    """memtopo's L1 size (bytes, lo-hi, confidence) by carveout in KiB."""
    with open(report_path) as f:
        rep = json.load(f)
    out = {}
    for o in rep['objects']:
        if o['key'] != 'l1d':
            continue
        for k, v in o['findings'].items():
            if k.startswith('size_at_carveout_') and k.endswith('KiB'):
                kib = int(k[len('size_at_carveout_'):-3])
                lo, hi = (v['value'], v['value']) if v['kind'] == 'value' else (v['lo'], v['hi'])
                out[kib] = (lo, hi, v['confidence'])
    return out


def family_of(name):
    return name.split('_')[1]


def load(d):
    try:
        cases = fixture_check.check_cases(d)
        fixture_check.check_times(d, cases)
        fixture_check.check_ncu_raw(d, cases)
    except (ValueError, KeyError, IndexError) as e:
        raise Bad(f'{d}: {e}')
    times = {r['name']: r for r in read_tsv(os.path.join(d, 'times.tsv'))}
    ncu = read_ncu(os.path.join(d, 'ncu-raw.csv.xz'))
    out = []
    for c, n in zip(cases, ncu):
        name = c['name']
        if not name.startswith('li_') or c['group'] != 'li':
            raise Bad(f'{name}: not a case of group li')
        t = times[name]
        m = {k: num(n.get(v), f'{name}: {v}') for k, v in METRICS.items()}
        limits = {k: int(num(n.get('launch__occupancy_limit_' + k), f'{name}: limit {k}')) for k in LIMITS}
        low = min(limits.values())
        # the stall reason ncu's PC sampling saw most often (the warp state
        # sampled; "selected" is a warp issuing, not stalled)
        stalls = {k[len(STALL):]: num(v, f'{name}: {k}') for k, v in n.items()
                  if k.startswith(STALL) and not k.endswith('_not_issued')}
        top = max(stalls, key=lambda k: stalls[k])
        r = dict(name=name, family=family_of(name), kernel=c['kernel'], pref=int(c['carveout_pct']),
                 version='shm' if name.endswith('_shm') else 'l1', ms=num(t['median_ms'], name),
                 sm_mhz=int(t['sm_clock_mhz']), mem_mhz=int(t['mem_clock_mhz']),
                 blocks_per_sm=low, limiters=[k for k in LIMITS if limits[k] == low],
                 top_stall=top, top_stall_pct=100.0 * stalls[top] / m['samples'] if m['samples'] > 0 else 0.0, **m)
        r['l2bytes'] = 32.0 * r['l2sectors']
        r['drambytes'] = r['dramread'] + r['dramwrite']
        r['barrier_pct'] = 100.0 * r['barrier'] / r['samples'] if r['samples'] > 0 else 0.0
        out.append(r)
    return out


def winners(d):
    """The model column's cells: the predicted winner and its predicted
    speed-up, from model-winners.tsv (empty without it)."""
    p = os.path.join(d, 'model-winners.tsv')
    if not os.path.exists(p):
        return {}
    out = {}
    for r in read_tsv(p):
        a, b = num(r['shm_predicted_ms'], p), num(r['l1_predicted_ms'], p)
        out[r['family']] = f'{r["winner"]} ({max(a, b) / min(a, b):.2f}x)'
    return out


def kib(b):
    return f'{b / 1024:.0f}' if b >= 10240 else f'{b / 1024:.1f}'


def l1_cell(sizes, config):
    k = int(config) // 1024
    if k not in sizes:
        return 'not measured'
    lo, hi, conf = sizes[k]
    text = kib(lo) if lo == hi or kib(lo) == kib(hi) else f'{kib(lo)}-{kib(hi)}'
    return text + (f' (conf. {conf:.1f})' if conf < 0.5 else '')


def tables(d, report):
    rows = load(d)
    sizes = l1_sizes(report)
    pred = winners(d)
    shm = {r['family']: r for r in rows if r['version'] == 'shm'}
    out = ['| case | carveout pref. | shared config KiB | L1 KiB (memtopo) | median ms | time / shm | '
           'occupancy % | resident blocks/SM (limit) | bank conflicts | L1 hit % | L1 busy % | instructions M | '
           'barrier stall % | top stall (% of samples) | L2 MB | DRAM MB |',
           '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for r in rows:
        base = shm.get(r['family'])
        ratio = f'{r["ms"] / base["ms"]:.2f}' if base else '-'
        out.append(f'| {r["name"]} | {"none" if r["pref"] < 0 else str(r["pref"]) + "%"} | '
                   f'{r["config"] / 1024:.0f} | {l1_cell(sizes, r["config"])} | {r["ms"]:.4f} | {ratio} | '
                   f'{r["occ"]:.1f} | {r["blocks_per_sm"]} ({", ".join(r["limiters"])}) | {r["conflicts"]:.0f} | '
                   f'{r["l1hit"]:.1f} | {r["l1busy"]:.0f} | {r["inst"] / 1e6:.1f} | {r["barrier_pct"]:.1f} | '
                   f'{r["top_stall"]} ({r["top_stall_pct"]:.0f}) | {r["l2bytes"] / 1e6:.0f} | '
                   f'{r["drambytes"] / 1e6:.0f} |')
    speedups = []
    out += ['', '| kernel | shared memory ms | best L1 case | its ms | winner | speed-up of the winner | '
            "model's predicted winner |", '|---|---|---|---|---|---|---|']
    for fam in dict.fromkeys(r['family'] for r in rows):
        s = shm.get(fam)
        l1 = [r for r in rows if r['family'] == fam and r['version'] == 'l1']
        if not s or not l1:
            raise Bad(f'{fam}: needs a shared-memory case and an L1 case')
        best = min(l1, key=lambda r: r['ms'])
        win, lose = (s, best) if s['ms'] <= best['ms'] else (best, s)
        speedups.append(best['ms'] / s['ms'])
        out.append(f'| {fam} | {s["ms"]:.4f} | {best["name"]} | {best["ms"]:.4f} | '
                   f'{"shared memory" if win is s else "L1"} | {lose["ms"] / win["ms"]:.2f}x | {pred.get(fam, "")} |')
    gm = 1.0
    for x in speedups:
        gm *= x
    gm **= 1.0 / len(speedups)
    nshm = sum(1 for x in speedups if x > 1.0)
    clocks = sorted({(r['sm_mhz'], r['mem_mhz']) for r in rows})
    out += ['', f'Shared memory wins {nshm} of {len(speedups)} kernels; geometric mean of best L1 time / '
            f'shared-memory time: {gm:.2f}.',
            '', 'SM / memory clock during the timed runs (MHz): ' +
            ', '.join(f'{a} / {b}' for a, b in clocks) + '.']
    return '\n'.join(out) + '\n'


def split_doc(doc):
    """DOC as (text before the tables, the tables, text after them)."""
    with open(doc) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise Bad(f'{doc}: no table markers')
    before, rest = text.split(BEGIN, 1)
    inside, after = rest.split(END, 1)
    return before, inside.strip('\n') + '\n', after


def check(d, doc, report):
    want = tables(d, report)
    got = split_doc(doc)[1]
    if got != want:
        for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines())):
            if a != b:
                raise Bad(f'{doc}: table line {i + 1} differs from the fixture: {a[:60]!r} vs {b[:60]!r}')
        raise Bad(f'{doc}: the table has {len(got.splitlines())} lines, the fixture gives {len(want.splitlines())}')


def write(d, doc, report):
    want = tables(d, report)
    before, _, after = split_doc(doc)
    tmp = doc + '.tmp'
    with open(tmp, 'w') as f:
        f.write(before + BEGIN + '\n' + want + END + after)
    os.replace(tmp, doc)


def plotdata(d, outdir):
    rows = load(d)
    os.makedirs(outdir, exist_ok=True)
    fams = list(dict.fromkeys(r['family'] for r in rows))
    shm = {r['family']: r['ms'] for r in rows if r['version'] == 'shm'}
    # one block per version: family index, time relative to the shm version
    with open(os.path.join(outdir, 'li-times.dat'), 'w') as f:
        f.write('# family  shm  l1(no pref)  l1(50%)  l1(100%): time / shared-memory time\n')
        for i, fam in enumerate(fams):
            by = {r['name'][len('li_' + fam):]: r['ms'] / shm[fam] for r in rows if r['family'] == fam}
            f.write(f'{i} {fam} ' + ' '.join(f'{by.get(k, float("nan")):.4f}'
                                            for k in ('_shm', '_l1', '_l1_c50', '_l1_c100')) + '\n')
    # per family, the L1 version (no carveout preference) over the shm version
    with open(os.path.join(outdir, 'li-factors.dat'), 'w') as f:
        f.write('# family  L1/shm ratios: time  instructions  achieved-occupancy  L2-bytes\n')
        for i, fam in enumerate(fams):
            s_, l_ = (next(r for r in rows if r['name'] == f'li_{fam}{v}') for v in ('_shm', '_l1'))
            f.write(f'{i} {fam} ' + ' '.join(f'{l_[k] / s_[k]:.4f}' for k in ('ms', 'inst', 'occ', 'l2bytes'))
                    + '\n')


def model_winners(d, pred_path):
    """Per family, the version `memtopo model` predicts faster: its shm case
    against the L1 case it predicts fastest (prediction k is case k)."""
    rows = load(d)
    with open(pred_path) as f:
        preds = json.load(f)['predictions']
    if len(preds) != len(rows):
        raise Bad(f'{pred_path}: {len(preds)} predictions for {len(rows)} cases')
    ms = {}
    for r, p in zip(rows, preds):
        # the model names a launch "ID:demangled name"
        kname = re.sub(r'^[0-9]+:', '', p['kernel']).removeprefix('void ')
        if not kname.startswith(r['kernel'] + '('):
            raise Bad(f'{pred_path}: prediction for {p["kernel"][:40]} where case {r["name"]} runs {r["kernel"]}')
        ms[r['name']] = 1e3 * p['base']['seconds']
    with open(os.path.join(d, 'model-winners.tsv'), 'w') as f:
        f.write('family\twinner\tshm_predicted_ms\tbest_l1_case\tl1_predicted_ms\n')
        for fam in dict.fromkeys(r['family'] for r in rows):
            shm = ms[f'li_{fam}_shm']
            best = min((r['name'] for r in rows if r['family'] == fam and r['version'] == 'l1'), key=ms.get)
            win = 'shared memory' if shm <= ms[best] else 'L1'
            f.write(f'{fam}\t{win}\t{shm:.4f}\t{best}\t{ms[best]:.4f}\n')


def main(argv):
    try:
        if len(argv) in (3, 4) and argv[1] == 'table':
            sys.stdout.write(tables(argv[2], argv[3] if len(argv) == 4 else os.path.join(argv[2], 'report.json')))
        elif len(argv) in (4, 5) and argv[1] == 'check':
            check(argv[2], argv[3], argv[4] if len(argv) == 5 else os.path.join(argv[2], 'report.json'))
        elif len(argv) in (4, 5) and argv[1] == 'write':
            write(argv[2], argv[3], argv[4] if len(argv) == 5 else os.path.join(argv[2], 'report.json'))
        elif len(argv) == 4 and argv[1] == 'plotdata':
            plotdata(argv[2], argv[3])
        elif len(argv) == 4 and argv[1] == 'winners':
            model_winners(argv[2], argv[3])
        else:
            sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
            return 2
    except Bad as e:
        sys.stderr.write(f'li_study: {e}\n')
        return 1
    except (OSError, KeyError, json.JSONDecodeError, lzma.LZMAError) as e:
        sys.stderr.write(f'li_study: cannot read the fixture: {e}\n')
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
