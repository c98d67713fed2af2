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
  else
    return std::nullopt;
  double ns = value * scale;
  if (ns > 1e18) return std::nullopt;
  return uint64_t(ns + 0.5);
}

}  // namespace andweorc::cli
