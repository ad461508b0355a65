"""One random simulator spec drawn across the whole documented format
(docs/spec-format.md), for the randomized end-to-end test
(tests/sh/test_random_specs.sh; tools/random_spec.py --whole writes them).

What is drawn, and the limits kept:
  * L1-level caches (l1d, tex, ro in every documented layout, including no
    L1 caching of global loads) of 1 KiB to 256 KiB, lines 32-256 B,
    sectors 16-128 B (sector <= line), fill sector..line, 1-16 ways or
    fully associative, modulo or xor indexing, lru / fifo / random / fermi
    (any fermi_way), 1-8 slices with every slice map;
  * a constant L1 (1-16 KiB) and a constant L1.5 (none, or 4x the L1 and
    more, up to 256 KiB, so also beyond the 64 KiB bank);
  * an L2 of 2x to 500x the largest L1-level cache (log-uniform; at
    least 64 KiB and size x ways <= 2 GiB, the parser's limits), any
    line / sector / fill / ways / index / policy, 1-8 partitions with a far
    latency;
  * noise on every level up to 1/8 of its latency (L2: of its near
    latency, which is the smaller), timer outliers up to a rate of 0.01 and
    10000 cycles: the documented limits.
What the probes' method needs and the format does not say is kept too,
each with its reason: consecutive levels at least 20 cycles apart (the
smallest gap of any real GPU, docs/method.md), an L1.5 at least 4x the
constant L1 (chains of 3x the L1 must fit it).
"""
import math
import random

KIB = 1024
L2_MIN = 64 * KIB             # docs/spec-format.md: smallest L2
L2_SIZE_WAYS_MAX = 2 << 30    # docs/spec-format.md: L2 size x ways


def _log_uniform(R, lo, hi):
    return math.exp(R.uniform(math.log(lo), math.log(hi)))


def _noise(R, latency):
    # Half the draws small (real GPUs: a few cycles), half up to the limit.
    frac = R.uniform(0, 1 / 40) if R.random() < 0.5 else R.uniform(0, 1 / 8)
    return round(latency * frac, 2)


