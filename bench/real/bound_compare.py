#!/usr/bin/env python3
# bound_compare.py: the plausibility rule in CPU terms against the wall-terms
# rule it replaces, on the same profiles (docs/causal-analysis.md,
# "Plausibility"). Each profile is reported as it is (experiments with
# cpu_s: the CPU rule) and with cpu_s removed (the wall rule, [-N u, 2u]);
# prints per point the significant regions under each and every region
# whose verdict differs, with both bounds.
#   python3 bench/real/bound_compare.py build/bin/andweorc DIR/*.json
import json
import os
import subprocess
import sys
import tempfile

tool = sys.argv[1]


def analysis(path):
    out = subprocess.run(["nice", "-n", "19", tool, "report", path, "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[:200])
    return json.loads(out.stdout)["analysis"]


def key(l):
    return (l["file_display"], l["line"], l["function"], l["granularity"])


def fmt(l):
    b = "no bound" if l.get("plausible_high") is None else \
        f"bound [{l['plausible_low']:.3f}, {l['plausible_high']:.3f}] ({l.get('plausible_basis')})"
    return (f"{os.path.basename(l['file_display'])}:{l['line']} {l['function'][:36]} "
            f"{l['granularity'][:4]} {l['impact']:.3f} [{l['ci_low']:.3f}, {l['ci_high']:.3f}] "
            f"{l['verdict']} {b}")


totals = {"cpu_sig": 0, "wall_sig": 0, "cpu_impl": 0, "wall_impl": 0, "changed": 0}
for prof in sys.argv[2:]:
    with open(prof) as f:
        doc = json.load(f)
    known = sum(1 for e in doc.get("experiments", []) if "cpu_s" in e)
    for e in doc.get("experiments", []):
        e.pop("cpu_s", None)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
        json.dump(doc, t)
    try:
        cpu, wall = analysis(prof), analysis(t.name)
    finally:
        os.unlink(t.name)
    print(f"== {prof}: {known} of {len(doc.get('experiments', []))} experiments with cpu_s")
    for pc, pw in zip(cpu["points"], wall["points"]):
        wl = {key(l): l for l in pw["lines"]}
        sig_c = [l for l in pc["lines"] if l["verdict"] == "significant"]
        sig_w = [l for l in pw["lines"] if l["verdict"] == "significant"]
        imp_c = sum(l["verdict"] == "implausible" for l in pc["lines"])
        imp_w = sum(l["verdict"] == "implausible" for l in pw["lines"])
        totals["cpu_sig"] += len(sig_c); totals["wall_sig"] += len(sig_w)
        totals["cpu_impl"] += imp_c; totals["wall_impl"] += imp_w
        print(f"  [{pc['name']}] significant cpu {len(sig_c)} / wall {len(sig_w)}; "
              f"implausible cpu {imp_c} / wall {imp_w}")
        for l in sig_c[:3]:
            w = wl.get(key(l))
            wb = "" if w is None or w.get("plausible_high") is None else \
                f"; wall bound [{w['plausible_low']:.3f}, {w['plausible_high']:.3f}]"
            print("    sig(cpu)  " + fmt(l) + wb)
        for l in pc["lines"]:
            w = wl.get(key(l))
            if l["verdict"] == "implausible" and w is not None and w["verdict"] == "implausible":
                print("    impl(both) " + fmt(l) + f"; wall bound [{w['plausible_low']:.3f}, {w['plausible_high']:.3f}]")
            if w is not None and w["verdict"] != l["verdict"]:
                totals["changed"] += 1
                print("    cpu:  " + fmt(l))
                print("    wall: " + fmt(w))
print("totals:", totals)
