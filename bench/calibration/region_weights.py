#!/usr/bin/env python3
# region_weights.py: an offline what-if for `--fail-on region-slowdown`: how
# the machine factor's weighting (src/compare/region_cost.h, step 2) changes
# false alarms and power on stored pools (collect.sh / ab_calibration.sh
# layout), without running anything. It re-implements the rule in Python
# (region rule alone, not the whole gate: evaluate.sh judges the gate).
#
#   bench/calibration/region_weights.py [--pairs N] [--k 2,3,4]
#       [--modes steady,cost,equal,none] [--shift F] POOL_DIR/PROGRAM ...
#
# Modes (weight of region g's vote on the weighted median of ratios):
#   steady  1 / max(variance of log(c_r(g) / BASE mean) between the runs of
#           each side, Poisson 1/samples): the rule andweorc uses
#   cost    BASE's mean cost of g (the rule before 2026-11-24 evening)
#   equal   1 (a plain median)
#   none    no normalization (factor 1)
# --shift F: NEW's runs of the A/A pairs get every cost x F, as if NEW had
# run on a machine F times as slow (the pools interleave A and B runs, so
# they never show such an offset between the sides; CI runs may).
# Pairs are drawn as in evaluate.sh (K distinct runs a side, fixed seed), so
# the rates are estimates over the pool, not independent trials.
import argparse
import glob
import json
import math
import os
import random
import re
import statistics as st

MIN_SHARE = 0.01  # a region needs 1% of BASE's cost to vote


def load(path):
    """Per-visit CPU cost per function (first in-scope frame) and line."""
    j = json.load(open(path))
    fr = j["frames"]
    name = j["points"][0]["name"]
    visits = sum(p["ends"] if p["kind"] == "latency" else p["visits"]
                 for p in j["points"] if p["name"] == name)
    per = j["run"]["sample_period_ns"] * 1e-9 / visits
    fn, ln, total = {}, {}, 0
    for s in j["stacks"]:
        n = s["samples"]
        total += n
        f0 = next((fr[i] for i in s["frames"] if fr[i]["in_scope"]), None)
        k = ("", "") if f0 is None else (f0["function"], f0["file"])
        fn[k] = fn.get(k, 0) + n * per
        if f0 is not None:
            lk = (f0["function"], f0["file"], f0["line"])
            ln[lk] = ln.get(lk, 0) + n * per
    return {"per": per, "total": total * per, "fn": fn, "ln": ln}


def t_sf(t, df):
    """P(T > t) for Student's t with df degrees of freedom."""
    x = df / (df + t * t)
    # regularized incomplete beta I_x(df/2, 1/2) by continued fraction
    a, b = df / 2, 0.5

    def cf(a, b, x):
        c, d = 1.0, 1 - (a + b) * x / (a + 1)
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        h = d
        for m in range(1, 200):
            for aa in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                       -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
                d = 1 + aa * d
                d = 1 / (d if abs(d) > 1e-300 else 1e-300)
                c = 1 + aa / c
                c = c if abs(c) > 1e-300 else 1e-300
                h *= d * c
            if abs(d * c - 1) < 3e-14:
                break
        return h

    if x <= 0:
        p2 = 0.0
    elif x >= 1:
        p2 = 1.0
    else:
        bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                      a * math.log(x) + b * math.log(1 - x))
        p2 = bt * cf(a, b, x) / a if x < (a + 1) / (a + b + 2) else 1 - bt * cf(b, a, 1 - x) / b
    return p2 / 2 if t > 0 else 1 - p2 / 2


def welch_greater(a, b):
    va, vb = st.variance(a) / len(a), st.variance(b) / len(b)
    d, se = st.mean(b) - st.mean(a), math.sqrt(va + vb)
    if not se > 0:
        return d, (0.0 if d > 0 else 1.0)
    den = va * va / (len(a) - 1) + vb * vb / (len(b) - 1)
    dof = max((va + vb) ** 2 / den if den > 0 else 1, 1)
    return d, t_sf(d / se, dof)


def bh(p):
    m, q, prev = len(p), [0] * len(p), 1
    for r, i in reversed(list(enumerate(sorted(range(m), key=lambda i: p[i]), 1))):
        prev = min(prev, p[i] * m / r)
        q[i] = prev
    return q


