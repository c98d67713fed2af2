// profile_writer.cc: the profile as its JSON document and text
// (profile_json.h), keys in the documented order.
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "profile/profile_json.h"
#include "profile/trace_json.h"

namespace andweorc::profile {
namespace {

using OJson = nlohmann::ordered_json;

// Durations are written as finite, non-negative numbers (the reader's rule).
double seconds(double s) { return std::isfinite(s) && s > 0 ? s : 0.0; }

OJson strings(const std::vector<std::string>& v) {
  OJson a = OJson::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

}  // namespace

const char* point_kind_name(PointKind k) {
  return k == PointKind::kLatency ? "latency" : "throughput";
}

nlohmann::ordered_json point_json(const ProgressPoint& pt) {
  return OJson{{"name", pt.name},
               {"kind", point_kind_name(pt.kind)},
               {"visits", pt.visits},
               {"begins", pt.begins},
               {"ends", pt.ends}};
}

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
    OJson o{{"pid", pr.pid},
            {"executable", pr.executable},
            {"clean_exit", pr.clean_exit},
            {"parent", pr.parent},
            {"samples", pr.samples}};
    if (pr.experiments >= 0) o["experiments"] = pr.experiments;
    if (pr.cpu_s >= 0 && pr.profiler_cpu_s >= 0) {
      o["cpu_s"] = seconds(pr.cpu_s);
      o["profiler_cpu_s"] = seconds(pr.profiler_cpu_s);
    }
    processes.push_back(std::move(o));
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
    points.push_back(point_json(pt));
  }
  j["points"] = std::move(points);
  j["warnings"] = strings(p.warnings);
  OJson experiments = OJson::array();
  for (const Experiment& e : p.experiments) {
    OJson deltas = OJson::array();
    for (const PointDelta& d : e.points) {
      deltas.push_back(OJson{{"name", d.name},
                             {"kind", point_kind_name(d.kind)},
                             {"visits", d.visits},
                             {"arrivals", d.arrivals},
                             {"departures", d.departures},
                             {"in_flight_start", d.in_flight_start},
                             {"in_flight_end", d.in_flight_end}});
    }
    OJson ej = OJson{{"file", e.file},
                     {"line", e.line},
                     {"function", e.function},
                     {"granularity", e.granularity},
                     {"speedup_pct", e.speedup_pct},
                     {"duration_s", seconds(e.duration_s)},
                     {"delay_s", seconds(e.delay_s)},
                     {"selected_samples", e.selected_samples},
                     {"pid", e.pid},
                     {"points", std::move(deltas)}};
    if (e.cpu_s >= 0) ej["cpu_s"] = seconds(e.cpu_s);
    if (!e.parents.empty()) {
      OJson parents = OJson::array();
      for (const Experiment::Parent& p : e.parents)
        parents.push_back(OJson{{"function", p.function}, {"file", p.file}});
      ej["parents"] = std::move(parents);
    }
    experiments.push_back(std::move(ej));
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
  write_traces(p, &j);
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

}  // namespace andweorc::profile
