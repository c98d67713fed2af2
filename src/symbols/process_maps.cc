// process_maps.cc: parses /proc/<pid>/maps text into sorted Mappings.
#include <algorithm>
#include <charconv>

#include "symbols/symbolizer.h"

namespace andweorc::symbols {
namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

bool parse_hex(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Splits off the next space-separated field, skipping leading spaces.
std::string_view next_field(std::string_view* rest) {
  size_t b = rest->find_first_not_of(' ');
  if (b == std::string_view::npos) {
    *rest = {};
    return {};
  }
  rest->remove_prefix(b);
  size_t e = rest->find(' ');
  std::string_view field = rest->substr(0, e);
  rest->remove_prefix(e == std::string_view::npos ? rest->size() : e);
  return field;
}

// One line: "start-end perms offset dev inode   path". The path is
// everything after the inode (it may contain spaces), minus leading padding.
bool parse_line(std::string_view line, Mapping* m) {
  std::string_view rest = line;
  std::string_view range = next_field(&rest);
  std::string_view perms = next_field(&rest);
  std::string_view offset = next_field(&rest);
  std::string_view dev = next_field(&rest);
  std::string_view inode = next_field(&rest);
  if (inode.empty() || perms.size() < 3 || dev.empty()) return false;
  size_t dash = range.find('-');
  if (dash == std::string_view::npos) return false;
  if (!parse_hex(range.substr(0, dash), &m->start) ||
      !parse_hex(range.substr(dash + 1), &m->end) ||
      !parse_hex(offset, &m->offset) || m->end <= m->start) {
    return false;
  }
  m->executable = perms[2] == 'x';
  size_t p = rest.find_first_not_of(' ');
  std::string_view path =
      p == std::string_view::npos ? std::string_view() : rest.substr(p);
  if (path.ends_with(kDeletedSuffix)) {
    m->deleted = true;
    path.remove_suffix(kDeletedSuffix.size());
  }
  m->path = std::string(path);
  return true;
}

}  // namespace

ProcessMaps ProcessMaps::parse(std::string_view text) {
  ProcessMaps maps;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    Mapping m;
    // Malformed lines are skipped: a truncated recording must still be usable.
    if (parse_line(line, &m)) maps.mappings_.push_back(std::move(m));
  }
  std::stable_sort(
      maps.mappings_.begin(), maps.mappings_.end(),
      [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  return maps;
}

const Mapping* ProcessMaps::find(uint64_t address) const {
  // Last mapping starting at or below the address; end is exclusive.
  auto it = std::upper_bound(
      mappings_.begin(), mappings_.end(), address,
      [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == mappings_.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

}  // namespace andweorc::symbols
