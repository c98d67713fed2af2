// derived_warnings.cc: warnings that follow from the profile's numbers.
#include "profile/derived_warnings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "profile/attribution.h"

namespace andweorc::profile {

std::vector<std::string> derived_warnings(const Profile& p) {
  std::vector<std::string> out;
  Attribution a = attribute(p);
  if (a.total > 0 && a.mapped_share() < kLowMappedShare) {
    out.push_back(fmt::format(
        "only {}% of samples mapped to a source line: build with -g",
        static_cast<int>(std::floor(a.mapped_share() * 100))));
  }
  return out;
}

std::vector<std::string> all_warnings(const Profile& p) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& w) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  };
  for (const auto& w : p.warnings) add(w);
  for (const auto& w : derived_warnings(p)) add(w);
  return out;
}

}  // namespace andweorc::profile
