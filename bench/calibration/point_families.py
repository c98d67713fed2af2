#!/usr/bin/env python3
# point_families.py: a what-if for the gate (not a rule it applies).
# Usage: python3 bench/calibration/point_families.py ANDWEORC POOL_DIR
# (POOL_DIR holds A/ and B30/, e.g. OUT/zstd of bench/real/ab_calibration.sh).
# For resampled K-run pairs, the diff's point-level tests (wall slowdown and CPU slowdown):
# p-values, and how many pairs fail under (a) the current rule (BH over every test of the diff)
# and (b) the point tests as their own family (BH over the point's tests only, at 0.05).
import glob
import json
import random
import subprocess
import sys

tool, d = sys.argv[1], sys.argv[2]
A = sorted(glob.glob(d + "/A/*.json")); B = sorted(glob.glob(d + "/B30/*.json"))
def diff(base, new):
    out = subprocess.run(["nice", "-n", "19", tool, "diff", *base, "--", *new, "--format", "json"], capture_output=True, text=True)
    j = json.loads(out.stdout)
    pt = j["points"][0]
    tests = []
    for k in ("speed_change", "cpu_change"):
        c = pt.get(k)
        if c: tests.append((k, c["p"], c["q"], c["slower_pct"]))
    return tests, j["tests"]
def bh(ps):
    m = len(ps); order = sorted(range(m), key=lambda i: ps[i]); q = [0]*m; prev = 1
    for r in range(m, 0, -1):
        i = order[r-1]; prev = min(prev, ps[i]*m/r); q[i] = prev
    return q
for K in (2, 3, 4):
    for kind in ("A/A", "A/B"):
        rng = random.Random(1000 * K + (kind == "A/B"))
        cur = alt = 0; n = 24; cpu_p = []
        for i in range(n):
            if kind == "A/A":
                s = rng.sample(A, 2 * K); base, new = s[:K], s[K:]
            else:
                base, new = rng.sample(A, K), rng.sample(B, K)
            tests, m = diff(base, new)
            cur += any(q < 0.05 and sp >= 5 for _, p, q, sp in tests)
            qs = bh([p for _, p, _, _ in tests])
            alt += any(q < 0.05 and t[3] >= 5 for q, t in zip(qs, tests))
            cpu_p += [round(p, 3) for k, p, _, _ in tests if k == "cpu_change"]
        print(f"K={K} {kind}: slowdown rules fire, current (BH over all {m}-ish tests) {cur}/{n}; point tests as own family {alt}/{n}; cpu p median {sorted(cpu_p)[len(cpu_p)//2] if cpu_p else None}")