def _geometry(R, lo_bytes, hi_bytes, lines=(32, 64, 128, 256), max_ways=16):
    """Size, line, sector, fill and ways lines of one cache section."""
    line = R.choice(lines)
    sector = R.choice([s for s in (16, 32, 64, 128) if s <= line and line // s <= 32])
    fill = R.choice([f for f in (16, 32, 64, 128, 256) if sector <= f <= line])
    target = _log_uniform(R, lo_bytes, hi_bytes)
    n_lines = max(2, int(target // line))
    if R.random() < 0.15 and n_lines <= 1024:
        ways = "full"
    else:
        ways = R.choice([w for w in (1, 2, 3, 4, 6, 8, 12, 16) if w <= min(max_ways, n_lines)])
        n_lines = max(ways, n_lines // ways * ways)
    size = n_lines * line
    return size, line, sector, fill, ways


def _policy(R, ways):
    repl = R.choice(["lru", "fifo", "random", "fermi"])
    if repl == "fermi" and (ways == "full" or ways < 2):
        repl = "random"
    text = f"replacement = {repl}\n"
    if repl == "fermi":
        text += f"fermi_way = {R.randrange(ways)}\n"
    return text


def _cache(R, name, serves, lo, hi, latency, extra=""):
    size, line, sector, fill, ways = _geometry(R, lo, hi)
    text = (f"[cache {name}]\nserves = {serves}\nsize = {size}\nline = {line}\n"
            f"sector = {sector}\nfill = {fill}\nways = {ways}\n")
    if ways != "full":
        text += f"index = {R.choice(['modulo', 'xor'])}\n"
    text += _policy(R, ways)
    text += f"latency = {latency}\nnoise = {_noise(R, latency)}\n" + extra
    return text, size


def _slices(R):
    n = R.choice([1, 1, 1, 2, 4, 8])
    if n == 1:
        return ""
    return f"slices = {n}\nslice_map = {R.choice(['warp_mod', 'thread_mod', 'group 64', 'group 128'])}\n"


def spec_whole(seed):
    R = random.Random(seed)
    outlier_rate = 0 if R.random() < 0.3 else round(R.uniform(0, 0.01), 5)
    out = [f"""# tools/spec_whole.py seed {seed}
[device]
name = whole {seed}
compute_capability = 8.0
sm_count = {R.choice([1, 2, 8, 16, 40, 132])}
clock_mhz = 1500
mem_clock_mhz = 3000
bus_width_bits = 256
global_mem = 8 GiB
l2_size = L2SIZE
smem_per_sm = 64 KiB
smem_per_block = 48 KiB
smem_per_block_optin = 48 KiB
const_mem = 64 KiB
max_threads_per_block = 1024
max_threads_per_sm = 2048
warp_size = 32
seed = {seed}
timer_overhead = {R.randint(2, 40)}
loop_overhead = {R.randint(2, 12)}
outlier_rate = {outlier_rate}
outlier_cycles = {R.randint(200, 10000)}
"""]
    # L1 level: latencies, then the layout.
    l1lat = R.randint(20, 100)
    texlat = l1lat + R.randint(0, 60)
    sizes = []
    layout = R.choice(["unified", "separate", "nol1d", "l1d+ro"])
    if layout == "unified":
        text, size = _cache(R, "l1", "l1d tex ro", 1 * KIB, 256 * KIB, l1lat,
                            f"latency.tex = {texlat}\n" + _slices(R))
        parts = [text]; sizes.append(size); upper = texlat
    elif layout == "separate":
        a, sa = _cache(R, "l1", "l1d", 1 * KIB, 256 * KIB, l1lat)
        b, sb = _cache(R, "tex", "tex ro", 1 * KIB, 256 * KIB, texlat, _slices(R))
        parts = [a, b]; sizes += [sa, sb]; upper = texlat
    elif layout == "nol1d":
        b, sb = _cache(R, "tex", "tex ro", 1 * KIB, 256 * KIB, texlat, _slices(R))
        parts = [b]; sizes.append(sb); upper = texlat
    else:
        a, sa = _cache(R, "l1", "l1d ro", 1 * KIB, 256 * KIB, l1lat)
        b, sb = _cache(R, "tex", "tex", 1 * KIB, 256 * KIB, texlat, _slices(R))
        parts = [a, b]; sizes += [sa, sb]; upper = texlat
    out += parts
    # Constant caches.
    clat = R.randint(20, 60)
    c1, c1size = _cache(R, "const_l1", "const", 1 * KIB, 16 * KIB, clat,
                        "level = 1\n" + (f"slices = 4\nslice_map = warp_mod\n" if R.random() < 0.1 else ""))
    out.append(c1)
    upper = max(upper, clat)
    if R.random() < 0.75:
        l15lat = clat + R.randint(30, 100)
        c15, _ = _cache(R, "const_l15", "const", 4 * c1size, 256 * KIB, l15lat, "level = 1.5\n")
        out.append(c15)
        upper = max(upper, l15lat)
    # L2: 2x to 500x the largest L1-level cache.
    l2lat = upper + R.randint(40, 200)
    parts = R.choice([1, 1, 2, 4, 8])
    far = l2lat + R.randint(20, 160)
    # The parser's limits: at least 64 KiB (the L2 probe's shortest chain,
    # 1/256 of it, must hold a line), size x ways at most 2 GiB.
    target = max(L2_MIN, max(sizes) * _log_uniform(R, 2, 500))
    line = R.choice([32, 64, 128, 256])
    sector = R.choice([s for s in (16, 32, 64, 128) if s <= line and line // s <= 32])
    fill = R.choice([f for f in (16, 32, 64, 128, 256) if sector <= f <= line])
    ways = R.choice([w for w in (4, 8, 12, 16, 32) if (target + parts * line * w) * w <= L2_SIZE_WAYS_MAX])
    sets = max(parts, math.ceil(target / (line * ways) / parts) * parts)
    l2size = sets * line * ways
    l2 = (f"[cache l2]\nserves = all\nsize = {l2size}\nline = {line}\nsector = {sector}\n"
          f"fill = {fill}\nways = {ways}\nindex = {R.choice(['modulo', 'xor'])}\n" + _policy(R, ways) +
          f"latency = {l2lat}\nnoise = {_noise(R, l2lat)}\n")
    if parts > 1:
        l2 += f"partitions = {parts}\nfar_latency = {far}\n"
    out.append(l2)
    out[0] = out[0].replace("L2SIZE", str(l2size))
    dram = (far if parts > 1 else l2lat) + R.randint(100, 500)
    shared = R.randint(18, 40)
    out.append(f"[dram]\nlatency = {dram}\nnoise = {_noise(R, dram)}\n\n"
               f"[shared]\nlatency = {shared}\nnoise = {_noise(R, shared)}\n")
    return "\n".join(out)
