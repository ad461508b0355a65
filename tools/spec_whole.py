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
  * the driver's l2_size: the L2 cache's size, or for about 1 in 4 specs
    (an RNG of its own) a size within the format's factor of 2 of it;
  * noise on every level up to 1/8 of its latency (L2: of its near
    latency, which is the smaller), timer outliers up to a rate of 0.01 and
    10000 cycles: the documented limits;
  * the keys added for issue 8, drawn from a second RNG (seeded from the
    seed) so that R's stream, hence every other draw of a seed, is what it
    was before them (a spec changes only where a new key is drawn):
    - replacement = plru for about 1 in 5 caches with a power-of-two way
      count (in place of the policy drawn; the only counts it allows);
    - index = hash for about 1 in 5 caches (not unified ones: the format
      forbids it) and 1 in 4 L2s, whose sets (per partition for the L2)
      are then rounded up to a power of two >= 2, and for 1 in 4 of the
      others whose sets happen to be one: mask i is bit i plus random bits
      from bit n (n set bits) up to bit 21, so the masks are independent,
      also restricted to bits 0..n-1 (contiguous data fills evenly);
    - unified for about 30% of the L1-level caches (l1d/tex/ro): the
      device then lists carveouts_kib (a few of 0..48 KiB and always
      smem_per_sm, 64 KiB), the default carveout is a listed one above 0
      (carveout_smem = 0 would mean unknown), unified = the default + the
      drawn size (grown by whole sets until the largest carveout leaves
      one), and line x ways divides every carveout (the format's rule that
      each leaves whole sets);
    - carveout_takes = ways for about 40% of the unified caches where the
      format allows it (every carveout whole lines leaving every set a
      way; lru, fifo or random), and then a hash index for half of those
      with a power-of-two set count, from a fourth RNG (_takes_ways);
    - partition_of_sm for about half the partitioned L2s on devices with
      at least as many SMs as partitions: every partition named, shuffled,
      in N*P runs or one entry each (the list repeats over the SMs).
  * the [throughput] section (issue 10) in about 70% of the specs, from a
    third RNG (seeded from the seed) so that no other draw changes: every
    streamed cache's read figure (and its write figure half the time)
    log-uniform over the format's 1..4096 B/clk per SM, shared memory's
    likewise, the L2's and DRAM's GPU-wide figures log-uniform from 1 B/clk
    per SM to the format's 10^6 B/clk, and mshr log-uniform over 1..65536.
  * the [shared] bank keys (issue 9), from an RNG of their own (seeded from the
    seed) for the same reason: about 1 in 5 specs leave them out (the
    defaults, 32 x 4 B banks, 2 cycles per way, broadcast), the others draw
    banks 16/32/64 and bank_width 4/8 with banks x width >= 128 B (the
    format's rule), conflict_cycles log-uniform over 1..64 and broadcast
    no for about 1 in 4;
  * the keys added for issue 9 (TLB levels), from an RNG of their own
    (so the draws above stay what they were): for about 60% of the seeds
    one to three [tlb NAME] levels (sharing groups of SMs and, for some,
    set-associative ways from an RNG of their own), one page size of 64 KiB to 2 MiB for
    all, the first level's entries from its least (the 4 GiB path limit
    over the page, the format's rule) up to 8x that, each further level
    4x to 16x the entries of the one before (the format's least ratio is
    4), at most 65536, miss penalties of 8 (the least) to 400 cycles,
    log-uniform, and about 1 in 10 up to 3000; global_mem then one of 8 to
    256 GiB (the sparse chains span up to all of it less a sixteenth).
    From a further RNG of its own (issue 9 part 1, pages above 2 MiB), 40%
    of those specs take a page of 4 MiB to 1 GiB instead (the format's
    whole new range, uniform over its powers of two); the first level's
    least entries follow the page as above (4 at 1 GiB), so its reach still
    covers the 4 GiB path limit.
  * the [cluster] section (issue 10 parts 3-4), from an RNG of its own
    (so the draws above stay what they were): in about half the specs,
    which then say compute_capability 9.0 (the format's rule; no other
    probe reads it), max_size 2..16, portable_size left out half the time
    (the default) or 2..min(8, max_size), remote_latency log-uniform over
    the format's 1..10^6 cycles, remote_noise left out a third of the time
    or up to remote_latency / 8, link_bw log-uniform over 1..4096 B/clk,
    tma_latency and copy_latency log-uniform over 1..4096 cycles, tma_bw
    and copy_bw over 1..512 B/clk: the whole documented ranges.  The other
    half stay at 8.0 without clusters ("not supported").
  * the [icache NAME] levels (issue 10 part 5), from an RNG of their own
    (so the draws above stay what they were): for about 60% of the seeds
    one to four levels; sizes log-uniform, the first from the format's
    least (1 KiB) to 512 KiB, each further one 2x (the format's least
    ratio) to 64x the one before, the last at least the format's 1 MiB and
    at most its 1 GiB; cycles per instruction from the format's least
    (0.5) to 4 for the first, each further one 0.5 (the least step) to 50
    more (log-uniform), up to the format's 1000; noise up to latency / 8
    (none for about 1 in 4 levels).
  * the [access] section (issue 9 part 4), from an RNG of its own (so the
    draws above stay what they were): in about 70% of the specs; each of
    ca_sector_cycles, ca_line_cycles, cg_sector_cycles, cg_line_cycles
    left out a quarter of the time (the default), else 0 a third of the
    time and log-uniform over the format's 1..64 cycles otherwise;
    ca_passes and cg_passes left out, lines or banks (banks only with 4 B
    banks, the format's rule); then, from a further RNG of its own, per
    path the partial-warp cost (left out half the time, else 0 or 1..64),
    the tag group (left out half the time, else 1, 2, 4 or 8) and, where
    the format allows a tag cost (bank passes whose line cost is above 0,
    no sector cost), the tag cost 60% of the time (0 a quarter of those,
    else log-uniform over 1..64).
  * the [host_link] and [link N] sections (issue 11 part 2), from an RNG
    of their own (so the draws above stay what they were): in about 60%
    of the specs a host link (70% of those) and 0 to 3 links to GPUs N
    drawn from the format's 0..15; each PCIe (gen 1..6, width 1..32, a
    power of two) or NVLink (links 1..18, version 1..5) half the time;
    peer_access, atomics and perf_rank (0..16) each left out half the
    time (the defaults); latency log-uniform over the format's 50..10^6
    cycles, noise left out a third of the time or up to latency / 8; each
    of the four bandwidths log-uniform over the format's 0.5..2000 GB/s.
What the probes' method needs and the format does not say is kept too,
each with its reason: consecutive levels at least 20 cycles apart (the
smallest gap of any real GPU, docs/method.md), an L1.5 at least 4x the
constant L1 (chains of 3x the L1 must fit it).
"""
import math
import random

KIB = 1024
MIB = 1024 * KIB
L2_MIN = 64 * KIB             # docs/spec-format.md: smallest L2
L2_SIZE_WAYS_MAX = 2 << 30    # docs/spec-format.md: L2 size x ways
L2_MAX = 128 << 20            # docs/spec-format.md: largest simulated L2
SMEM_PER_SM = 64 * KIB        # the [device] below


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


def _pow2(n):
    return n >= 1 and n & (n - 1) == 0


def _policy(R, ways, X=None):
    repl = R.choice(["lru", "fifo", "random", "fermi"])
    if repl == "fermi" and (ways == "full" or ways < 2):
        repl = "random"
    text = f"replacement = {repl}\n"
    if repl == "fermi":
        text += f"fermi_way = {R.randrange(ways)}\n"
    # plru needs a tree of ways: power-of-two counts only ("full" here is
    # one set of up to 1024 lines, rarely a power of two: left out).  It
    # replaces the policy drawn after R's draws, which keeps R's stream.
    if X is not None and ways != "full" and _pow2(ways) and X.random() < 0.2:
        text = "replacement = plru\n"
    return text


def _hash_masks(X, sets):
    """index_masks for `sets` (a power of two >= 2) sets: mask i is bit i
    plus random bits from bit n up to bit 21.  Restricted to bits 0..n-1
    the masks are the identity, hence independent (every set reachable,
    contiguous data fills evenly), whatever the higher bits."""
    n = sets.bit_length() - 1
    masks = []
    for i in range(n):
        m = 1 << i
        for b in range(n, 22):
            if X.random() < 0.25:
                m |= 1 << b
        masks.append(f"0x{m:x}")
    return " ".join(masks)


def _index(R, X, sets, allow_hash=True, p_hash=0.25):
    """The index line(s): modulo or xor as before, or (extra RNG, with
    probability p_hash where the sets allow it) hash."""
    idx = R.choice(['modulo', 'xor'])
    if X is not None and allow_hash and sets >= 2 and _pow2(sets) and X.random() < p_hash:
        return f"index = hash\nindex_masks = {_hash_masks(X, sets)}\n"
    return f"index = {idx}\n"


def _takes_ways(K, text, unified, line, ways, carveouts):
    """carveout_takes = ways (and then, half the time where the sets are a
    power of two, a hash index, which the key allows) for about 40% of the
    unified caches whose every carveout is whole lines and leaves each of
    the unified / line / ways sets a way, under a policy it allows (lru,
    fifo, random).  K is the set map's own RNG (the module docstring)."""
    sets = unified // line // ways
    if (K.random() >= 0.4 or any(c % line for c in carveouts) or
            (unified - max(carveouts)) // line < sets or
            not any(f"replacement = {r}\n" in text for r in ("lru", "fifo", "random"))):
        return text
    text += "carveout_takes = ways\n"
    if sets >= 2 and _pow2(sets) and K.random() < 0.5:
        for idx in ("modulo", "xor"):
            text = text.replace(f"index = {idx}\n",
                                f"index = hash\nindex_masks = {_hash_masks(K, sets)}\n")
    return text


def _cache(R, name, serves, lo, hi, latency, extra="", X=None, carve=None, K=None):
    """One cache section.  carve = (default, carveouts) in bytes makes it a
    unified L1 (the ways then divide every carveout's leftover); K draws
    how its carveout takes capacity (_takes_ways)."""
    size, line, sector, fill, ways = _geometry(R, lo, hi)
    unified = None
    if carve is not None:
        default, carveouts = carve
        # The unified array (size + default) and what every carveout leaves
        # must be whole sets: line x ways divides every carveout.
        step = 0
        for c in carveouts:
            step = math.gcd(step, c)
        set_lines = step // line if step else 1024
        n_lines = size // line
        choices = [w for w in (1, 2, 3, 4, 6, 8, 12, 16) if set_lines % w == 0 and w <= n_lines]
        ways = ways if ways != "full" and ways in choices else X.choice(choices)
        size = max(ways, n_lines // ways * ways) * line
        # At the largest carveout something must be left: at least one set.
        while size + default - max(carveouts) < line * ways:
            size += line * ways
        unified = size + default
    p_hash = 0.25
    if carve is None and ways != "full" and X is not None and X.random() < 0.2:
        # Sizes are log-uniform, so a power of two of sets is rare: about 1
        # in 5 caches get their sets rounded up to one, and a hash.
        sets = size // line // ways
        size, p_hash = max(2, 1 << (sets - 1).bit_length()) * ways * line, 1.0
    text = (f"[cache {name}]\nserves = {serves}\n" +
            (f"unified = {unified}\n" if unified else f"size = {size}\n") +
            f"line = {line}\nsector = {sector}\nfill = {fill}\nways = {ways}\n")
    if ways != "full":
        text += _index(R, X, size // line // ways, allow_hash=unified is None, p_hash=p_hash)
    text += _policy(R, ways, X)
    if unified and K is not None:
        text = _takes_ways(K, text, unified, line, ways, carve[1])
    text += f"latency = {latency}\nnoise = {_noise(R, latency)}\n" + extra
    return text, size


L2_DRIVER_RATIO = 2           # docs/spec-format.md: l2_size within a factor of 2 of the cache
L2_DRIVER_SHARE = 0.25        # share of specs whose driver L2 size is not the cache's


def _driver_l2(D, cache_bytes):
    """l2_size, the L2 size the driver reports: the cache's own in most
    specs, and for about 1 in 4 (D, an RNG of its own, so no other draw
    changes) a size log-uniform within the format's factor of 2 of it, in
    whole KiB, at least the format's 64 KiB (real drivers need not report
    what one SM, or the whole GPU, can allocate in)."""
    if D.random() >= L2_DRIVER_SHARE:
        return cache_bytes
    want = cache_bytes * _log_uniform(D, 1 / L2_DRIVER_RATIO, L2_DRIVER_RATIO)
    lo = max(L2_MIN, math.ceil(cache_bytes / L2_DRIVER_RATIO / KIB) * KIB)
    hi = math.floor(cache_bytes * L2_DRIVER_RATIO / KIB) * KIB
    return min(hi, max(lo, round(want / KIB) * KIB))


def _slices(R):
    n = R.choice([1, 1, 1, 2, 4, 8])
    if n == 1:
        return ""
    return f"slices = {n}\nslice_map = {R.choice(['warp_mod', 'thread_mod', 'group 64', 'group 128'])}\n"


def _carveouts(X):
    """(default, carveouts) in bytes for unified L1s: a few of 0..48 KiB and
    always smem_per_sm (64 KiB, the format's rule for the largest); the
    default is a listed one above 0 (carveout_smem = 0 means unknown)."""
    carveouts = sorted(set(X.sample([0, 8, 16, 24, 32, 48], X.randint(0, 4))) | {SMEM_PER_SM // KIB})
    carveouts = [c * KIB for c in carveouts]
    return X.choice([c for c in carveouts if c > 0]), carveouts


def _partition_map(X, parts, sm_count):
    """partition_of_sm for about half the partitioned L2s: every partition
    named (so it needs sm_count >= parts), shuffled, either in runs (N*P)
    or one entry at a time; the list repeats over the SMs."""
    if X.random() >= 0.5 or sm_count < parts:
        return ""
    per = X.randint(1, max(1, min(16, sm_count) // parts))
    order = list(range(parts))
    X.shuffle(order)
    if X.random() < 0.5:
        return f"partition_of_sm = {' '.join(f'{per}*{p}' for p in order)}\n"
    return f"partition_of_sm = {' '.join(str(p) for p in order)}\n"


def _banks(seed):
    """[shared]'s bank keys from their own RNG (the module docstring)."""
    Y = random.Random(f"issue9 banks {seed}")
    if Y.random() < 0.2:
        return ""
    banks, width = Y.choice([(b, w) for b in (16, 32, 64) for w in (4, 8) if b * w >= 128])
    cycles = round(_log_uniform(Y, 1, 64), 2)
    return (f"banks = {banks}\nbank_width = {width}\nconflict_cycles = {max(1.0, min(64.0, cycles))}\n"
            f"broadcast = {'no' if Y.random() < 0.25 else 'yes'}\n")
TLB_PATH_LIMIT = 4 << 30      # docs/spec-format.md: the first level covers min(global_mem / 2, 4 GiB)
TLB_MAX_ENTRIES = 65536       # docs/spec-format.md
TLB_ENTRY_RATIO = 4           # docs/spec-format.md: each level >= 4x the one before
TLB_MIN_PENALTY = 8           # docs/spec-format.md
TLB_HUGE_SHARE = 0.4          # share of TLB specs with pages above 2 MiB (format: up to 1 GiB)


TLB_SET_SHARE = 0.3           # share of levels drawn set-associative
TLB_MAX_SET_WAYS = 64         # docs/spec-format.md: a set-associative level's most ways


def _tlb_sharing(S, levels, sm_count):
    """The issue-9 sharing and associativity keys of each level (a list of
    [entries, extra key lines]), drawn from S, an RNG of their own so the
    levels' other draws stay what they were: sms_per_group over the whole
    documented range (absent, `all`, 1 to sm_count, each level's groups
    whole groups of the level before), and for some levels a power of two
    of ways (1 to 64) below the entries, the entries then rounded up to a
    power of two where the rules across levels still hold."""
    prev = None  # the level before's group: None = all
    for i, lv in enumerate(levels):
        if prev is None and i > 0:
            choice = S.choice(["absent", "all"])
        else:
            choice = S.choice(["absent", "all", "one", "draw"])
        if choice == "absent":
            group = None
        elif choice == "all":
            lv[1].append("sms_per_group = all")
            group = None
        else:
            base = prev or 1
            top = sm_count // base
            group = base * (1 if choice == "one" else S.randint(1, max(1, top)))
            lv[1].append(f"sms_per_group = {group}")
        prev = group
        if S.random() < TLB_SET_SHARE:
            entries = 1 << (lv[0] - 1).bit_length()
            nxt = levels[i + 1][0] if i + 1 < len(levels) else None
            before = levels[i - 1][0] if i else None
            if (entries <= TLB_MAX_ENTRIES and (nxt is None or nxt >= TLB_ENTRY_RATIO * entries)
                    and (before is None or entries >= TLB_ENTRY_RATIO * before)):
                ways = min(1 << S.randint(0, 6), TLB_MAX_SET_WAYS, entries)
                lv[0] = entries
                lv[1].append(f"ways = {ways}")
        elif S.random() < 0.2:
            lv[1].append(f"ways = {lv[0]}")   # fully associative, said explicitly


def _tlbs(T, H, S, sm_count):
    """[tlb NAME] sections (issue 9) and the global_mem they go with, or
    ("", None) for a GPU without TLBs (global_mem stays 8 GiB).  H, an RNG
    of its own, replaces the page by one above 2 MiB for some of them; S,
    another, draws the sharing groups and the associativity."""
    if T.random() >= 0.6:
        return "", None
    global_gib = T.choice([8, 16, 32, 64, 80, 128, 256])
    page = (64 * KIB) << T.randint(0, 5)            # 64 KiB .. 2 MiB
    if H.random() < TLB_HUGE_SHARE:
        page = (4 * MIB) << H.randint(0, 8)         # 4 MiB .. 1 GiB
    least = TLB_PATH_LIMIT // page
    entries = min(TLB_MAX_ENTRIES, int(least * _log_uniform(T, 1, 8)))
    levels, penalties = [], []
    for level in range(T.randint(1, 3)):
        if level:
            entries = int(entries * T.uniform(TLB_ENTRY_RATIO, 16))
            if entries > TLB_MAX_ENTRIES:
                break
        hi = 3000 if T.random() < 0.1 else 400
        penalties.append(round(_log_uniform(T, TLB_MIN_PENALTY, hi), 1))
        levels.append([entries, []])
    _tlb_sharing(S, levels, sm_count)
    out = []
    for level, ((n, extra), penalty) in enumerate(zip(levels, penalties)):
        keys = "".join(k + "\n" for k in extra)
        out.append(f"[tlb t{level + 1}]\nentries = {n}\npage = {page}\n"
                   f"miss_penalty = {penalty}\n{keys}")
    return "\n".join(out), global_gib


ICACHE_MIN = 1024             # docs/spec-format.md, [icache]: least size ...
ICACHE_LAST_MIN = 1 << 20     # ... the last level's least (the largest block)
ICACHE_MAX = 1 << 30          # ... and the most
ICACHE_MIN_LATENCY = 0.5
ICACHE_MIN_STEP = 0.5
ICACHE_MAX_LATENCY = 1000.0


def _icaches(Q):
    """[icache NAME] sections (issue 10 part 5), or "" for none."""
    if Q.random() >= 0.6:
        return ""
    n = Q.randint(1, 4)
    sizes = [int(_log_uniform(Q, ICACHE_MIN, 512 * KIB))]
    for _ in range(n - 1):
        sizes.append(int(sizes[-1] * _log_uniform(Q, 2, 64)))
    sizes = [min(x, ICACHE_MAX) for x in sizes]
    sizes[-1] = max(sizes[-1], ICACHE_LAST_MIN)
    # A middle level capped at the most could leave no room after it: keep
    # the levels that still rise by the least ratio.
    kept = [sizes[0]]
    for x in sizes[1:]:
        if x >= 2 * kept[-1]:
            kept.append(x)
    kept[-1] = max(kept[-1], ICACHE_LAST_MIN)
    out = []
    lat = round(Q.uniform(ICACHE_MIN_LATENCY, 4), 2)
    for i, size in enumerate(kept):
        if i:
            lat = round(min(ICACHE_MAX_LATENCY,
                            lat + _log_uniform(Q, ICACHE_MIN_STEP, 50)), 2)
            if lat - prev < ICACHE_MIN_STEP:  # the most reached: no room for this level
                break
        # rounded down: the format's bound is latency / 8 exactly
        noise = 0 if Q.random() < 0.25 else math.floor(Q.uniform(0, lat / 8) * 1000) / 1000
        out.append(f"[icache i{i}]\nsize = {size}\nlatency = {lat}\nnoise = {noise}\n")
        prev = lat
    if len(out) < len(kept):  # the last level must hold the largest block
        out[-1] = out[-1].replace(f"size = {kept[len(out) - 1]}",
                                  f"size = {max(kept[len(out) - 1], ICACHE_LAST_MIN)}")
    return "\n".join(out)


LINK_MIN_LATENCY = 50.0       # docs/spec-format.md, [link N]: least latency ...
LINK_MAX_LATENCY = 1e6        # ... and the most
LINK_MIN_BW = 0.5             # ... least bandwidth (GB/s) ...
LINK_MAX_BW = 2000.0          # ... and the most
LINK_MAX_PEER = 15


def _link(L, header, host):
    """One [host_link] or [link N] section."""
    out = [header]
    if L.random() < 0.5:
        out += ["type = pcie", f"gen = {L.randint(1, 6)}", f"width = {2 ** L.randint(0, 5)}"]
    else:
        out += ["type = nvlink", f"links = {L.randint(1, 18)}", f"version = {L.randint(1, 5)}"]
    if not host and L.random() < 0.5:
        out.append(f"peer_access = {L.choice(['yes', 'no'])}")
    if L.random() < 0.5:
        out.append(f"atomics = {L.choice(['yes', 'no'])}")
    if L.random() < 0.5:
        out.append(f"perf_rank = {L.randint(0, 16)}")
    lat = round(_log_uniform(L, LINK_MIN_LATENCY, LINK_MAX_LATENCY), 1)
    out.append(f"latency = {lat}")
    if L.random() >= 1 / 3:
        # rounded down: the format's bound is latency / 8 exactly
        out.append(f"noise = {math.floor(L.uniform(0, lat / 8) * 1000) / 1000}")
    for key in ("read", "write", "copy_in", "copy_out"):
        out.append(f"{key}_bandwidth = {round(_log_uniform(L, LINK_MIN_BW, LINK_MAX_BW), 3)}")
    return "\n".join(out) + "\n"


def _links(L):
    """[host_link] and [link N] sections (issue 11 part 2), or "" for none."""
    if L.random() >= 0.6:
        return ""
    out = []
    if L.random() < 0.7:
        out.append(_link(L, "[host_link]", True))
    for peer in sorted(L.sample(range(LINK_MAX_PEER + 1), L.randint(0, 3))):
        out.append(_link(L, f"[link {peer}]", False))
    return "\n".join(out)


def spec_whole(seed):
    R = random.Random(seed)
    outlier_rate = 0 if R.random() < 0.3 else round(R.uniform(0, 0.01), 5)
    sm_count = R.choice([1, 2, 8, 16, 40, 132])
    # The issue-8 keys come from their own RNG: R's stream, hence every
    # other draw of this seed, is the same as before they existed.
    X = random.Random(f"issue8 {seed}")
    carve = _carveouts(X)
    K = random.Random(f"issue8 setmap {seed}")
    tlb_text, tlb_gib = _tlbs(random.Random(f"issue9 tlb {seed}"),
                              random.Random(f"issue9 tlb huge page {seed}"),
                              random.Random(f"issue9 tlb sharing {seed}"), sm_count)
    out = [f"""# tools/spec_whole.py seed {seed}
[device]
name = whole {seed}
compute_capability = 8.0
sm_count = {sm_count}
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
    unified_any = False

    def l1(name, serves, latency, extra=""):
        # An L1-level cache, unified with shared memory about 30% of the time.
        nonlocal unified_any
        mine = carve if X.random() < 0.3 else None
        unified_any |= mine is not None
        return _cache(R, name, serves, 1 * KIB, 256 * KIB, latency, extra, X, mine, K)

    # L1 level: latencies, then the layout.
    l1lat = R.randint(20, 100)
    texlat = l1lat + R.randint(0, 60)
    sizes = []
    layout = R.choice(["unified", "separate", "nol1d", "l1d+ro"])
    if layout == "unified":
        text, size = l1("l1", "l1d tex ro", l1lat,
                            f"latency.tex = {texlat}\n" + _slices(R))
        parts = [text]; sizes.append(size); upper = texlat
    elif layout == "separate":
        a, sa = l1("l1", "l1d", l1lat)
        b, sb = l1("tex", "tex ro", texlat, _slices(R))
        parts = [a, b]; sizes += [sa, sb]; upper = texlat
    elif layout == "nol1d":
        b, sb = l1("tex", "tex ro", texlat, _slices(R))
        parts = [b]; sizes.append(sb); upper = texlat
    else:
        a, sa = l1("l1", "l1d ro", l1lat)
        b, sb = l1("tex", "tex", texlat, _slices(R))
        parts = [a, b]; sizes += [sa, sb]; upper = texlat
    out += parts
    # Constant caches.
    clat = R.randint(20, 60)
    c1, c1size = _cache(R, "const_l1", "const", 1 * KIB, 16 * KIB, clat,
                        "level = 1\n" + (f"slices = 4\nslice_map = warp_mod\n" if R.random() < 0.1 else ""), X)
    out.append(c1)
    upper = max(upper, clat)
    if R.random() < 0.75:
        l15lat = clat + R.randint(30, 100)
        c15, _ = _cache(R, "const_l15", "const", 4 * c1size, 256 * KIB, l15lat, "level = 1.5\n", X)
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
    # A hash needs a power of two of sets per partition: about 1 in 4 L2s
    # get theirs rounded up to one (within the parser's limits) and a hash.
    per_part, p_hash = sets // parts, 0.25
    if X.random() < 0.25:
        pow2 = max(2, 1 << (per_part - 1).bit_length())
        if pow2 * parts * line * ways * ways <= L2_SIZE_WAYS_MAX and pow2 * parts * line * ways <= L2_MAX:
            per_part, p_hash = pow2, 1.0
            sets = per_part * parts
    l2size = sets * line * ways
    l2 = (f"[cache l2]\nserves = all\nsize = {l2size}\nline = {line}\nsector = {sector}\n"
          f"fill = {fill}\nways = {ways}\n" + _index(R, X, per_part, p_hash=p_hash) + _policy(R, ways, X) +
          f"latency = {l2lat}\nnoise = {_noise(R, l2lat)}\n")
    if parts > 1:
        l2 += f"partitions = {parts}\nfar_latency = {far}\n" + _partition_map(X, parts, sm_count)
    out.append(l2)
    out[0] = out[0].replace("L2SIZE", str(_driver_l2(random.Random(f"issue8 driver l2 {seed}"), l2size)))
    if unified_any:
        default, carveouts = carve
        out[0] += (f"carveout_smem = {default // KIB} KiB\n"
                   f"carveouts_kib = {' '.join(str(c // KIB) for c in carveouts)}\n")
    dram = (far if parts > 1 else l2lat) + R.randint(100, 500)
    shared = R.randint(18, 40)
    out.append(f"[dram]\nlatency = {dram}\nnoise = {_noise(R, dram)}\n\n"
               f"[shared]\nlatency = {shared}\nnoise = {_noise(R, shared)}\n" + _banks(seed))
    out.append(_throughput(seed, out, sm_count))
    if tlb_gib:
        out[0] = out[0].replace("global_mem = 8 GiB", f"global_mem = {tlb_gib} GiB")
        out.append(tlb_text)
    cluster = _cluster(random.Random(f"issue10 cluster {seed}"))
    if cluster:
        out[0] = out[0].replace("compute_capability = 8.0", "compute_capability = 9.0")
        out.append(cluster)
    icache_text = _icaches(random.Random(f"issue10 icache {seed}"))
    if icache_text:
        out.append(icache_text)
    access_text = _access(random.Random(f"issue9 access {seed}"),
                          "bank_width = 8" not in _banks(seed))
    if access_text:
        access_text += _access_tags(random.Random(f"issue9 access tags {seed}"), access_text)
        out.append(access_text)
    links_text = _links(random.Random(f"issue11 links {seed}"))
    if links_text:
        out.append(links_text)
    return "\n".join(out)


ACCESS_MIN_CYCLES = 1.0       # docs/spec-format.md, [access]: a nonzero cost's least ...
ACCESS_MAX_CYCLES = 64.0      # ... and the most


def _access(A, four_byte_banks):
    """An [access] section (issue 9 part 4) or "" (about 30% of the time)."""
    if A.random() < 0.3:
        return ""
    lines = ["[access]"]
    for path in ("ca", "cg"):
        for unit in ("sector", "line"):
            if A.random() < 0.25:
                continue
            cost = 0 if A.random() < 1 / 3 else round(_log_uniform(A, ACCESS_MIN_CYCLES,
                                                                   ACCESS_MAX_CYCLES), 2)
            lines.append(f"{path}_{unit}_cycles = {max(ACCESS_MIN_CYCLES, cost) if cost else 0}")
        passes = A.choice(["", "lines", "banks"])
        if passes == "banks" and not four_byte_banks:
            passes = "lines"
        if passes:
            lines.append(f"{path}_passes = {passes}")
    return "\n".join(lines) + "\n"


ACCESS_MAX_GROUP = 8           # docs/spec-format.md, [access]: tag_group's most


def _access_tags(T, section):
    """The tag-group and partial-warp keys of a drawn [access] section:
    per path, partial_cycles left out half the time, else 0 a third of the
    time and log-uniform over 1..64; tag_group any power of two up to 8;
    tag_cycles (0 or 1..64) only where the format allows it (bank passes,
    a line cost above 0, no sector cost)."""
    keys = dict(line.split(" = ") for line in section.splitlines()[1:])
    lines = []
    for path in ("ca", "cg"):
        if T.random() < 0.5:
            cost = 0 if T.random() < 1 / 3 else _log_uniform(T, ACCESS_MIN_CYCLES,
                                                             ACCESS_MAX_CYCLES)
            lines.append(f"{path}_partial_cycles = {max(ACCESS_MIN_CYCLES, round(cost, 2)) if cost else 0}")
        group = 2 ** T.randint(0, int(math.log2(ACCESS_MAX_GROUP)))
        if T.random() < 0.5:
            lines.append(f"{path}_tag_group = {group}")
        # cg's line cost follows ca's, ca's the [shared] conflict cost (>= 1).
        line_cost = float(keys.get(f"{path}_line_cycles",
                                   keys.get("ca_line_cycles", "1") if path == "cg" else "1"))
        allowed = (keys.get(f"{path}_passes") == "banks" and line_cost > 0 and
                   float(keys.get(f"{path}_sector_cycles", "0")) == 0)
        if allowed and T.random() < 0.6:
            cost = 0 if T.random() < 1 / 4 else _log_uniform(T, ACCESS_MIN_CYCLES,
                                                             ACCESS_MAX_CYCLES)
            lines.append(f"{path}_tag_cycles = {max(ACCESS_MIN_CYCLES, round(cost, 2)) if cost else 0}")
    return "\n".join(lines) + "\n" if lines else ""


def _cluster(C):
    """A [cluster] section (issue 10 parts 3-4) or "" (half the time)."""
    if C.random() < 0.5:
        return ""
    size = C.randint(2, 16)
    lines = ["[cluster]", f"max_size = {size}"]
    if C.random() < 0.5:
        lines.append(f"portable_size = {C.randint(2, min(8, size))}")
    remote = round(_log_uniform(C, 1, 1e6), 2)
    lines.append(f"remote_latency = {remote}")
    if C.random() < 2 / 3:
        lines.append(f"remote_noise = {round(C.uniform(0, remote / 8) * 0.999, 3)}")
    lines.append(f"link_bw = {round(_log_uniform(C, 1, 4096), 3)}")
    for name in ("tma", "copy"):
        lines.append(f"{name}_latency = {round(_log_uniform(C, 1, 4096), 2)}")
        lines.append(f"{name}_bw = {round(_log_uniform(C, 1, 512), 3)}")
    return "\n".join(lines) + "\n"


BW_SM = (1.0, 4096.0)     # docs/spec-format.md, [throughput]: per-SM figures
BW_GPU_MAX = 1e6          # ... and GPU-wide ones (at least 1 B/clk per SM)
MSHR = (1, 65536)


def _throughput(seed, sections, sm_count):
    """A [throughput] section for the caches drawn (or none)."""
    T = random.Random(f"issue10 {seed}")
    if T.random() < 0.3:
        return ""

    def sm_fig():
        return round(_log_uniform(T, *BW_SM), 2)

    def gpu_fig():
        return round(_log_uniform(T, sm_count * BW_SM[0], BW_GPU_MAX), 2)

    lines = ["[throughput]"]
    for text in sections:
        if not text.startswith("[cache "):
            continue
        name = text.split("]")[0][len("[cache "):]
        serves = [l.split("=", 1)[1].split() for l in text.splitlines() if l.startswith("serves")][0]
        if serves == ["const"]:
            continue                      # constant data is not streamed
        lines.append(f"{name}.read = {sm_fig()}")
        if T.random() < 0.5:
            lines.append(f"{name}.write = {sm_fig()}")
        if serves == ["all"]:
            lines.append(f"{name}.read_gpu = {gpu_fig()}")
            if T.random() < 0.5:
                lines.append(f"{name}.write_gpu = {gpu_fig()}")
    lines.append(f"shared.read = {sm_fig()}")
    if T.random() < 0.5:
        lines.append(f"shared.write = {sm_fig()}")
    lines.append(f"dram.read_gpu = {gpu_fig()}")
    if T.random() < 0.5:
        lines.append(f"dram.write_gpu = {gpu_fig()}")
    lines.append(f"mshr = {int(round(_log_uniform(T, *MSHR)))}")
    return "\n".join(lines) + "\n"
