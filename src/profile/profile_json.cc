// profile_json.cc: the JSON writer and the validating reader.
//
// The reader checks everything the schema promises (presence, type, range,
// frame indices) so that code receiving a Profile can index without checks.
// Internally it reports problems by throwing Invalid, caught at the top.
#include "profile/profile_json.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <utility>

#include "profile/atomic_file.h"
#include "profile/text_file.h"

namespace andweorc::profile {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;

const char* kind_name(PointKind k) {
  return k == PointKind::kLatency ? "latency" : "throughput";
}

// Durations are written as finite, non-negative numbers (the reader's rule).
double seconds(double s) { return std::isfinite(s) && s > 0 ? s : 0.0; }

OJson strings(const std::vector<std::string>& v) {
  OJson a = OJson::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

// ---- reader helpers -------------------------------------------------------

// A validation failure; `message` is the part after "NAME: ".
struct Invalid {
  std::string message;
};

std::string join(const std::string& where, std::string_view key) {
  if (where.empty()) return std::string(key);
  return fmt::format("{}.{}", where, key);
}

std::string at(const std::string& where, size_t i) {
  return fmt::format("{}[{}]", where, i);
}

// A short description of a JSON value for "must be X, not Y" messages.
std::string describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default: {
      std::string text = v.dump();
      if (text.size() > 32) text = text.substr(0, 29) + "...";
      return "the number " + text;
    }
  }
}

[[noreturn]] void wrong_type(const std::string& path, const char* expected,
                             const Json& v) {
  throw Invalid{fmt::format("field '{}' must be {}, not {}", path, expected,
                            describe(v))};
}

const Json& field(const Json& obj, std::string_view key,
                  const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    throw Invalid{fmt::format("missing field '{}'", join(where, key))};
  }
  return *it;
}

const Json& get_object(const Json& obj, std::string_view key,
                       const std::string& where) {
  const Json& v = field(obj, key, where);
  if (!v.is_object()) wrong_type(join(where, key), "an object", v);
  return v;
}

const Json& get_array(const Json& obj, std::string_view key,
                      const std::string& where) {
  const Json& v = field(obj, key, where);
  if (!v.is_array()) wrong_type(join(where, key), "an array", v);
  return v;
}

const Json& as_object(const Json& v, const std::string& path) {
  if (!v.is_object()) wrong_type(path, "an object", v);
  return v;
}

std::string as_string(const Json& v, const std::string& path) {
  if (!v.is_string()) wrong_type(path, "a string", v);
  return v.get<std::string>();
}

std::string get_string(const Json& obj, std::string_view key,
                       const std::string& where) {
  return as_string(field(obj, key, where), join(where, key));
}

bool get_bool(const Json& obj, std::string_view key, const std::string& where) {
  const Json& v = field(obj, key, where);
  if (!v.is_boolean()) wrong_type(join(where, key), "true or false", v);
  return v.get<bool>();
}

uint64_t as_u64(const Json& v, const std::string& path) {
  // nlohmann stores every non-negative integer literal as unsigned.
  if (!v.is_number_unsigned()) wrong_type(path, "a non-negative integer", v);
  return v.get<uint64_t>();
}

uint64_t get_u64(const Json& obj, std::string_view key,
                 const std::string& where) {
  return as_u64(field(obj, key, where), join(where, key));
}

int get_int(const Json& obj, std::string_view key, const std::string& where,
            int lo, int hi) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number_integer()) wrong_type(path, "an integer", v);
  bool ok = v.is_number_unsigned()
                ? v.get<uint64_t>() <= static_cast<uint64_t>(hi)
                : (v.get<int64_t>() >= lo && v.get<int64_t>() <= hi);
  if (!ok) {
    throw Invalid{fmt::format("field '{}' must be between {} and {}, not {}",
                              path, lo, hi, v.dump())};
  }
  return static_cast<int>(v.get<int64_t>());
}

int64_t get_i64(const Json& obj, std::string_view key,
                const std::string& where) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number_integer()) wrong_type(path, "an integer", v);
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw Invalid{fmt::format("field '{}' is too large: {}", path, v.dump())};
  }
  return v.get<int64_t>();
}

