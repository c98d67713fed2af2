// split_points.h: what a progress point is called under `run --split-points`
// (issue 15), one rule for the two sides that must agree: the coordinator,
// which names each process's counts in the experiments, and the tool's
// ingest, which names the profile's totals. NAME@PID, or NAME@FILE with FILE
// the executable's file name as a process's tree slot holds it
// (TreeProcess::exe: at most kTreeExeMax - 1 bytes).
//
// Ordinary code (std::string): the coordinator thread and the tool, never a
// signal handler.
#ifndef ANDWEORC_RUNTIME_SPLIT_POINTS_H_
#define ANDWEORC_RUNTIME_SPLIT_POINTS_H_

#include <string>
#include <string_view>

#include "runtime/shared_tree.h"

namespace andweorc::runtime {

enum class SplitPoints { kNone, kProcess, kExecutable };

// ANDWEORC_SPLIT_POINTS's value ("process", "executable"; else none).
inline SplitPoints split_points_from(std::string_view setting) {
  if (setting == "process") return SplitPoints::kProcess;
  if (setting == "executable") return SplitPoints::kExecutable;
  return SplitPoints::kNone;
}

// The name point `name` of process `pid` counts under. `executable`: the
// process's executable, a path or a file name.
inline std::string split_point_name(const std::string& name, SplitPoints split,
                                    int pid, std::string_view executable) {
  if (split == SplitPoints::kProcess) return name + "@" + std::to_string(pid);
  if (split == SplitPoints::kNone) return name;
  size_t slash = executable.rfind('/');
  if (slash != std::string_view::npos) executable.remove_prefix(slash + 1);
  return name + "@" + std::string(executable.substr(0, kTreeExeMax - 1));
}

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SPLIT_POINTS_H_
