// probe_spec.cc: parsing of --progress values and the runtime handoff text.
#include "probes/probe_spec.h"

#include <fmt/format.h>

namespace andweorc::probes {

std::optional<ProbeSpec> parse_probe_spec(const std::string& text,
                                          std::string* error) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    *error = fmt::format(
        "--progress wants NAME=FUNCTION or NAME=FILE:LINE (e.g. "
        "requests=handle_request or rows=parse.cc:120), got '{}'",
        text);
    return std::nullopt;
  }
  if (text.find_first_of("\t\n\r") != std::string::npos) {
    *error =
        fmt::format("--progress '{}': tabs and newlines are not allowed", text);
    return std::nullopt;
  }
  ProbeSpec spec;
  spec.name = text.substr(0, eq);
  spec.target = text.substr(eq + 1);
  size_t colon = spec.target.rfind(':');
  if (colon != std::string::npos && colon + 1 < spec.target.size() &&
      spec.target.find_first_not_of("0123456789", colon + 1) ==
          std::string::npos) {
    // "ns::f" has a ':' too, but never digits after the last one.
    long line = std::strtol(spec.target.c_str() + colon + 1, nullptr, 10);
    if (colon == 0 || line <= 0 || line > 100000000) {
      *error = fmt::format(
          "--progress {}: FILE:LINE needs a file and a line number >= 1, "
          "got '{}'",
          spec.name, spec.target);
      return std::nullopt;
    }
    spec.is_line = true;
    spec.file = spec.target.substr(0, colon);
    spec.line = int(line);
  } else {
    spec.function = spec.target;
  }
  return spec;
}

std::string encode_probes(const std::vector<ResolvedProbe>& probes,
                          bool with_patches) {
  std::string out;
  for (const auto& p : probes)
    for (const auto& s : p.sites) {
      out += fmt::format("{}\t{}\t{}\t{:x}\t{:x}", p.name, p.kind, s.path,
                         s.offset, s.vaddr);
      if (with_patches && !s.patch.empty()) out += "\t" + s.patch;
      out += '\n';
    }
  return out;
}

}  // namespace andweorc::probes