double get_seconds(const Json& obj, std::string_view key,
                   const std::string& where) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number()) wrong_type(path, "a number", v);
  double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) {
    throw Invalid{fmt::format(
        "field '{}' must be a non-negative number, not {}", path, v.dump())};
  }
  return d;
}

double get_number(const Json& obj, std::string_view key,
                  const std::string& where) {
  const Json& v = field(obj, key, where);
  std::string path = join(where, key);
  if (!v.is_number()) wrong_type(path, "a number", v);
  double d = v.get<double>();
  if (!std::isfinite(d))
    throw Invalid{fmt::format("field '{}' must be finite", path)};
  return d;
}

std::vector<std::string> get_strings(const Json& obj, std::string_view key,
                                     const std::string& where) {
  const Json& a = get_array(obj, key, where);
  std::string path = join(where, key);
  std::vector<std::string> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back(as_string(a[i], at(path, i)));
  return out;
}

// "MAJOR.MINOR" with decimal digits only.
bool parse_version(const std::string& s, int* major, int* minor) {
  size_t dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == s.size()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  auto r1 = std::from_chars(b, b + dot, *major);
  if (r1.ec != std::errc() || r1.ptr != b + dot) return false;
  auto r2 = std::from_chars(b + dot + 1, e, *minor);
  return r2.ec == std::errc() && r2.ptr == e && *major >= 0 && *minor >= 0;
}

// Quoted and shortened, for echoing a bad value in a message.
std::string shown(const std::string& s) {
  std::string q = Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
  if (q.size() > 42) q = q.substr(0, 38) + "...\"";
  return q;
}

PointKind get_kind(const Json& obj, const std::string& where) {
  std::string kind = get_string(obj, "kind", where);
  if (kind == "throughput") return PointKind::kThroughput;
  if (kind == "latency") return PointKind::kLatency;
  throw Invalid{
      fmt::format("field '{}' must be \"throughput\" or \"latency\", not {}",
                  join(where, "kind"), shown(kind))};
}

std::string get_granularity(const Json& obj, const std::string& where) {
  std::string g = get_string(obj, "granularity", where);
  if (g != "line" && g != "function") {
    throw Invalid{
        fmt::format("field '{}' must be \"line\" or \"function\", not {}",
                    join(where, "granularity"), shown(g))};
  }
  return g;
}

void read_run(const Json& doc, RunInfo* run) {
  const std::string w = "run";
  const Json& o = get_object(doc, "run", "");
  run->command = get_strings(o, "command", w);
  run->start_time = get_string(o, "start_time", w);
  run->duration_s = get_seconds(o, "duration_s", w);
  run->exit_status = get_int(o, "exit_status", w, -1, 255);
  run->exit_signal = get_int(o, "exit_signal", w, 0, 1024);
  run->sampler = get_string(o, "sampler", w);
  run->sample_period_ns = get_u64(o, "sample_period_ns", w);
  run->tool_version = get_string(o, "tool_version", w);
}

void read_frames(const Json& doc, std::vector<Frame>* frames) {
  const Json& a = get_array(doc, "frames", "");
  frames->reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = at("frames", i);
    const Json& o = as_object(a[i], w);
    Frame f;
    f.function = get_string(o, "function", w);
    f.file = get_string(o, "file", w);
    f.line = get_int(o, "line", w, 0, std::numeric_limits<int>::max());
    f.module = get_string(o, "module", w);
    f.inlined = get_bool(o, "inlined", w);
    f.in_scope = get_bool(o, "in_scope", w);
    frames->push_back(std::move(f));
  }
}

// Since 1.2, optional: the (key, value) pairs stacks refer to.
void read_labels(const Json& doc, std::vector<Label>* labels) {
  if (!doc.contains("labels")) return;
  const Json& a = get_array(doc, "labels", "");
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = at("labels", i);
    const Json& o = as_object(a[i], w);
    labels->push_back(
        Label{get_string(o, "key", w), get_string(o, "value", w)});
  }
}

