// live_json.h: a live snapshot as one JSON object, the schema of
// `run --live-json` (one object per line) and of the live page's /state
// (docs/live.md states both).
#ifndef ANDWEORC_LIVE_LIVE_JSON_H_
#define ANDWEORC_LIVE_LIVE_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "live/live_model.h"

namespace andweorc::live {

// The schema's version; bumped when a key changes meaning or goes away.
inline constexpr int kLiveSchemaVersion = 1;

// {"schema", "kind", "time_s", "experiments", "experiments_per_s",
//  "convergence", "ranking", "points", "samples", "flame", "dropped"}; with
// `history` also
// "history": {"convergence": [...], "points": [...]}, the whole series the
// page plots. "flame" is the two flame graphs with `flame`, else null.
// kind is "update" while the program runs, "final" for the last line (the
// written profile's experiments).
nlohmann::ordered_json snapshot_json(const LiveSnapshot& s,
                                     const std::string& kind, uint64_t dropped,
                                     bool history, bool flame);

// snapshot_json dumped on one line, with '\n'; invalid UTF-8 in names
// (file paths are bytes) is replaced, never thrown on.
std::string snapshot_line(const nlohmann::ordered_json& j);

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_LIVE_JSON_H_
