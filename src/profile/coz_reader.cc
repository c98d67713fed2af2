// coz_reader.cc: see coz_reader.h.
#include "profile/coz_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace andweorc::profile {
namespace {

// A malformed record; `message` follows "NAME: line N: ".
struct Invalid {
  std::string message;
};

// One record: its type and its key=value fields, in order.
struct Record {
  std::string type;
  std::vector<std::pair<std::string, std::string>> fields;

  const std::string* find(std::string_view key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  const std::string& need(std::string_view key) const {
    const std::string* v = find(key);
    if (!v) {
      throw Invalid{fmt::format("{} record without '{}'", type, key)};
    }
    return *v;
  }
};

std::string shorten(std::string_view s) {
  std::string out(s.substr(0, std::min<size_t>(s.size(), 40)));
  if (s.size() > 40) out += "...";
  return out;
}

uint64_t to_u64(const Record& r, std::string_view key) {
  const std::string& v = r.need(key);
  uint64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size()) {
    throw Invalid{fmt::format("'{}' must be a non-negative integer, not '{}'",
                              key, shorten(v))};
  }
  return out;
}

std::optional<Record> record_from_json(std::string_view line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw Invalid{"not a JSON object"};
  }
  Record r;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string value;
    if (it->is_string()) {
      value = it->get<std::string>();
    } else if (it->is_number_unsigned() || it->is_number_integer()) {
      value = it->dump();
    } else if (it->is_number_float()) {
      value = fmt::format("{}", it->get<double>());
    } else {
      throw Invalid{fmt::format("field '{}' must be a string or a number",
                                shorten(it.key()))};
    }
    if (it.key() == "type") {
      r.type = value;
    } else {
      r.fields.emplace_back(it.key(), std::move(value));
    }
  }
  if (r.type.empty()) throw Invalid{"JSON record without 'type'"};
  return r;
}

Record record_from_tabs(std::string_view line) {
  Record r;
  size_t tab = line.find('\t');
  r.type = std::string(line.substr(0, tab));
  while (tab != std::string_view::npos) {
    size_t start = tab + 1;
    tab = line.find('\t', start);
    std::string_view field = line.substr(
        start, tab == std::string_view::npos ? line.npos : tab - start);
    if (field.empty()) continue;
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) {
      throw Invalid{fmt::format("field '{}' is not key=value", shorten(field))};
    }
    r.fields.emplace_back(std::string(field.substr(0, eq)),
                          std::string(field.substr(eq + 1)));
  }
  return r;
}

// "path/to/file.c:12" -> ("path/to/file.c", 12); the file may contain ':'.
std::pair<std::string, int> location(const Record& r, std::string_view key) {
  const std::string& v = r.need(key);
  size_t colon = v.rfind(':');
  int line = 0;
  if (colon == std::string::npos || colon == 0) {
    throw Invalid{
        fmt::format("'{}' must be FILE:LINE, not '{}'", key, shorten(v))};
  }
  auto [end, ec] =
      std::from_chars(v.data() + colon + 1, v.data() + v.size(), line);
  if (ec != std::errc() || end != v.data() + v.size() || line < 0) {
    throw Invalid{
        fmt::format("'{}' must be FILE:LINE, not '{}'", key, shorten(v))};
  }
  return {v.substr(0, colon), line};
}

std::string iso_time(uint64_t ns) {
  time_t t = static_cast<time_t>(ns / 1000000000ull);
  std::tm tm{};
  if (ns == 0 || !gmtime_r(&t, &tm)) return "";
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec);
}

// Builds the Profile record by record.
class Importer {
 public:
  void add(const Record& r) {
    if (r.type == "startup") {
      if (!saw_startup_) start_time_ = iso_time(to_u64(r, "time"));
      saw_startup_ = true;
    } else if (r.type == "shutdown") {
      // Coz's total sample count; the samples records carry the detail.
    } else if (r.type == "runtime") {
      p_.run.duration_s += static_cast<double>(to_u64(r, "time")) / 1e9;
    } else if (r.type == "experiment") {
      add_experiment(r);
    } else if (r.type == "throughput-point" || r.type == "progress-point") {
      PointDelta d;
      d.name = r.need("name");
      d.kind = PointKind::kThroughput;
      d.visits = to_u64(r, "delta");
      current(r).points.push_back(std::move(d));
    } else if (r.type == "latency-point") {
      PointDelta d;
      d.name = r.need("name");
      d.kind = PointKind::kLatency;
      d.arrivals = to_u64(r, "arrivals");
      d.departures = to_u64(r, "departures");
      uint64_t in_flight = to_u64(r, "difference");
      if (in_flight > static_cast<uint64_t>(INT64_MAX)) {
        throw Invalid{"'difference' is out of range"};
      }
      d.in_flight_start = d.in_flight_end = static_cast<int64_t>(in_flight);
      current(r).points.push_back(std::move(d));
    } else if (r.type == "samples") {
      auto [file, line] = location(r, "location");
      uint64_t add = to_u64(r, "count");
      if (total_samples_ + add < total_samples_) {
        throw Invalid{"sample counts overflow"};
      }
      total_samples_ += add;
      samples_[{file, line}] += add;
    } else {
      throw Invalid{fmt::format("unknown record type '{}'", shorten(r.type))};
    }
    ++records_;
  }

