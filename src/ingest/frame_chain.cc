// frame_chain.cc: see frame_chain.h.
#include "ingest/frame_chain.h"

namespace andweorc::ingest {

std::vector<profile::Frame> frame_chain(const symbols::Location& loc) {
  std::vector<profile::Frame> out;
  for (const symbols::Frame& sf : loc.frames) {
    profile::Frame f;
    f.function = sf.function;
    f.file = sf.file;
    f.line = sf.line;
    f.module = loc.module;
    f.inlined = sf.inlined;
    out.push_back(std::move(f));
  }
  if (out.empty()) {
    profile::Frame f;
    f.module = loc.module;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace andweorc::ingest
