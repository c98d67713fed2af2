// duration.cc: see duration.h.
#include "cli/duration.h"

#include <charconv>

namespace andweorc::cli {

std::optional<uint64_t> parse_duration_ns(std::string_view text) {
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || value < 0) return std::nullopt;
  std::string_view unit(end, size_t(text.data() + text.size() - end));
  double scale;
  if (unit.empty() || unit == "ns")
    scale = 1;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "s")
    scale = 1e9;
  else if (unit == "m")
    scale = 60e9;
  else if (unit == "h")
    scale = 3600e9;
  else
    return std::nullopt;
  double ns = value * scale;
  if (ns > 1e18) return std::nullopt;
  return uint64_t(ns + 0.5);
}

bool period_multiple(const std::string& text, uint64_t base_ns,
                     uint32_t* multiple, std::string* error) {
  constexpr uint64_t kMax = 64;
  auto ms = [](uint64_t ns) {
    std::string t = std::to_string(double(ns) / 1e6);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t + "ms";
  };
  const std::string allowed = "the run's sample period (" + ms(base_ns) +
                              ") times 1 to " + std::to_string(kMax) + ": " +
                              ms(base_ns) + ", " + ms(2 * base_ns) + ", " +
                              ms(4 * base_ns) + " ... " + ms(kMax * base_ns);
  auto ns = parse_duration_ns(text);
  if (!ns || base_ns == 0) {
    *error = "period: '" + text + "' is not a duration (e.g. " +
             ms(4 * base_ns) + "); it can be " + allowed;
    return false;
  }
  if (*ns % base_ns != 0 || *ns / base_ns < 1 || *ns / base_ns > kMax) {
    *error = "period: " + text + " is not " + allowed +
             " (every sample then stands for a whole number of the run's "
             "periods)";
    return false;
  }
  *multiple = uint32_t(*ns / base_ns);
  return true;
}

}  // namespace andweorc::cli
