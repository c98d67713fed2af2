#!/usr/bin/env python3
"""analyze.py: reads andweorc profiles for bench/real/validate.sh.

  analyze.py truncate PROFILE.json SECONDS OUT.json
      keeps the experiments that ended within SECONDS of experiment time
      (cumulative experiment durations, in run order: the time the
      experiments had, start-up excluded)
  analyze.py experiment-time PROFILE.json
      prints the cumulative experiment time in seconds
  analyze.py top REPORT.json [N]
      prints the top N (default 3) lines of the first throughput point of
      `andweorc report --format json` output, one per line:
      FILE:LINE<TAB>FUNCTION<TAB>IMPACT [LOW, HIGH]<TAB>VERDICT<TAB>GRANULARITY
  analyze.py significant REPORT.json
      prints how many lines are significant (first throughput point)
  analyze.py significant-set REPORT.json
      prints the significant lines' FILE:LINE (as `top` names them), one
      per line, sorted
  analyze.py region FOLDED PROFILE.json FUNCTION
      prints the samples whose stack has a frame whose name contains FUNCTION
      (inclusive; FUNCTION may be a prefix shared by a function and the
      copies it was inlined into) per visit
      of the first throughput point (FOLDED: `andweorc report --format folded`)
  analyze.py impact REPORT.json FUNCTION
      prints "IMPACT LOW HIGH WHERE GRANULARITY" of the entry whose function
      name contains FUNCTION: a function-granularity entry first, then the
      best-ranked line (first throughput point)
  analyze.py field PROFILE.json PATH
      prints a field, e.g. run.duration_s
  analyze.py top-within-places REPORT1.json REPORT2.json [N]
      whether each run's top N regions can stand in the other's top N:
      every one of them is ranked by impact in the other run with a place
      that reaches N or higher (the report's `places`,
      docs/causal-analysis.md). Prints "yes", or "no" and the regions
      that the other run places below N"""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def first_point(report):
    points = report.get("analysis", {}).get("points", [])
    for p in points:
        if p.get("kind") == "throughput":
            return p
    return points[0] if points else {"lines": [], "experiments": 0}


def short(path):
    parts = path.split("/")
    return "/".join(parts[-2:]) if len(parts) > 1 else path


def fmt(x):
    return "null" if x is None else f"{x:.3f}"


def main():
    cmd = sys.argv[1]
    if cmd == "truncate":
        prof = load(sys.argv[2])
        limit, kept, t = float(sys.argv[3]), [], 0.0
        for e in prof.get("experiments", []):
            t += e.get("duration_s", 0.0)
            if t > limit:
                break
            kept.append(e)
        prof["experiments"] = kept
        with open(sys.argv[4], "w") as f:
            json.dump(prof, f)
    elif cmd == "experiment-time":
        prof = load(sys.argv[2])
        print(f"{sum(e.get('duration_s', 0.0) for e in prof.get('experiments', [])):.1f}")
    elif cmd == "top":
        n = int(sys.argv[3]) if len(sys.argv) > 3 else 3
        lines = sorted(first_point(load(sys.argv[2])).get("lines", []),
                       key=lambda m: m.get("rank", 1 << 30))
        for m in lines[:n]:
            print(f"{short(m['file'])}:{m['line']}\t{m.get('function', '')[:40]}\t"
                  f"{fmt(m.get('impact'))} [{fmt(m.get('ci_low'))}, {fmt(m.get('ci_high'))}]"
                  f" n={m.get('experiments')}\t{m.get('verdict')}\t{m.get('granularity', 'line')}")
    elif cmd == "significant":
        p = first_point(load(sys.argv[2]))
        print(sum(1 for m in p.get("lines", []) if m.get("significant")))
    elif cmd == "significant-set":
        p = first_point(load(sys.argv[2]))
        for name in sorted(f"{short(m['file'])}:{m['line']}"
                           for m in p.get("lines", []) if m.get("significant")):
            print(name)
    elif cmd == "region":
        func, inside = sys.argv[4], 0
        with open(sys.argv[2]) as f:
            for row in f:
                stack, _, count = row.rstrip("\n").rpartition(" ")
                if any(func in frame for frame in stack.split(";")):
                    inside += int(count)
        points = [p for p in load(sys.argv[3]).get("points", []) if p.get("kind") == "throughput"]
        visits = points[0]["visits"] if points else 0
        print(f"{inside / visits:.6f}" if visits else "nan")
    elif cmd == "impact":
        lines = sorted((m for m in first_point(load(sys.argv[2])).get("lines", [])
                        if sys.argv[3] in m.get("function", "") and m.get("impact") is not None),
                       key=lambda m: (m.get("granularity") != "function", m.get("rank", 1 << 30)))
        if not lines:
            sys.exit(f"no impact for {sys.argv[3]}")
        m = lines[0]
        print(m["impact"], m["ci_low"], m["ci_high"], f"{short(m['file'])}:{m['line']}", m.get("granularity"))
    elif cmd == "top-within-places":
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 3
        runs = [sorted(first_point(load(path)).get("lines", []),
                       key=lambda m: m.get("rank", 1 << 30)) for path in sys.argv[2:4]]

        def key(m):
            return f"{short(m['file'])}:{m['line']} ({m.get('granularity', 'line')})"
        misses = []
        for mine, other, name in ((runs[0], runs[1], "run 2"), (runs[1], runs[0], "run 1")):
            places = {key(m): m.get("places") for m in other}
            for m in mine[:n]:
                p = places.get(key(m))
                if not p:
                    misses.append(f"{key(m)}: not ranked in {name}")
                elif p["low"] > n:
                    misses.append(f"{key(m)}: place {p['low']}-{p['high']} of {p['of']} in {name}")
        print("yes" if not misses else "no (" + "; ".join(misses) + ")")
    elif cmd == "field":
        v = load(sys.argv[2])
        for k in sys.argv[3].split("."):
            v = v[int(k)] if isinstance(v, list) else v[k]
        print(v)
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
