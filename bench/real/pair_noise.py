#!/usr/bin/env python3
"""pair_noise.py PROFILE.json...: the noise that mirrored pairs measure.

A mirrored pair (0%, s%, s%, 0% on one region: planner rule P1) measures one
slope twice, so the squared difference of its two blocks' program speed-ups,
(y1 - y2)^2, is a sample of twice a block's variance whatever the region's
impact (planner rule P12, src/planner/length_search.h). Prints, per
experiment length, the pairs found, the standard deviation of a block's y
that they imply, and mean(sample) x length, the noise per second of
experiments that P12 compares (lower is better). The first point of each
experiment is used.
"""
import collections
import json
import math
import sys


def block_speedup(base, fast):
    def period(e):
        p = e["points"][0]
        virtual = e["duration_s"] - e["delay_s"]
        return virtual / p["visits"] if p["visits"] > 0 and virtual > 0 else None
    v0, vs = period(base), period(fast)
    if v0 is None or vs is None:
        return None
    return max((v0 - vs) / v0, -1.0)  # kMinBlockSpeedup


def region(e):
    return (e.get("file"), e.get("line"), e.get("function"), e.get("granularity"))


def main():
    for path in sys.argv[1:]:
        ex = json.load(open(path)).get("experiments", [])
        by_length = collections.defaultdict(list)
        i = 0
        while i + 3 < len(ex):
            a, b, c, d = ex[i:i + 4]
            if (region(a) == region(b) == region(c) == region(d) and a["speedup_pct"] == 0
                    and d["speedup_pct"] == 0 and b["speedup_pct"] == c["speedup_pct"] > 0
                    and a["points"] and d["points"] and b["points"] and c["points"]):
                y1, y2 = block_speedup(a, b), block_speedup(d, c)
                if y1 is not None and y2 is not None:
                    by_length[round(a["duration_s"] * 20) / 20].append((y1 - y2) ** 2)
                i += 4
            else:
                i += 1
        print(path)
        for length in sorted(by_length):
            v = by_length[length]
            m = sum(v) / len(v)
            print(f"  {length * 1000:5.0f} ms: {len(v):4d} pairs, sd of y {math.sqrt(m / 2):.3f},"
                  f" noise per second {m * length:.5f}")


if __name__ == "__main__":
    main()