void read_stack_labels(const Json& o, const std::string& w, size_t nlabels,
                       Stack* s) {
  if (!o.contains("labels")) return;
  const Json& la = get_array(o, "labels", w);
  for (size_t k = 0; k < la.size(); ++k) {
    std::string path = at(join(w, "labels"), k);
    uint64_t index = as_u64(la[k], path);
    if (index >= nlabels)
      throw Invalid{
          fmt::format("field '{}' refers to label {} but there are {}", path,
                      index, nlabels)};
    s->labels.push_back(static_cast<uint32_t>(index));
  }
}

void read_stacks(const Json& doc, size_t nframes, size_t nlabels,
                 std::vector<Stack>* stacks) {
  const Json& a = get_array(doc, "stacks", "");
  stacks->reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = at("stacks", i);
    const Json& o = as_object(a[i], w);
    Stack s;
    const Json& fa = get_array(o, "frames", w);
    s.frames.reserve(fa.size());
    for (size_t k = 0; k < fa.size(); ++k) {
      std::string path = at(join(w, "frames"), k);
      uint64_t index = as_u64(fa[k], path);
      if (index >= nframes) {
        std::string have = nframes == 0 ? "there are no frames"
                           : nframes == 1
                               ? "there is 1 frame"
                               : fmt::format("there are {} frames", nframes);
        throw Invalid{fmt::format("field '{}' refers to frame {} but {}", path,
                                  index, have)};
      }
      s.frames.push_back(static_cast<uint32_t>(index));
    }
    s.samples = get_u64(o, "samples", w);
    read_stack_labels(o, w, nlabels, &s);
    stacks->push_back(std::move(s));
  }
}

void read_points(const Json& doc, std::vector<ProgressPoint>* points) {
  const Json& a = get_array(doc, "points", "");
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = at("points", i);
    const Json& o = as_object(a[i], w);
    ProgressPoint pt;
    pt.name = get_string(o, "name", w);
    pt.kind = get_kind(o, w);
    pt.visits = get_u64(o, "visits", w);
    pt.begins = get_u64(o, "begins", w);
    pt.ends = get_u64(o, "ends", w);
    points->push_back(std::move(pt));
  }
}

void read_processes(const Json& doc, std::vector<Process>* processes) {
  const Json& a = get_array(doc, "processes", "");
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = at("processes", i);
    const Json& o = as_object(a[i], w);
    Process pr;
    pr.pid = get_int(o, "pid", w, 0, std::numeric_limits<int>::max());
    pr.executable = get_string(o, "executable", w);
    pr.clean_exit = get_bool(o, "clean_exit", w);
    processes->push_back(std::move(pr));
  }
}

// Optional since 1.1: absent means a sampling-only run.
void read_settings(const Json& doc, ExperimentSettings* st) {
  if (!doc.contains("settings")) return;
  const std::string w = "settings";
  const Json& o = get_object(doc, "settings", "");
  st->enabled = get_bool(o, "enabled", w);
  st->fixed_line = get_string(o, "fixed_line", w);
  st->fixed_speedup = get_int(o, "fixed_speedup", w, -1, 100);
  st->end_to_end = get_bool(o, "end_to_end", w);
  st->experiment_time_s = get_seconds(o, "experiment_time_s", w);
  st->seed = get_u64(o, "seed", w);
  st->granularity = get_granularity(o, w);
  // Optional since 1.4.
  if (o.contains("coarse_to_fine"))
    st->coarse_to_fine = get_bool(o, "coarse_to_fine", w);
}

// Optional since 1.3: absent means the plan's state was not recorded.
void read_convergence(const Json& doc, Convergence* c) {
  if (!doc.contains("convergence")) return;
  const std::string w = "convergence";
  const Json& o = get_object(doc, "convergence", "");
  c->state = get_string(o, "state", w);
  if (c->state != "stable" && c->state != "flat" && c->state != "running")
    throw Invalid{fmt::format(
        "field '{}.state' must be \"stable\", \"flat\" or \"running\", "
        "not \"{}\"",
        w, c->state)};
  constexpr int kMax = std::numeric_limits<int>::max();
  c->experiments = get_int(o, "experiments", w, 0, kMax);
  c->regions = get_int(o, "regions", w, 0, kMax);
  c->in_play = get_int(o, "in_play", w, 0, kMax);
  c->point = get_string(o, "point", w);
  c->leader = get_string(o, "leader", w);
  c->impact = get_number(o, "impact", w);
  c->ci_low = get_number(o, "ci_low", w);
  c->ci_high = get_number(o, "ci_high", w);
  c->stable_for = get_int(o, "stable_for", w, 0, kMax);
  c->useful_impact = get_number(o, "useful_impact", w);
  // Optional since 1.4.
  if (o.contains("q_value")) c->q_value = get_number(o, "q_value", w);
}

