// probe_spec.cc: parsing of --progress values and the runtime handoff text.
#include "probes/probe_spec.h"

#include <fmt/format.h>

#include <fstream>

namespace andweorc::probes {
namespace {

// libfoo.so, libfoo.so.1.2, /opt/lib/libfoo.so: a shared library's name.
bool names_library(const std::string& s) {
  std::string base =
      s.substr(s.rfind('/') == std::string::npos ? 0 : s.rfind('/') + 1);
  return base.size() > 3 && (base.compare(base.size() - 3, 3, ".so") == 0 ||
                             base.find(".so.") != std::string::npos);
}

// ./objs/nginx, /usr/sbin/prog: a path (it holds a '/') to an ELF file,
// such as a program the profiled one starts. A source file (src/a.cc) is
// not ELF, so FILE:LINE targets keep parsing as before.
bool names_elf_file(const std::string& s) {
  if (s.find('/') == std::string::npos) return false;
  std::ifstream f(s, std::ios::binary);
  char magic[4] = {};
  return f.read(magic, sizeof magic) && magic[0] == 0x7f && magic[1] == 'E' &&
         magic[2] == 'L' && magic[3] == 'F';
}

}  // namespace

size_t single_colon(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ':') continue;
    if (i + 1 < s.size() && s[i + 1] == ':') {
      ++i;  // skip the pair
      continue;
    }
    return i;
  }
  return std::string::npos;
}

bool split_library(const std::string& target, std::string* lib,
                   std::string* rest) {
  size_t colon = single_colon(target);
  if (colon == std::string::npos) return false;
  const std::string prefix = target.substr(0, colon);
  if (!names_library(prefix) && !names_elf_file(prefix)) return false;
  *lib = target.substr(0, colon);
  *rest = target.substr(colon + 1);
  return true;
}

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
  std::string rest = spec.target;  // without the LIB: prefix
  if (split_library(spec.target, &spec.object, &rest)) {
    if (rest.empty()) {
      *error = fmt::format(
          "--progress {}: '{}' names an object but nothing in it "
          "(LIB:FUNCTION or LIB:FILE:LINE)",
          spec.name, spec.target);
      return std::nullopt;
    }
  }
  size_t colon = rest.rfind(':');
  if (colon != std::string::npos && colon + 1 < rest.size() &&
      rest.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    // "ns::f" has a ':' too, but never digits after the last one.
    long line = std::strtol(rest.c_str() + colon + 1, nullptr, 10);
    if (colon == 0 || line <= 0 || line > 100000000) {
      *error = fmt::format(
          "--progress {}: FILE:LINE needs a file and a line number >= 1, "
          "got '{}'",
          spec.name, spec.target);
      return std::nullopt;
    }
    spec.is_line = true;
    spec.file = rest.substr(0, colon);
    spec.line = int(line);
  } else {
    spec.function = rest;
  }
  return spec;
}

std::string encode_probes(const std::vector<ResolvedProbe>& probes,
                          bool with_patches) {
  std::string out;
  // Each probe's lines follow a marker naming the program it was resolved
  // for: the profiled program's first, then each program it starts.
  std::vector<const ResolvedProbe*> order;
  for (const auto& p : probes)
    if (!p.started_program) order.push_back(&p);
  for (const auto& p : probes)
    if (p.started_program) order.push_back(&p);
  std::string marked;
  for (const ResolvedProbe* pp : order) {
    const ResolvedProbe& p = *pp;
    if (!p.program.empty() && p.program != marked) {
      out += fmt::format("@program\t0\t{}\t0\t0\n", p.program);
      marked = p.program;
    }
    for (const auto& s : p.sites) {
      out += fmt::format("{}\t{}\t{}\t{:x}\t{:x}", p.name, p.kind, s.path,
                         s.offset, s.vaddr);
      if (with_patches && !s.patch.empty()) out += "\t" + s.patch;
      out += '\n';
    }
  }
  return out;
}

}  // namespace andweorc::probes
