#!/usr/bin/env python3
"""Random, valid simulator specs for stress-testing the probes.

    tools/random_spec.py DIR FIRST LAST          # writes DIR/fFIRST.spec .. fLAST-1.spec
    tools/random_spec.py --whole DIR FIRST LAST  # writes DIR/wFIRST.spec ..: the whole format

Without --whole, each spec draws cache layouts (unified / separate / no L1 caching), sizes,
lines, sectors, associativity, set indexing, replacement, slices and their
thread map, constant L1 / L1.5 (or none), L2 fill, partitions and latencies
from ranges around real GPUs (the draws of seeds f0.. stay as they were).
With --whole the draws cover the whole documented format instead
(tools/spec_whole.py). Run the end-to-end truth check on them with
    MT_SPEC_DIR=DIR build/tests/test_e2e_presets
or, one verdict per spec, tests/sh/test_random_specs.sh.
Specs that once exposed a probe weakness are kept in tests/specs/.
"""
import random, sys, os
def spec(seed):
    R = random.Random(seed)
    c = lambda *a: R.choice(a)
    out = []
    sms = c(4, 8, 16, 40)
    l2line = c(32, 64, 128); l2ways = c(8, 16); l2parts = c(1, 1, 2, 4)
    l2sets = c(512, 1024, 2048, 1536, 3072) * l2parts
    l2size = l2sets * l2ways * l2line
    out.append(f"""[device]
name = fuzz {seed}
compute_capability = 8.0
sm_count = {sms}
clock_mhz = 1500
mem_clock_mhz = 3000
bus_width_bits = 256
global_mem = 8 GiB
l2_size = {l2size}
smem_per_sm = 64 KiB
smem_per_block = 48 KiB
smem_per_block_optin = 48 KiB
const_mem = 64 KiB
max_threads_per_block = 1024
max_threads_per_sm = 2048
warp_size = 32
seed = {seed}
timer_overhead = {c(3, 10, 20)}
loop_overhead = {c(4, 8)}
outlier_rate = {c(0, 0.0001, 0.0005)}
outlier_cycles = 900
""")
    def cache(name, serves, lat, extra=""):
        line = c(32, 64, 128)
        sector = c(32, line) if line > 32 else 32
        full = R.random() < 0.15
        ways = c(2, 4, 6, 8, 16)
        sets = c(16, 32, 64, 128, 48, 96)
        size = (sets * ways * line) if not full else c(64, 128, 256) * line
        repl = c("lru", "lru", "fifo", "random", "fermi") if not full else c("lru", "fifo", "random")
        if repl == "fermi" and ways < 2: repl = "lru"
        s = f"[cache {name}]\nserves = {serves}\nsize = {size}\nline = {line}\nsector = {sector}\n"
        s += "ways = full\n" if full else f"ways = {ways}\nindex = {c('modulo','xor')}\n"
        s += f"replacement = {repl}\nlatency = {lat}\nnoise = {c(0.5, 1.0, 2.0)}\n" + extra
        return s
    l1lat = R.randint(25, 60)
    slices = c(1, 1, 1, 2, 4)
    sl = ""
    if slices > 1:
        sl = f"slices = {slices}\nslice_map = {c('warp_mod', 'thread_mod', 'group 64')}\n"
    layout = c("unified", "separate", "nol1d", "l1d+ro")
    if layout == "unified":
        out.append(cache("l1", "l1d tex ro", l1lat, f"latency.tex = {l1lat + R.randint(0, 50)}\n" + sl))
    elif layout == "separate":
        out.append(cache("l1", "l1d", l1lat))
        out.append(cache("tex", "tex ro", l1lat + R.randint(10, 60), sl))
    elif layout == "nol1d":
        out.append(cache("tex", "tex ro", l1lat + R.randint(10, 60), sl))
    else:
        out.append(cache("l1", "l1d ro", l1lat))
        out.append(cache("tex", "tex", l1lat + R.randint(10, 60), sl))
    clat = R.randint(20, 50)
    cl = c(32, 64)
    out.append(f"[cache const_l1]\nserves = const\nlevel = 1\nsize = {c(1,2,4,8) * 1024}\nline = {cl}\nways = {c(2,4,8)}\nlatency = {clat}\nnoise = 0.5\n")
    l15 = c("none", "small", "big")
    if l15 != "none":
        line = c(64, 128, 256)
        size = c(16, 24, 32, 40, 48) * 1024 if l15 == "small" else 128 * 1024
        ways = 8
        while (size // line) % ways: ways //= 2
        out.append(f"[cache const_l15]\nserves = const\nlevel = 1.5\nsize = {size}\nline = {line}\nways = {ways}\nlatency = {clat + R.randint(40, 90)}\nnoise = 1.0\n")
    l2lat = R.randint(150, 300)
    l2 = f"[cache l2]\nserves = all\nsize = {l2size}\nline = {l2line}\nsector = 32\nfill = {c(32, 64) if l2line >= 64 else 32}\nways = {l2ways}\nindex = {c('xor','modulo')}\nreplacement = lru\nlatency = {l2lat}\nnoise = {c(2.0, 4.0)}\n"
    if l2parts > 1:
        l2 += f"partitions = {l2parts}\nfar_latency = {l2lat + R.randint(25, 150)}\n"
    out.append(l2)
    out.append(f"[dram]\nlatency = {l2lat + R.randint(150, 400)}\nnoise = 15\n\n[shared]\nlatency = {R.randint(18, 40)}\nnoise = 0.5\n")
    return "\n".join(out)
args = sys.argv[1:]
whole = args[:1] == ["--whole"]
if whole:
    args = args[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from spec_whole import spec_whole
d = args[0]; os.makedirs(d, exist_ok=True)
for s in range(int(args[1]), int(args[2])):
    if whole:
        open(f"{d}/w{s}.spec", "w").write(spec_whole(s))
    else:
        open(f"{d}/f{s}.spec", "w").write(spec(s))
