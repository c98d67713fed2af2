// ranking.cc: verdicts and the ranking rule of ranking.h.
#include "experiments/ranking.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "planner/fdr.h"
#include "statistics/statistics.h"

namespace andweorc::experiments {

std::string ranking_rule(int k) {
  return fmt::format(
      "Lines are ranked by impact: first the significant ones (at least {} "
      "experiments with a speed-up, and the impact differs from 0 at a 5% "
      "false-discovery rate: Benjamini-Hochberg q-value <= 0.05 among the "
      "point's tested lines, and the interval is within what the inserted "
      "delays can produce), largest impact first; then those that are not "
      "significant; then those without enough data; then implausible ones "
      "(the whole interval beyond that delay bound). A place (e.g. 2-9 of "
      "19) is where a line's impact can stand among the ranked ones: the "
      "lines significantly above and below it bound it.",
      k);
}

std::string_view verdict_text(Verdict v) {
  switch (v) {
    case Verdict::kSignificant:
      return "significant";
    case Verdict::kNotSignificant:
      return "not significant";
    case Verdict::kNotEnoughData:
      return "not enough data: run longer";
    case Verdict::kImplausible:
      return "implausible: beyond what the inserted delays can cause, not "
             "ranked";
    case Verdict::kNoSamples:
      return "no samples in scope: the line never ran while sped up";
    case Verdict::kNeverReached:
      return "progress point never reached";
  }
  return "";
}

void classify(LineImpact* m, int k, bool reached, bool sampled) {
  if (!reached) {
    m->verdict = Verdict::kNeverReached;
  } else if (m->speedup_experiments > 0 && !sampled) {
    m->verdict = Verdict::kNoSamples;
  } else if (!m->fitted || m->speedup_experiments < k) {
    m->verdict = Verdict::kNotEnoughData;
  } else if (m->ci_low > 0 || m->ci_high < 0) {
    m->verdict = Verdict::kSignificant;
  } else {
    m->verdict = Verdict::kNotSignificant;
  }
  m->significant = m->verdict == Verdict::kSignificant;
  m->verdict_text = std::string(verdict_text(m->verdict));
}

void control_fdr(std::vector<LineImpact>* impacts) {
  std::vector<LineImpact*> tested;
  std::vector<double> p;
  for (LineImpact& m : *impacts) {
    m.p_value = 1;
    m.q_value = 1;
    m.fcr_level = 0;
    if (m.verdict != Verdict::kSignificant &&
        m.verdict != Verdict::kNotSignificant)
      continue;
    m.p_value = planner::two_sided_p(m.slope, m.slope_se, m.dof);
    tested.push_back(&m);
    p.push_back(m.p_value);
  }
  std::vector<double> q = planner::bh_q_values(p);
  int selected = 0;
  for (size_t i = 0; i < tested.size(); ++i) {
    LineImpact& m = *tested[i];
    m.q_value = q[i];
    // The raw interval must exclude 0 too: with a degenerate fit (se = 0,
    // p = 0) the two could disagree, and a line whose own interval covers 0
    // is never called significant.
    // An implausible line keeps its p-value in the family (it was tested,
    // so m stays honest) but is never kept.
    bool keep = m.verdict == Verdict::kSignificant && q[i] <= 1 - m.level &&
                !m.implausible;
    m.verdict = keep            ? Verdict::kSignificant
                : m.implausible ? Verdict::kImplausible
                                : Verdict::kNotSignificant;
    m.significant = keep;
    m.verdict_text = std::string(verdict_text(m.verdict));
    selected += keep;
  }
  int m_tested = static_cast<int>(tested.size());
  for (LineImpact* m : tested) {
    if (!m->significant) continue;
    m->fcr_level = planner::fcr_level(selected, m_tested, 1 - m->level);
    double t =
        m->dof > 0 ? student_t_quantile(0.5 + m->fcr_level / 2, m->dof) : 0;
    m->fcr_low = m->slope - t * m->slope_se;
    m->fcr_high = m->slope + t * m->slope_se;
  }
}

bool ranks_before(const LineImpact& a, const LineImpact& b) {
  if (a.verdict != b.verdict) return a.verdict < b.verdict;
  if (ranked_by_impact(a)) {
    if (a.slope != b.slope) return a.slope > b.slope;
  } else {
    // Closest to having enough data first.
    if (a.speedup_experiments != b.speedup_experiments) {
      return a.speedup_experiments > b.speedup_experiments;
    }
    if (a.experiments != b.experiments) return a.experiments > b.experiments;
  }
  return std::tie(a.file, a.line, a.function, a.granularity) <
         std::tie(b.file, b.line, b.function, b.granularity);
}

bool ranked_by_impact(const LineImpact& m) {
  return m.verdict == Verdict::kSignificant ||
         m.verdict == Verdict::kNotSignificant;
}

namespace {

// Pairwise, each comparison at the line's level: the places say which
// orders the data cannot tell apart, not a joint statement over all lines
// (that would need a multiplicity correction and be wider still).
//
// n^2 comparisons, and a Student-t quantile costs ~5 us here: 500 lines
// would take over a second. Welch's degrees of freedom lie between the smaller
// of the two lines' and their sum, so the quantile lies between the normal one
// and the one at the smaller line's: a difference outside that band is decided
// by it (each line's quantile computed once), and only the few inside it get
// the exact test.
void set_places(std::vector<LineImpact>* impacts) {
  struct Ranked {
    LineImpact* m;
    Estimated e;
    double t;  // the quantile at the line's own degrees of freedom
  };
  std::vector<Ranked> ranked;
  for (LineImpact& m : *impacts) {
    if (!ranked_by_impact(m)) continue;
    const double q = 0.5 + m.level / 2;
    const double t = m.dof >= 1 ? student_t_quantile(q, m.dof) : HUGE_VAL;
    ranked.push_back({&m, {m.slope, m.slope_se, double(m.dof)}, t});
  }
  const int n = static_cast<int>(ranked.size());
  for (Ranked& r : ranked) {
    const double level = r.m->level;
    const double z = normal_quantile(0.5 + level / 2);
    // Whether a's impact is significantly larger than b's: exactly
    // significantly_greater(a.e, b.e, level).
    auto greater = [&](const Ranked& a, const Ranked& b) {
      const double d = a.e.value - b.e.value;
      const double se = std::hypot(a.e.se, b.e.se);
      if (!(se > 0) || !(d > z * se)) return false;
      if (d > std::max(a.t, b.t) * se) return a.e.dof >= 1 && b.e.dof >= 1;
      return significantly_greater(a.e, b.e, level);
    };
    int above = 0, below = 0;
    for (const Ranked& o : ranked) {
      if (o.m == r.m) continue;
      above += greater(o, r);
      below += greater(r, o);
    }
    r.m->places = n;
    r.m->place_low = 1 + above;
    r.m->place_high = n - below;
  }
}

}  // namespace

void rank_impacts(std::vector<LineImpact>* impacts) {
  std::stable_sort(impacts->begin(), impacts->end(), ranks_before);
  int rank = 0;
  for (LineImpact& m : *impacts) m.rank = ++rank;
  set_places(impacts);
}

}  // namespace andweorc::experiments