  size_t records() const { return records_; }

  Profile finish() {
    p_.run.start_time = start_time_;
    p_.run.sampler = "coz";
    p_.run.tool_version = "coz";
    p_.settings.enabled = !p_.experiments.empty();
    p_.scope.source = {"*"};
    for (const auto& [where, count] : samples_) {
      p_.frames.push_back(
          Frame{"", where.first, where.second, "", false, where.second > 0});
      p_.stacks.push_back(
          Stack{{static_cast<uint32_t>(p_.frames.size() - 1)}, count});
      p_.samples += count;
    }
    // Coz keeps no totals per point; the experiments' deltas are the best
    // there is.
    std::map<std::pair<std::string, PointKind>, ProgressPoint> totals;
    for (const Experiment& e : p_.experiments) {
      for (const PointDelta& d : e.points) {
        ProgressPoint& t = totals[{d.name, d.kind}];
        t.name = d.name;
        t.kind = d.kind;
        t.visits += d.visits;
        t.begins += d.arrivals;
        t.ends += d.departures;
      }
    }
    for (auto& [key, point] : totals) p_.points.push_back(std::move(point));
    p_.warnings.push_back(
        "imported from Coz's profile.coz: it records no call stacks, "
        "function names or processes, so the sampling profile is by line "
        "only");
    return std::move(p_);
  }

 private:
  Experiment& current(const Record& r) {
    if (p_.experiments.empty()) {
      throw Invalid{fmt::format("{} record before any experiment", r.type)};
    }
    return p_.experiments.back();
  }

  void add_experiment(const Record& r) {
    Experiment e;
    std::tie(e.file, e.line) = location(r, "selected");
    const std::string& s = r.need("speedup");
    double speedup = -1;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), speedup);
    if (ec != std::errc() || end != s.data() + s.size() ||
        !std::isfinite(speedup) || speedup < 0 || speedup > 1) {
      throw Invalid{
          fmt::format("'speedup' must be a number 0..1, not '{}'", shorten(s))};
    }
    e.speedup_pct = static_cast<int>(std::lround(speedup * 100));
    e.duration_s = static_cast<double>(to_u64(r, "duration")) / 1e9;
    if (r.find("selected-samples")) {
      e.selected_samples = to_u64(r, "selected-samples");
    }
    p_.experiments.push_back(std::move(e));
  }

  Profile p_;
  std::string start_time_;
  bool saw_startup_ = false;
  size_t records_ = 0;
  uint64_t total_samples_ = 0;  // p_.samples sums to it: checked for overflow
  std::map<std::pair<std::string, int>, uint64_t> samples_;
};

ReadResult parse_unguarded(std::string_view text, std::string_view name) {
  Importer importer;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const bool last_unterminated = nl == std::string_view::npos;
    std::string_view line =
        text.substr(pos, last_unterminated ? text.npos : nl - pos);
    pos = last_unterminated ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    try {
      if (line.find('\0') != std::string_view::npos) {
        throw Invalid{"contains a NUL byte (not a text file?)"};
      }
      importer.add(line.front() == '{' ? *record_from_json(line)
                                       : record_from_tabs(line));
    } catch (const Invalid& e) {
      return ReadResult::failed(
          fmt::format("{}: line {}: {}{}", name, line_no, e.message,
                      last_unterminated ? " (the file looks truncated)" : ""));
    }
  }
  if (importer.records() == 0) {
    return ReadResult::failed(fmt::format("{}: no Coz profile records", name));
  }
  ReadResult r;
  r.profile = importer.finish();
  return r;
}

}  // namespace

ReadResult parse_coz(std::string_view text, std::string_view name) {
  try {
    return parse_unguarded(text, name);
  } catch (const std::bad_alloc&) {
    return ReadResult::failed(
        fmt::format("{}: out of memory while reading", name));
  } catch (const std::exception& e) {
    return ReadResult::failed(
        fmt::format("{}: cannot read Coz profile: {}", name, e.what()));
  }
}

}  // namespace andweorc::profile
