// results.cc: andweorc::Results (runner.h).
#include <fmt/format.h>

#include <filesystem>
#include <ostream>

#include "api/results_data.h"
#include "experiments/analysis.h"
#include "profile/profile_json.h"

namespace andweorc {
namespace api {

void fill_impacts(Results::Data* data) {
  experiments::Analysis analysis = experiments::analyze(data->profile);
  for (const experiments::LineImpact& li : analysis.impacts) {
    if (li.point != data->point) continue;
    Impact i;
    i.file = li.file;
    i.line = li.line;
    i.function = li.function;
    i.fitted = li.fitted;
    i.slope = li.slope;
    i.ci_low = li.ci_low;
    i.ci_high = li.ci_high;
    i.r2 = li.r2;
    i.experiments = li.experiments;
    i.significant = li.significant;
    i.verdict = li.verdict_text;
    i.rank = li.rank;
    i.granularity = li.granularity;
    data->impacts.push_back(std::move(i));
  }
  if (data->impacts.empty() && data->error.empty())
    data->error = "no experiment measured progress point '" + data->point +
                  "': run longer (round_duration, repetitions)";
}

}  // namespace api

namespace {

// Paths under the working directory are shown relative to it.
std::string relative(const std::string& path) {
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string() + "/";
  if (!ec && path.rfind(cwd, 0) == 0) return path.substr(cwd.size());
  return path;
}

const Results::Data& empty_data() {
  static const Results::Data kEmpty{"", "no run yet", {}, {}, 0};
  return kEmpty;
}

}  // namespace

Results::Results() = default;

bool Results::ok() const { return data_ && data_->error.empty(); }

const std::string& Results::error() const {
  return (data_ ? *data_ : empty_data()).error;
}

const std::string& Results::point() const {
  return (data_ ? *data_ : empty_data()).point;
}

const std::vector<Impact>& Results::impacts() const {
  return (data_ ? *data_ : empty_data()).impacts;
}

std::vector<Impact> Results::significant_impacts() const {
  std::vector<Impact> out;
  for (const Impact& i : impacts())
    if (i.significant) out.push_back(i);
  return out;
}

int Results::experiments() const {
  return data_ ? int(data_->profile.experiments.size()) : 0;
}

double Results::seconds() const { return data_ ? data_->seconds : 0; }

Results Results::for_point(const std::string& point) const {
  auto data = std::make_shared<Data>();
  data->point = point;
  if (data_) {
    data->profile = data_->profile;
    data->seconds = data_->seconds;
  }
  if (data_ && data_->profile.experiments.empty() && !data_->error.empty())
    data->error = data_->error;  // nothing ran: the same reason holds
  else
    api::fill_impacts(data.get());
  Results r;
  r.data_ = data;
  return r;
}

bool Results::write(const std::string& path, std::string* error) const {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  if (!data_ || data_->profile.run.command.empty()) {
    *error = "nothing to write: " + this->error();
    return false;
  }
  return profile::write_profile(data_->profile, path, error);
}

void Results::print(std::ostream& out, size_t top) const {
  const Data& d = data_ ? *data_ : empty_data();
  if (!d.error.empty()) {
    out << "andweorc: " << d.error << "\n";
    if (d.impacts.empty()) return;
  }
  out << fmt::format(
      "andweorc: causal impact on '{}' ({} experiments, {:.1f} s):\n", d.point,
      d.profile.experiments.size(), d.seconds);
  size_t shown = 0;
  for (const Impact& i : d.impacts) {
    if (shown++ == top) break;
    out << fmt::format("  {:2}. {}:{}  {}\n", i.rank, relative(i.file), i.line,
                       i.function);
    if (i.fitted)
      out << fmt::format(
          "      impact {:+.2f} (95% CI {:+.2f} to {:+.2f}), R² {:.2f}, {} "
          "experiments: {}\n",
          i.slope, i.ci_low, i.ci_high, i.r2, i.experiments, i.verdict);
    else
      out << fmt::format("      {} experiments: {}\n", i.experiments,
                         i.verdict);
  }
}

}  // namespace andweorc
