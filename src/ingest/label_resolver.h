// label_resolver.h: which label a sampled address stood for, and when.
//
// The runtime records each binding of a label to a trampoline (a code range)
// with its time. An address inside a trampoline at time t means the label
// bound to that trampoline most recently at or before t. Addresses anywhere
// in the trampoline table are label machinery, hidden from stacks.
#ifndef ANDWEORC_INGEST_LABEL_RESOLVER_H_
#define ANDWEORC_INGEST_LABEL_RESOLVER_H_

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "ingest/raw_reader.h"

namespace andweorc::ingest {

class LabelResolver {
 public:
  explicit LabelResolver(const std::vector<RawLabelBinding>& bindings);

  // True when `address` is inside the trampoline table (any trampoline, or
  // the helper they share).
  bool is_machinery(uint64_t address) const;
  // The binding in force for the trampoline containing `address` at time_ns,
  // or nullptr (not a trampoline, or the sample predates every binding).
  const RawLabelBinding* label_at(uint64_t address, uint64_t time_ns) const;

 private:
  struct Trampoline {
    uint64_t end = 0;
    std::vector<const RawLabelBinding*> history;  // by time
  };
  std::vector<std::pair<uint64_t, uint64_t>> tables_;
  std::map<uint64_t, Trampoline> by_start_;
};

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_LABEL_RESOLVER_H_
