// frame_chain.h: the frames one sampled address stands for, as a profile
// stores them: the symbolizer's inline chain, innermost first (an inlined
// callee is a frame of its own), or one frame with only the module when
// nothing is known. The written profile (profile_builder.h) and the live
// flame graph (live/live_session.h) both name stacks with it.
#ifndef ANDWEORC_INGEST_FRAME_CHAIN_H_
#define ANDWEORC_INGEST_FRAME_CHAIN_H_

#include <vector>

#include "profile/profile.h"
#include "symbols/symbolizer.h"

namespace andweorc::ingest {

// Every frame's in_scope is false: scope is the profile builder's to judge.
std::vector<profile::Frame> frame_chain(const symbols::Location& loc);

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_FRAME_CHAIN_H_