PointDelta read_delta(const Json& v, const std::string& w) {
  const Json& o = as_object(v, w);
  PointDelta d;
  d.name = get_string(o, "name", w);
  d.kind = get_kind(o, w);
  d.visits = get_u64(o, "visits", w);
  d.arrivals = get_u64(o, "arrivals", w);
  d.departures = get_u64(o, "departures", w);
  d.in_flight_start = get_i64(o, "in_flight_start", w);
  d.in_flight_end = get_i64(o, "in_flight_end", w);
  return d;
}

// Optional since 1.1: absent means no experiment ran. Any non-negative
// durations are accepted (delay_s may exceed duration_s in a bad run); the
// analysis decides what is usable.
void read_experiments(const Json& doc, std::vector<Experiment>* experiments) {
  if (!doc.contains("experiments")) return;
  const Json& a = get_array(doc, "experiments", "");
  experiments->reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = at("experiments", i);
    const Json& o = as_object(a[i], w);
    Experiment e;
    e.file = get_string(o, "file", w);
    e.line = get_int(o, "line", w, 0, std::numeric_limits<int>::max());
    e.function = get_string(o, "function", w);
    e.granularity = get_granularity(o, w);
    e.speedup_pct = get_int(o, "speedup_pct", w, 0, 100);
    e.duration_s = get_seconds(o, "duration_s", w);
    e.delay_s = get_seconds(o, "delay_s", w);
    e.selected_samples = get_u64(o, "selected_samples", w);
    e.pid = get_int(o, "pid", w, 0, std::numeric_limits<int>::max());
    const Json& pa = get_array(o, "points", w);
    std::string pw = join(w, "points");
    e.points.reserve(pa.size());
    for (size_t k = 0; k < pa.size(); ++k) {
      e.points.push_back(read_delta(pa[k], at(pw, k)));
    }
    experiments->push_back(std::move(e));
  }
}

// Checks the format tag and version; returns an error or "".
std::string check_header(const Json& doc, std::string_view name) {
  if (!doc.is_object()) {
    return fmt::format(
        "{} is not an andweorc profile (the top level is {}, not an object)",
        name, describe(doc));
  }
  auto tag = doc.find("format");
  if (tag == doc.end()) {
    return fmt::format("{} is not an andweorc profile (no \"format\" field)",
                       name);
  }
  if (!tag->is_string() || tag->get<std::string>() != kFormatTag) {
    std::string got =
        tag->is_string() ? shown(tag->get<std::string>()) : describe(*tag);
    return fmt::format(
        "{} is not an andweorc profile (\"format\" is {}, not \"{}\")", name,
        got, kFormatTag);
  }
  auto ver = doc.find("version");
  if (ver == doc.end()) {
    return fmt::format("{}: missing field 'version'", name);
  }
  int major = 0;
  int minor = 0;
  if (!ver->is_string() ||
      !parse_version(ver->get<std::string>(), &major, &minor)) {
    std::string got =
        ver->is_string() ? shown(ver->get<std::string>()) : describe(*ver);
    return fmt::format(
        "{}: field 'version' must be a string \"MAJOR.MINOR\", not {}", name,
        got);
  }
  if (major > kSchemaMajor) {
    return fmt::format(
        "{}: profile format version {}.{} is newer than this andweorc "
        "understands ({}.x)",
        name, major, minor, kSchemaMajor);
  }
  if (major < kSchemaMajor) {
    return fmt::format(
        "{}: profile format version {}.{} is older than this andweorc "
        "understands ({}.x)",
        name, major, minor, kSchemaMajor);
  }
  return "";
}

