#!/usr/bin/env bash
# CLI behaviour: help, version, and every class of bad input gives one line
# on stderr, the documented exit code, no crash and no output file.
source "$(dirname "$0")/lib.sh"

run_mt --help;            check "--help exits 0" rc_is 0; check "--help shows usage" out_has "Usage: memtopo"
check "--help documents exit codes" out_has "Exit codes"
run_mt --version;         check "--version exits 0" rc_is 0; check "--version prints a version" out_has "memtopo [0-9]"
run_mt --list-presets;    check "--list-presets lists h100" out_has "^h100$"; check "lists kepler" out_has "^kepler$"

run_mt --bogus;           check "unknown option -> 2" rc_is 2; check "unknown option: one line" one_line_err
check "unknown option is named" err_has "--bogus"
run_mt --sim;             check "missing argument -> 2" rc_is 2; check "missing argument: one line" one_line_err
run_mt --sim h100 extra;  check "stray argument -> 2" rc_is 2; check "stray argument named" err_has "extra"
run_mt --only l1d,warp9 --sim h100; check "bad --only -> 2" rc_is 2; check "bad probe named" err_has "warp9"
run_mt --seed 3;          check "--seed without --sim -> 2" rc_is 2; check "--seed: one line" one_line_err
run_mt --seed x --sim h100; check "bad seed -> 2" rc_is 2
run_mt --sim h100 --replay "$tmp"; check "--sim with --replay -> 2" rc_is 2
run_mt --device z;        check "bad device -> 2" rc_is 2

run_mt --sim nosuchpreset --json "$tmp/a.json"
check "unknown preset -> 2" rc_is 2; check "unknown preset: one line" one_line_err
check "unknown preset lists presets" err_has "h100"; check "no JSON after bad preset" no_file "$tmp/a.json"

printf '[device]\nname = x\nsms = 4\nbogus_key = 1\n' >"$tmp/bad.spec"
run_mt --sim "$tmp/bad.spec" --json "$tmp/b.json"
check "malformed spec -> 2" rc_is 2; check "malformed spec: one line" one_line_err
check "malformed spec names file:line" err_has "bad.spec:3: unknown key 'sms'"; check "no JSON after bad spec" no_file "$tmp/b.json"
sed 's/^sm_count = .*/sm_count = four/' "$root/presets/h100.spec" >"$tmp/bad2.spec"
line=$(grep -n '^sm_count' "$tmp/bad2.spec" | cut -d: -f1)
run_mt --sim "$tmp/bad2.spec"
check "bad number in spec -> 2" rc_is 2; check "bad number: one line" one_line_err
check "bad number names its line" err_has "bad2.spec:$line: sm_count"

run_mt --replay "$tmp/nothing-here" --json "$tmp/c.json"
check "missing replay dir -> 2" rc_is 2; check "missing replay: one line" one_line_err
check "no JSON after missing replay" no_file "$tmp/c.json"

# Without a GPU (this sanitized build has no CUDA backend) the message says to use --sim.
run_mt --json "$tmp/d.json"
check "no GPU -> 3" rc_is 3; check "no GPU: one line" one_line_err; check "no GPU suggests --sim" err_has "--sim"
check "no JSON without GPU" no_file "$tmp/d.json"

# An unwritable JSON path is found before measuring: exit 2 (bad option),
# and no partial file.  (Write errors after measuring are exit 5:
# tests/sh/test_safe_outputs.sh.)
run_mt --sim h100 --only shared --quiet --json /nonexistent-dir/x.json
check "unwritable --json -> 2" rc_is 2; check "unwritable --json message" err_has "nonexistent-dir"
# --carveout (the opt-in carveout probe): KiB the device lists, a percent it
# rounds up, or all; anything else is exit 2 with one line naming the choices.
cs="$root/tests/specs-carveout/hopper-lru.spec"
for v in 100 100KiB 40%; do
  run_mt --sim "$cs" --only l1d --quiet --carveout "$v"
  check "--carveout $v -> 0" rc_is 0
  check "--carveout $v sizes the L1 at 100 KiB (40% of 228 rounds up to it)" grep -q "size at carveout 100KiB  *156 KiB" "$tmp/out"
  check "--carveout $v: no fit for one carveout" sh -c "! grep -q 'carveout byte (fit)' '$tmp/out'"
done
run_mt --sim "$cs" --only l1d --quiet --carveout all --csv -
check "--carveout all -> 0" rc_is 0
check "--carveout all: ten carveouts in the CSV" [ "$(grep -c 'size_at_carveout_' "$tmp/out")" = 10 ]
check "--carveout all: the slope in the CSV" grep -q 'carveout_slope' "$tmp/out"
for v in 50 12KiB 101% abc 010 "" -5 1.5 100kib %; do
  run_mt --sim "$cs" --only l1d --quiet --carveout "$v" --json "$tmp/cv.json"
  check "--carveout '$v' -> 2" rc_is 2; check "--carveout '$v': one line" one_line_err
  check "--carveout '$v': no JSON" no_file "$tmp/cv.json"
done
run_mt --sim "$cs" --carveout 50
check "unsupported carveout lists the device's" err_has "supports 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KiB"
run_mt --sim kepler --carveout all --json "$tmp/cv.json"
check "--carveout on a device without carveouts -> 2" rc_is 2
check "--carveout without carveouts: says so" err_has "lists no shared-memory carveouts"
run_mt --sim h100 --only l1d --quiet --carveout all --csv -
check "h100 preset: a sweep over its eight carveouts" [ "$(grep -c 'size_at_carveout_' "$tmp/out")" = 8 ]
run_mt --help
check "--help documents --carveout" grep -q -- "--carveout VALUE" "$tmp/out"
finish
