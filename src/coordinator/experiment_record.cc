// experiment_record.cc: see experiment_record.h.
#include "coordinator/experiment_record.h"

#include "andweorc/andweorc.h"
#include "runtime/raw_format.h"

namespace andweorc::coordinator {
namespace {

void append(std::string& buf, const void* p, size_t n) {
  buf.append(static_cast<const char*>(p), n);
}
void append_padded(std::string& buf, const std::string& s) {
  buf += s;
  buf.append(raw::padded8(uint32_t(s.size())) - s.size(), '\0');
}

}  // namespace

std::string encode_experiment(const ExperimentFacts& facts,
                              const PointSnapshot& before,
                              const PointSnapshot& after, bool end_to_end) {
  std::string points;
  uint32_t npoints = 0;
  auto add_point = [&](const std::string& name, const raw::ExperimentPoint& p) {
    raw::ExperimentPoint e = p;
    e.name_len = uint32_t(name.size());
    append(points, &e, sizeof e);
    append_padded(points, name);
    ++npoints;
  };
  for (const auto& [name, a] : after) {
    auto it = before.find(name);
    PointState b = it == before.end() ? PointState{} : it->second;
    raw::ExperimentPoint e{};
    if (a.latency) {
      e.kind = ANDWEORC_KIND_BEGIN;
      e.delta = a.begins - b.begins;
      e.departures = a.ends - b.ends;
      e.in_flight_start = int64_t(b.begins) - int64_t(b.ends);
      e.in_flight_end = int64_t(a.begins) - int64_t(a.ends);
    } else {
      e.kind = ANDWEORC_KIND_THROUGHPUT;
      e.delta = a.visits - b.visits;
    }
    add_point(name, e);
  }
  if (end_to_end) {
    raw::ExperimentPoint e{};
    e.kind = ANDWEORC_KIND_THROUGHPUT;
    e.delta = 1;
    add_point(kEndToEndPoint, e);
  }
  raw::ExperimentHeader h{};
  h.start_ns = facts.start_ns;
  h.duration_ns = facts.duration_ns;
  h.delay_ns = facts.delay_ns;
  h.selected_samples = facts.selected_samples;
  h.speedup_pct = uint32_t(facts.speedup_pct);
  h.granularity = facts.by_function ? 1 : 0;
  h.line = uint32_t(facts.line);
  h.npoints = npoints;
  h.file_len = uint32_t(facts.file.size());
  h.function_len = uint32_t(facts.function.size());
  std::string body;
  append(body, &h, sizeof h);
  append_padded(body, facts.file);
  append_padded(body, facts.function);
  body += points;
  if (!facts.parents.empty()) {
    raw::ExperimentParents ps{uint32_t(facts.parents.size()), 0};
    append(body, &ps, sizeof ps);
    for (const ExperimentFacts::Parent& p : facts.parents) {
      raw::ExperimentParent e{uint32_t(p.function.size()),
                              uint32_t(p.file.size())};
      append(body, &e, sizeof e);
      append_padded(body, p.function);
      append_padded(body, p.file);
    }
  }
  return body;
}

}  // namespace andweorc::coordinator