def weights(base, new, mean, total, mode):
    w = {}
    for k, m in mean.items():
        if not m > 0 or m < MIN_SHARE * total:
            continue
        if mode == "cost":
            w[k] = m
        elif mode == "equal":
            w[k] = 1
        else:  # steady
            ss, dof, pois = 0, 0, 0
            for side in (base, new):
                xs = [math.log(max(r["fn"].get(k, 0), r["per"] / 2) / m) for r in side]
                pois += sum(r["per"] / max(r["fn"].get(k, 0), r["per"] / 2) for r in side)
                ss += sum((x - st.mean(xs)) ** 2 for x in xs)
                dof += len(xs) - 1
            w[k] = 1 / max(ss / dof, pois / (len(base) + len(new)))
    return w


def factor(run, mean, w, total, leave=None):
    rw = sorted((run["fn"].get(k, 0) / mean[k], v) for k, v in w.items() if k != leave)
    if not rw:
        return run["total"] / total
    half, acc = sum(v for _, v in rw) / 2, 0
    for ratio, v in rw:
        acc += v
        if acc >= half:
            return ratio if ratio > 0 else 1
    return 1


def judge(base, new, mode, pct=5.0, alpha=0.05):
    """Regions found slower: (function, file, implied %, named line)."""
    keys = set().union(*(r["fn"] for r in base + new))
    mean = {k: sum(r["fn"].get(k, 0) for r in base) / len(base) for k in keys}
    total = sum(r["total"] for r in base) / len(base)
    w = {} if mode == "none" else weights(base, new, mean, total, mode)
    f = lambda r, leave=None: 1.0 if mode == "none" else factor(r, mean, w, total, leave)
    runs = base + new
    pooled = {k: sum(r["fn"].get(k, 0) / f(r) for r in runs) / len(runs) for k in keys}
    tested = []
    for k in sorted(keys):
        if pooled[k] < pct / 200 * total:
            continue
        fa, fb = [f(r, k) for r in base], [f(r, k) for r in new]
        a = [r["fn"].get(k, 0) / x for r, x in zip(base, fa)]
        b = [r["fn"].get(k, 0) / x for r, x in zip(new, fb)]
        d, p = welch_greater(a, b)
        tested.append((k, 100 * d / total, p, fa, fb))
    hits = []
    for (k, imp, p, fa, fb), q in zip(tested, bh([t[2] for t in tested])):
        if q < alpha and imp >= pct:
            rise = {}
            for side, fs, sign in ((base, fa, -1), (new, fb, 1)):
                for r, x in zip(side, fs):
                    for lk, v in r["ln"].items():
                        if lk[:2] == k:
                            rise[lk] = rise.get(lk, 0) + sign * v / x / len(side)
            top = max(rise, key=rise.get) if rise else None
            hits.append((k, imp, top if top and rise[top] > 0 else None))
    return hits


def scaled(run, f):
    """The run as if on a machine f times as slow: every cost x f."""
    if f == 1:
        return run
    return {"per": run["per"] * f, "total": run["total"] * f,
            "fn": {k: v * f for k, v in run["fn"].items()},
            "ln": {k: v * f for k, v in run["ln"].items()}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pools", nargs="+")
    ap.add_argument("--pairs", type=int, default=24)
    ap.add_argument("--k", default="2,3,4")
    ap.add_argument("--modes", default="steady,cost")
    ap.add_argument("--shift", type=float, default=1.0)
    o = ap.parse_args()
    for d in o.pools:
        meta = open(os.path.join(d, "meta")).read().splitlines()
        A = [load(f) for f in sorted(glob.glob(os.path.join(d, "A", "*.json")))]
        regs = []
        for line in meta:
            if line.startswith("regression "):
                _, name, _, bre = line.split()
                rx = re.compile("(.*/)?" + bre.replace("\\(", "(").replace("\\|", "|").replace("\\)", ")") + "$")
                regs.append((name, rx, [load(f) for f in sorted(glob.glob(os.path.join(d, name, "*.json")))]))
        for k in (int(x) for x in o.k.split(",")):
            for mode in o.modes.split(","):
                rng = random.Random(1000 * k)
                fa = 0
                for _ in range(o.pairs):
                    idx = rng.sample(range(len(A)), 2 * k)
                    new = [scaled(A[i], o.shift) for i in idx[k:]]
                    fa += bool(judge([A[i] for i in idx[:k]], new, mode))
                cells = [f"A/A {fa}/{o.pairs}"]
                for name, rx, B in regs:
                    det = named = 0
                    for _ in range(o.pairs):
                        h = judge([A[i] for i in rng.sample(range(len(A)), k)],
                                  [B[i] for i in rng.sample(range(len(B)), k)], mode)
                        det += bool(h)
                        named += any(t and rx.match(f"{t[1]}:{t[2]}") for _, _, t in h)
                    cells.append(f"{name} {det}/{named}/{o.pairs} (detected/named)")
                print(f"{d}  K={k}  {mode:6s}  " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