Profile read_body(const Json& doc) {
  Profile p;
  read_run(doc, &p.run);
  read_settings(doc, &p.settings);
  const Json& scope = get_object(doc, "scope", "");
  p.scope.binary = get_strings(scope, "binary", "scope");
  p.scope.source = get_strings(scope, "source", "scope");
  read_processes(doc, &p.processes);
  const Json& counts = get_object(doc, "counts", "");
  p.threads = get_u64(counts, "threads", "counts");
  p.samples = get_u64(counts, "samples", "counts");
  p.lost_samples = get_u64(counts, "lost_samples", "counts");
  read_frames(doc, &p.frames);
  read_labels(doc, &p.labels);
  read_stacks(doc, p.frames.size(), p.labels.size(), &p.stacks);
  read_points(doc, &p.points);
  p.warnings = get_strings(doc, "warnings", "");
  read_experiments(doc, &p.experiments);
  read_convergence(doc, &p.convergence);
  return p;
}

ReadResult failure(std::string message) {
  ReadResult r;
  r.error = std::move(message);
  return r;
}

ReadResult parse_unguarded(std::string_view text, std::string_view name) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return failure(fmt::format("{} is empty", name));
  }
  Json doc;
  try {
    doc = Json::parse(text.data(), text.data() + text.size());
  } catch (const Json::parse_error& e) {
    if (text[first] != '{') {
      return failure(
          fmt::format("{} is not an andweorc profile (not JSON)", name));
    }
    return failure(
        fmt::format("{}: truncated or corrupt JSON at byte {}", name, e.byte));
  }
  if (std::string err = check_header(doc, name); !err.empty()) {
    return failure(std::move(err));
  }
  try {
    ReadResult r;
    r.profile = read_body(doc);
    return r;
  } catch (const Invalid& e) {
    return failure(fmt::format("{}: {}", name, e.message));
  }
}

}  // namespace

std::string schema_version() {
  return fmt::format("{}.{}", kSchemaMajor, kSchemaMinor);
}

nlohmann::ordered_json to_json(const Profile& p) {
  OJson j = OJson::object();
  j["format"] = std::string(kFormatTag);
  j["version"] = schema_version();
  j["run"] = OJson{
      {"command", strings(p.run.command)},
      {"start_time", p.run.start_time},
      {"duration_s", seconds(p.run.duration_s)},
      {"exit_status", p.run.exit_status},
      {"exit_signal", p.run.exit_signal},
      {"sampler", p.run.sampler},
      {"sample_period_ns", p.run.sample_period_ns},
      {"tool_version", p.run.tool_version},
  };
  const ExperimentSettings& st = p.settings;
  j["settings"] = OJson{
      {"enabled", st.enabled},
      {"fixed_line", st.fixed_line},
      {"fixed_speedup", st.fixed_speedup},
      {"end_to_end", st.end_to_end},
      {"experiment_time_s", seconds(st.experiment_time_s)},
      {"seed", st.seed},
      {"granularity", st.granularity},
      {"coarse_to_fine", st.coarse_to_fine},
  };
  j["scope"] = OJson{{"binary", strings(p.scope.binary)},
                     {"source", strings(p.scope.source)}};
  OJson processes = OJson::array();
  for (const Process& pr : p.processes) {
    processes.push_back(OJson{{"pid", pr.pid},
                              {"executable", pr.executable},
                              {"clean_exit", pr.clean_exit}});
  }
  j["processes"] = std::move(processes);
  j["counts"] = OJson{{"threads", p.threads},
                      {"samples", p.samples},
                      {"lost_samples", p.lost_samples}};
  OJson frames = OJson::array();
  for (const Frame& f : p.frames) {
    frames.push_back(OJson{{"function", f.function},
                           {"file", f.file},
                           {"line", f.line},
                           {"module", f.module},
                           {"inlined", f.inlined},
                           {"in_scope", f.in_scope}});
  }
  j["frames"] = std::move(frames);
  OJson stacks = OJson::array();
  for (const Stack& s : p.stacks) {
    OJson stack{{"frames", s.frames}, {"samples", s.samples}};
    if (!s.labels.empty()) stack["labels"] = s.labels;
    stacks.push_back(std::move(stack));
  }
  j["stacks"] = std::move(stacks);
  OJson labels = OJson::array();
  for (const Label& l : p.labels)
    labels.push_back(OJson{{"key", l.key}, {"value", l.value}});
  j["labels"] = std::move(labels);
  OJson points = OJson::array();
  for (const ProgressPoint& pt : p.points) {
    points.push_back(OJson{{"name", pt.name},
                           {"kind", kind_name(pt.kind)},
                           {"visits", pt.visits},
                           {"begins", pt.begins},
                           {"ends", pt.ends}});
  }
  j["points"] = std::move(points);
  j["warnings"] = strings(p.warnings);
  OJson experiments = OJson::array();
  for (const Experiment& e : p.experiments) {
    OJson deltas = OJson::array();
    for (const PointDelta& d : e.points) {
      deltas.push_back(OJson{{"name", d.name},
                             {"kind", kind_name(d.kind)},
                             {"visits", d.visits},
                             {"arrivals", d.arrivals},
                             {"departures", d.departures},
                             {"in_flight_start", d.in_flight_start},
                             {"in_flight_end", d.in_flight_end}});
    }
    experiments.push_back(OJson{{"file", e.file},
                                {"line", e.line},
                                {"function", e.function},
                                {"granularity", e.granularity},
                                {"speedup_pct", e.speedup_pct},
                                {"duration_s", seconds(e.duration_s)},
                                {"delay_s", seconds(e.delay_s)},
                                {"selected_samples", e.selected_samples},
                                {"pid", e.pid},
                                {"points", std::move(deltas)}});
  }
  j["experiments"] = std::move(experiments);
  if (!p.convergence.state.empty()) {
    const Convergence& c = p.convergence;
    j["convergence"] = OJson{{"state", c.state},
                             {"experiments", c.experiments},
                             {"regions", c.regions},
                             {"in_play", c.in_play},
                             {"point", c.point},
                             {"leader", c.leader},
                             {"impact", c.impact},
                             {"ci_low", c.ci_low},
                             {"ci_high", c.ci_high},
                             {"stable_for", c.stable_for},
                             {"useful_impact", c.useful_impact},
                             {"q_value", c.q_value}};
  }
  return j;
}

