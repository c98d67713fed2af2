#!/usr/bin/env python3
# carry_over.py: does an experiment leave something behind for the next one?
# From saved profiles (docs/causal-analysis.md, "Paired blocks"): each 0%
# experiment's period against the mean of the other 0% experiments within 4
# places of it in its process, grouped by what ran just before it (a sped-up
# experiment or another 0% one). A difference between the two groups is
# carry-over: what a sped-up half leaves behind (a queue, a backlog) moving
# the experiment after it, which any fixed order of a block's halves turns
# into a bias of the estimates.
#
#   python3 bench/real/carry_over.py PROFILE.json ...
#
# Profiles whose blocks ran in random order (ANDWEORC_BLOCK_ORDER=random)
# have both groups in equal measure; mirrored pairs (P1) too. The period is
# profile_periods.py's; prints per profile name and over all: count, mean
# log-ratio in percent and its standard error.
import collections
import json
import math
import os
import sys

from profile_periods import period

WINDOW = 4


def ratios(profile):
    """(after a sped-up experiment?, log of the period over its neighbours')."""
    streams = collections.defaultdict(list)
    for e in profile.get("experiments", []):
        streams[e.get("pid", 0)].append((e["speedup_pct"], period(e)))
    for seq in streams.values():
        for i, (s, v) in enumerate(seq):
            if s != 0 or v is None or i == 0:
                continue
            near = [w for j, (t, w) in enumerate(seq[max(0, i - WINDOW):i + WINDOW + 1],
                                                 start=max(0, i - WINDOW))
                    if j != i and t == 0 and w]
            if len(near) >= 2:
                yield seq[i - 1][0] != 0, math.log(v / (sum(near) / len(near)))


def summary(xs):
    if len(xs) < 2:
        return f"n={len(xs):5d}"
    m = sum(xs) / len(xs)
    se = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
    return f"n={len(xs):5d} {100 * m:+6.2f}% ±{100 * se:.2f}"


def main(paths):
    groups = collections.defaultdict(lambda: ([], []))
    for path in paths:
        try:
            with open(path) as f:
                profile = json.load(f)
        except (OSError, ValueError) as err:
            print(f"{path}: skipped ({err})", file=sys.stderr)
            continue
        name = os.path.basename(path)
        for after_sped_up, r in ratios(profile):
            for key in (name, "all"):
                groups[key][0 if after_sped_up else 1].append(r)
    if not groups:
        print("no usable 0% experiments", file=sys.stderr)
        return 1
    print(f"{'profile':28s} {'0% after s%':24s} {'0% after 0%':24s}")
    for key in sorted(groups, key=lambda k: (k == "all", k)):
        after_s, after_0 = groups[key]
        print(f"{key:28s} {summary(after_s):24s} {summary(after_0):24s}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
