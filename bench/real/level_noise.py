#!/usr/bin/env python3
# level_noise.py: how noisy a paired block's program speed-up is at each
# speed-up level, from saved profiles (docs/causal-analysis.md, P2). A
# block's slope is y / s, so if the standard deviation of y does not grow
# with s, larger levels carry more information per block (s^2 / var(y)).
#
#   python3 bench/real/level_noise.py RESULTS/*/*/run[12].json
#
# Pairs are consecutive experiments of one region, one at 0% and one at s%
# (as the planner runs its blocks); y = 1 - P_fast / P_base with P =
# (duration - delay) / visits of the first throughput point
# (profile_periods.py). Regions with at
# least 3 blocks at each of LEVELS count; prints each region's standard
# deviations and the geometric means over all of them.
import collections
import json
import math
import statistics
import sys

from profile_periods import period

LEVELS = (25, 50, 75)


def region(e):
    if e["granularity"] == "function":
        return ("function", e["function"])
    return ("line", f'{e["file"]}:{e["line"]}')


log_var = collections.defaultdict(list)
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            experiments = json.load(f)["experiments"]
    except (OSError, ValueError, KeyError) as err:
        print(f"{path}: skipped ({err})", file=sys.stderr)
        continue
    ys = collections.defaultdict(lambda: collections.defaultdict(list))
    i = 0
    while i + 1 < len(experiments):
        a, b = experiments[i], experiments[i + 1]
        if region(a) == region(b) and (a["speedup_pct"] == 0) != (b["speedup_pct"] == 0):
            base, fast = (a, b) if a["speedup_pct"] == 0 else (b, a)
            pb, pf = period(base), period(fast)
            if pb and pf:
                ys[region(a)][fast["speedup_pct"]].append(1 - pf / pb)
            i += 2
        else:
            i += 1
    for r, by_level in ys.items():
        if not all(len(by_level.get(s, [])) >= 3 for s in LEVELS):
            continue
        var = {s: statistics.variance(by_level[s]) for s in LEVELS}
        if not all(v > 0 for v in var.values()):
            continue
        sds = "  ".join(f"sd{s} {math.sqrt(var[s]):.3f}" for s in LEVELS)
        print(f"{path[-40:]:40} {r[1][-30:]:30} {sds}")
        for s in LEVELS:
            log_var[s].append(math.log(var[s]))

if log_var:
    n = len(log_var[LEVELS[0]])
    means = ", ".join(
        f"{s}%: {math.exp(statistics.mean(log_var[s]) / 2):.3f}" for s in LEVELS)
    print(f"geometric mean sd of y over {n} regions: {means}")
else:
    print("no region with 3 blocks at each level")
