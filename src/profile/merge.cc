// merge.cc: see merge.h.
#include "profile/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace andweorc::profile {
namespace {

std::string basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool add_checked(uint64_t* sum, uint64_t v) {
  if (*sum + v < *sum) return false;
  *sum += v;
  return true;
}

using FrameKey =
    std::tuple<std::string, std::string, int, std::string, bool, bool>;

FrameKey key_of(const Frame& f) {
  return {f.function, f.file, f.line, f.module, f.inlined, f.in_scope};
}

// Collects inputs into one Profile, remembering where they disagree.
class Merger {
 public:
  explicit Merger(const Profile& first) {
    out_.run = first.run;
    out_.run.duration_s = 0;
    out_.settings = first.settings;
    out_.scope = first.scope;
  }

  bool add(const Profile& p, std::string* error) {
    note_differences(p);
    out_.run.duration_s += p.run.duration_s;
    if (!p.run.start_time.empty() &&
        (out_.run.start_time.empty() || p.run.start_time < out_.run.start_time))
      out_.run.start_time = p.run.start_time;
    out_.settings.enabled = out_.settings.enabled || p.settings.enabled;
    out_.settings.coarse_to_fine =
        out_.settings.coarse_to_fine || p.settings.coarse_to_fine;
    for (const Process& proc : p.processes) {
      if (std::find(out_.processes.begin(), out_.processes.end(), proc) ==
          out_.processes.end())
        out_.processes.push_back(proc);
    }
    if (!add_checked(&out_.threads, p.threads) ||
        !add_checked(&out_.samples, p.samples) ||
        !add_checked(&out_.lost_samples, p.lost_samples)) {
      *error = "the merged sample or thread counts overflow";
      return false;
    }
    std::vector<uint32_t> remap(p.frames.size());
    for (size_t i = 0; i < p.frames.size(); ++i) {
      auto [it, inserted] = frame_index_.try_emplace(
          key_of(p.frames[i]), static_cast<uint32_t>(out_.frames.size()));
      if (inserted) out_.frames.push_back(p.frames[i]);
      remap[i] = it->second;
    }
    std::vector<uint32_t> label_remap(p.labels.size());
    for (size_t i = 0; i < p.labels.size(); ++i) {
      auto [it, inserted] = label_index_.try_emplace(
          p.labels[i], static_cast<uint32_t>(out_.labels.size()));
      if (inserted) out_.labels.push_back(p.labels[i]);
      label_remap[i] = it->second;
    }
    for (const Stack& s : p.stacks) {
      std::vector<uint32_t> frames;
      frames.reserve(s.frames.size());
      for (uint32_t f : s.frames) frames.push_back(remap[f]);
      std::vector<uint32_t> labels;
      labels.reserve(s.labels.size());
      for (uint32_t l : s.labels) labels.push_back(label_remap[l]);
      // The same code run for different labels stays apart.
      auto [it, inserted] =
          stack_index_.try_emplace({frames, labels}, out_.stacks.size());
      if (inserted) {
        out_.stacks.push_back(
            Stack{std::move(frames), s.samples, std::move(labels)});
      } else if (!add_checked(&out_.stacks[it->second].samples, s.samples)) {
        *error = "the merged sample counts overflow";
        return false;
      }
    }
    for (const ProgressPoint& pt : p.points) {
      auto [it, inserted] =
          point_index_.try_emplace({pt.name, pt.kind}, out_.points.size());
      if (inserted) {
        out_.points.push_back(pt);
        continue;
      }
      ProgressPoint& sum = out_.points[it->second];
      if (!add_checked(&sum.visits, pt.visits) ||
          !add_checked(&sum.begins, pt.begins) ||
          !add_checked(&sum.ends, pt.ends)) {
        *error =
            fmt::format("the merged counts of point '{}' overflow", pt.name);
        return false;
      }
    }
    for (const std::string& w : p.warnings) add_warning(w);
    out_.experiments.insert(out_.experiments.end(), p.experiments.begin(),
                            p.experiments.end());
    return true;
  }

  Profile finish(const std::vector<MergeInput>& inputs) {
    std::string names;
    for (const MergeInput& in : inputs) {
      names += (names.empty() ? "" : ", ") + in.name;
    }
    for (const char* what : differences_) {
      add_warning(fmt::format(
          "the merged profiles differ in {}; the first one's is kept", what));
    }
    add_warning(
        fmt::format("merged from {} profiles: {}", inputs.size(), names));
    return std::move(out_);
  }

 private:
  void note_differences(const Profile& p) {
    auto differ = [&](bool different, const char* what) {
      if (different && std::find(differences_.begin(), differences_.end(),
                                 what) == differences_.end())
        differences_.push_back(what);
    };
    differ(p.run.command != out_.run.command, "command line");
    differ(p.run.sampler != out_.run.sampler, "sampler");
    differ(p.run.sample_period_ns != out_.run.sample_period_ns,
           "sample period");
    differ(p.run.exit_status != out_.run.exit_status ||
               p.run.exit_signal != out_.run.exit_signal,
           "exit status");
    differ(!(p.scope == out_.scope), "scope");
  }

  void add_warning(const std::string& w) {
    if (warning_set_.insert(w).second) out_.warnings.push_back(w);
  }

  Profile out_;
  std::map<FrameKey, uint32_t> frame_index_;
  std::map<Label, uint32_t> label_index_;
  // (frames, labels) -> index into out_.stacks
  std::map<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>, size_t>
      stack_index_;
  std::map<std::pair<std::string, PointKind>, size_t> point_index_;
  std::set<std::string> warning_set_;
  std::vector<const char*> differences_;
};

MergeResult merge_failure(std::string message) {
  MergeResult r;
  r.error = std::move(message);
  return r;
}

}  // namespace

std::string program_name(const Profile& p) {
  for (const Process& proc : p.processes) {
    if (!proc.executable.empty()) return basename(proc.executable);
  }
  if (!p.run.command.empty()) return basename(p.run.command.front());
  return "";
}

MergeResult merge_profiles(const std::vector<MergeInput>& inputs,
                           const MergeOptions& options) {
  if (inputs.empty()) return merge_failure("nothing to merge");
  if (!options.force) {
    const MergeInput* named = nullptr;  // first input with a program name
    // Granularities may differ between inputs and within one (functions
    // first, then lines: --granularity auto/adaptive): every experiment
    // carries its own, and the analysis keys a region by it, so a function
    // and a line never pool their experiments.
    for (const MergeInput& in : inputs) {
      std::string name = program_name(*in.profile);
      if (name.empty()) continue;
      if (named && program_name(*named->profile) != name) {
        return merge_failure(fmt::format(
            "{} and {} are profiles of different programs ({} and {}); "
            "use --force to merge them anyway",
            named->name, in.name, program_name(*named->profile), name));
      }
      if (!named) named = &in;
    }
  }
  Merger merger(*inputs.front().profile);
  std::string error;
  for (const MergeInput& in : inputs) {
    if (!merger.add(*in.profile, &error)) return merge_failure(error);
  }
  MergeResult r;
  r.profile = merger.finish(inputs);
  return r;
}

}  // namespace andweorc::profile
