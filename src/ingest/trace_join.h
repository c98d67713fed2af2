// trace_join.h: the samples of a traced function's calls (--trace): a
// sample of thread T at time t that falls inside a call [start, end] of T
// belongs to that call (the innermost one of that function when it
// recursed) and carries its duration into the profile's "traces".
#ifndef ANDWEORC_INGEST_TRACE_JOIN_H_
#define ANDWEORC_INGEST_TRACE_JOIN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ingest/raw_reader.h"
#include "profile/profile.h"

namespace andweorc::ingest {

// One process's calls, by thread and function, for time lookups.
class CallIndex {
 public:
  explicit CallIndex(const std::vector<RawTraceCall>& calls);
  // The innermost call of `function` in thread `tid` whose [start, end]
  // holds `time_ns`, or nullptr. Calls of one function in one thread nest
  // (recursion) or follow each other; each lookup walks the nesting only.
  const RawTraceCall* innermost(uint32_t tid, uint32_t function,
                                uint64_t time_ns) const;

 private:
  struct Entry {
    uint64_t start, end;
    int64_t parent;  // the innermost entry containing this one, or -1
    const RawTraceCall* call;
  };
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Entry>> lists_;
};

// Collects the traces of every process into Profile::traces.
class TraceBuilder {
 public:
  // Starts a process (its functions, calls and what it dropped); `p` must
  // outlive the add_sample calls that follow.
  void begin_process(const RawProcess& p);
  // A sample of the current process, whose stack in the profile will be
  // the one `stack_key` stands for (a stable address per distinct stack).
  void add_sample(const RawSample& s, const void* stack_key);
  // Writes out->traces and warnings; `index_of` maps a stack key to its
  // index in out->stacks.
  void finish(const std::function<uint32_t(const void*)>& index_of,
              profile::Profile* out);

 private:
  struct Function {
    bool traced = false;
    std::vector<uint64_t> durations;
    std::map<std::pair<const void*, uint64_t>, uint64_t> samples;
  };
  std::map<std::string, Function> functions_;
  std::vector<std::string> order_;                       // first seen first
  std::vector<std::pair<uint32_t, Function*>> current_;  // id -> function
  std::unique_ptr<CallIndex> index_;
  RawTraceStats dropped_;
};

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_TRACE_JOIN_H_
