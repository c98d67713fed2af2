#!/usr/bin/env python3
# verdicts.py: per profile, the significant and the implausible regions under a
# given andweorc build (report --format json), e.g. to show what an analysis
# change does to saved real-program runs:
#   python3 bench/real/verdicts.py build/bin/andweorc RESULTS/*/*/run[12].json
import json
import subprocess
import sys

tool = sys.argv[1]
for prof in sys.argv[2:]:
    out = subprocess.run(["nice", "-n", "19", tool, "report", prof, "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        print(prof, "report failed", out.stderr[:200]); continue
    a = json.loads(out.stdout)["analysis"]
    for pt in a["points"]:
        lines = pt["lines"]
        sig = [l for l in lines if l["verdict"] == "significant"]
        imp = [l for l in lines if l["verdict"] == "implausible"]
        name = prof.replace("/var/tmp/andweorc-real/results/", "")
        print(f"== {name} [{pt['name']}] tested={sum(1 for l in lines if l['verdict'] in ('significant','not_significant','implausible'))} significant={len(sig)} implausible={len(imp)}")
        for l in sig[:3]:
            q = l.get('q_value'); b = (l.get('plausible_low'), l.get('plausible_high'))
            print(f"   sig  {l['file_display']}:{l['line']} {l['function'][:40]} {l['granularity']} {l['impact']:.3f} [{l['ci_low']:.3f}, {l['ci_high']:.3f}] q={q} bound {b}")
        for l in imp:
            print(f"   impl {l['file_display']}:{l['line']} {l['function'][:40]} {l['granularity']} {l['impact']:.3f} [{l['ci_low']:.3f}, {l['ci_high']:.3f}] q={l['q_value']:.3g} bound [{l['plausible_low']:.3g}, {l['plausible_high']:.3g}] n={l['speedup_experiments']}")