std::string dump_profile(const Profile& p, int indent) {
  constexpr auto kReplace = OJson::error_handler_t::replace;
  OJson j = to_json(p);
  if (indent < 0) return j.dump(-1, ' ', false, kReplace) + "\n";
  // Pretty, but one line per record in the long arrays (frames, stacks,
  // ...), which keeps big profiles short and greppable.
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string text = "{";
  bool first = true;
  for (const auto& [key, value] : j.items()) {
    text += first ? "\n" : ",\n";
    first = false;
    text += pad + OJson(key).dump(-1, ' ', false, kReplace) + ": ";
    if (value.is_array() && !value.empty() && value.front().is_object()) {
      text += "[";
      for (size_t i = 0; i < value.size(); ++i) {
        text += i == 0 ? "\n" : ",\n";
        text += pad + pad + value[i].dump(-1, ' ', false, kReplace);
      }
      text += "\n" + pad + "]";
    } else {
      std::string nested = value.dump(indent, ' ', false, kReplace);
      for (char c : nested) {
        text += c;
        if (c == '\n') text += pad;
      }
    }
  }
  text += "\n}\n";
  return text;
}

bool write_profile(const Profile& p, const std::string& path,
                   std::string* error) {
  std::string text;
  try {
    text = dump_profile(p);
  } catch (const std::exception& e) {
    if (error) *error = fmt::format("cannot write {}: {}", path, e.what());
    return false;
  }
  return write_file_atomic(path, text, error);
}

ReadResult parse_profile(std::string_view text, std::string_view name) {
  try {
    return parse_unguarded(text, name);
  } catch (const std::bad_alloc&) {
    return failure(fmt::format("{}: out of memory while reading", name));
  } catch (const std::exception& e) {
    // Not expected: every access above is checked first.
    return failure(fmt::format("{}: cannot read profile: {}", name, e.what()));
  }
}

ReadResult read_profile(const std::string& path) {
  std::string error;
  std::optional<std::string> text =
      read_text_file(path, kMaxProfileBytes, &error);
  if (!text) return failure(std::move(error));
  return parse_profile(*text, path);
}

}  // namespace andweorc::profile
