// ranking.cc: verdicts and the ranking rule of ranking.h.
#include "experiments/ranking.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace andweorc::experiments {

std::string ranking_rule(int k) {
  return fmt::format(
      "Lines are ranked by impact: first the significant ones (95% interval "
      "excludes 0, at least {} experiments with a speed-up), largest impact "
      "first; then those that are not significant; then those without enough "
      "data.",
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

bool ranks_before(const LineImpact& a, const LineImpact& b) {
  if (a.verdict != b.verdict) return a.verdict < b.verdict;
  if (a.verdict == Verdict::kSignificant ||
      a.verdict == Verdict::kNotSignificant) {
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

void rank_impacts(std::vector<LineImpact>* impacts) {
  std::stable_sort(impacts->begin(), impacts->end(), ranks_before);
  int rank = 0;
  for (LineImpact& m : *impacts) m.rank = ++rank;
}

}  // namespace andweorc::experiments
