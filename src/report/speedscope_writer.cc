// speedscope_writer.cc: see speedscope_writer.h.
#include "report/speedscope_writer.h"

#include <nlohmann/json.hpp>

#include "profile/label_view.h"
#include "report/frame_name.h"

namespace andweorc::report {
namespace {

using OJson = nlohmann::ordered_json;

struct Exporter {
  const profile::Profile& p;
  uint64_t period;  // 0: weights are sample counts

  // Shared frame index of label l (after the profile's frames).
  size_t label_frame(uint32_t l) const { return p.frames.size() + l; }

  OJson profile(const std::string& name, bool with_labels,
                const profile::Label* only) const {
    OJson samples = OJson::array(), weights = OJson::array();
    uint64_t total = 0;
    for (const profile::Stack& s : p.stacks) {
      if (s.samples == 0) continue;
      if (only != nullptr) {
        bool has = false;
        for (uint32_t l : s.labels) has = has || p.labels[l] == *only;
        if (!has) continue;
      }
      OJson stack = OJson::array();
      if (with_labels)
        for (auto l = s.labels.rbegin(); l != s.labels.rend(); ++l)
          stack.push_back(label_frame(*l));
      for (auto f = s.frames.rbegin(); f != s.frames.rend(); ++f)
        stack.push_back(*f);
      uint64_t w = period == 0 ? s.samples : s.samples * period;
      samples.push_back(std::move(stack));
      weights.push_back(w);
      total += w;
    }
    return OJson{{"type", "sampled"},
                 {"name", name},
                 {"unit", period == 0 ? "none" : "nanoseconds"},
                 {"startValue", 0},
                 {"endValue", total},
                 {"samples", std::move(samples)},
                 {"weights", std::move(weights)}};
  }
};

std::string command_name(const profile::Profile& p) {
  if (p.run.command.empty()) return "andweorc profile";
  return p.run.command.front();
}

}  // namespace

void write_speedscope(const profile::Profile& p, std::ostream& out) {
  Exporter e{p, p.run.sample_period_ns};
  OJson frames = OJson::array();
  for (const profile::Frame& f : p.frames) {
    OJson fr{{"name", frame_name(f)}};
    if (!f.file.empty()) fr["file"] = f.file;
    if (f.line > 0) fr["line"] = f.line;
    frames.push_back(std::move(fr));
  }
  for (const profile::Label& l : p.labels)
    frames.push_back(OJson{{"name", label_frame_name(l)}});
  OJson profiles = OJson::array();
  profiles.push_back(e.profile("all samples", true, nullptr));
  for (const auto& [label, count] : profile::samples_per_label(p))
    profiles.push_back(e.profile(label.key + "=" + label.value, false, &label));
  OJson doc{{"$schema", "https://www.speedscope.app/file-format-schema.json"},
            {"shared", OJson{{"frames", std::move(frames)}}},
            {"profiles", std::move(profiles)},
            {"name", command_name(p)},
            {"activeProfileIndex", 0},
            {"exporter", "andweorc " + p.run.tool_version}};
  out << doc.dump(-1, ' ', false, OJson::error_handler_t::replace) << '\n';
}

}  // namespace andweorc::report
