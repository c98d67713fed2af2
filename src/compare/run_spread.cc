// run_spread.cc: per-run spread of line impacts (run_spread.h).
#include "compare/run_spread.h"

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "experiments/ranking.h"
#include "statistics/statistics.h"

namespace andweorc::compare {
namespace {

using Key =
    std::tuple<std::string, int, std::string, int, std::string, std::string>;

Key key_of(const experiments::LineImpact& m) {
  return {m.point,      static_cast<int>(m.kind), m.file, m.line, m.function,
          m.granularity};
}

}  // namespace

void widen_by_run_spread(std::vector<experiments::LineImpact>* merged,
                         const std::vector<const profile::Profile*>& runs,
                         const experiments::AnalysisOptions& options) {
  if (runs.size() < 2) return;
  std::map<Key, std::vector<double>> slopes;
  for (const profile::Profile* run : runs) {
    experiments::Analysis a = experiments::analyze(*run, options);
    for (const experiments::LineImpact& m : a.impacts) {
      if (m.fitted && m.dof >= 1 && std::isfinite(m.slope))
        slopes[key_of(m)].push_back(m.slope);
    }
  }
  for (experiments::LineImpact& m : *merged) {
    auto it = slopes.find(key_of(m));
    if (!m.fitted || it == slopes.end() || it->second.size() < 2) continue;
    const std::vector<double>& s = it->second;
    double n = static_cast<double>(s.size());
    double mean = 0;
    for (double v : s) mean += v / n;
    double ss = 0;
    for (double v : s) ss += (v - mean) * (v - mean);
    double var = ss / (n - 1) / n;
    if (!(var > m.slope_se * m.slope_se)) continue;
    m.slope_se = std::sqrt(var);
    m.dof = static_cast<int>(n) - 1;
    double t = experiments::student_t_quantile(0.5 + m.level / 2, m.dof);
    m.ci_low = m.slope - t * m.slope_se;
    m.ci_high = m.slope + t * m.slope_se;
    // A bottleneck only if the runs agree: the widened interval must still
    // exclude 0.
    if (m.significant && m.ci_low <= 0 && m.ci_high >= 0) {
      m.significant = false;
      m.verdict = experiments::Verdict::kNotSignificant;
      m.verdict_text = std::string(experiments::verdict_text(m.verdict)) +
                       " (its runs disagree)";
    }
  }
}

}  // namespace andweorc::compare
