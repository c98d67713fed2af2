// profile_reader.cc: the validating reader of the profile JSON file
// (profile_json.h).
//
// The reader checks everything the schema promises (presence, type, range,
// frame indices) so that code receiving a Profile can index without checks.
// Internally it reports problems by throwing checked_json::Invalid, caught
// at the top.
#include <fmt/format.h>

#include <exception>
#include <new>
#include <utility>

#include "profile/checked_json.h"
#include "profile/profile_json.h"
#include "profile/trace_json.h"

namespace andweorc::profile {
namespace {

using namespace checked_json;  // NOLINT(google-build-using-namespace)

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
    // Optional (issue 15): the process tree's view.
    if (o.contains("parent"))
      pr.parent = get_int(o, "parent", w, 0, std::numeric_limits<int>::max());
    if (o.contains("samples")) pr.samples = get_u64(o, "samples", w);
    if (o.contains("experiments"))
      pr.experiments =
          get_int(o, "experiments", w, 0, std::numeric_limits<int>::max());
    // Since 1.8: both or neither.
    if (o.contains("cpu_s") || o.contains("profiler_cpu_s")) {
      pr.cpu_s = get_seconds(o, "cpu_s", w);
      pr.profiler_cpu_s = get_seconds(o, "profiler_cpu_s", w);
    }
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
    // Optional since 1.5: absent means unknown.
    if (o.contains("cpu_s")) e.cpu_s = get_seconds(o, "cpu_s", w);
    // Optional since 1.7: absent means none.
    if (o.contains("parents")) {
      const Json& ps = get_array(o, "parents", w);
      std::string ww = join(w, "parents");
      for (size_t k = 0; k < ps.size(); ++k) {
        std::string pw = at(ww, k);
        const Json& po = as_object(ps[k], pw);
        e.parents.push_back(
            {get_string(po, "function", pw), get_string(po, "file", pw)});
      }
    }
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
  read_traces(doc, &p);
  return p;
}

ReadResult parse_unguarded(std::string_view text, std::string_view name) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return ReadResult::failed(fmt::format("{} is empty", name));
  }
  Json doc;
  try {
    doc = Json::parse(text.data(), text.data() + text.size());
  } catch (const Json::parse_error& e) {
    if (text[first] != '{') {
      return ReadResult::failed(
          fmt::format("{} is not an andweorc profile (not JSON)", name));
    }
    return ReadResult::failed(
        fmt::format("{}: truncated or corrupt JSON at byte {}", name, e.byte));
  }
  if (std::string err = check_header(doc, name); !err.empty()) {
    return ReadResult::failed(std::move(err));
  }
  try {
    ReadResult r;
    r.profile = read_body(doc);
    return r;
  } catch (const Invalid& e) {
    return ReadResult::failed(fmt::format("{}: {}", name, e.message));
  }
}

}  // namespace

ReadResult parse_profile(std::string_view text, std::string_view name) {
  try {
    return parse_unguarded(text, name);
  } catch (const std::bad_alloc&) {
    return ReadResult::failed(
        fmt::format("{}: out of memory while reading", name));
  } catch (const std::exception& e) {
    // Not expected: every access above is checked first.
    return ReadResult::failed(
        fmt::format("{}: cannot read profile: {}", name, e.what()));
  }
}

}  // namespace andweorc::profile
