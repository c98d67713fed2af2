// flame_json.h: a FlameGraph as the JSON that report/html/flame.js draws
// (docs/live.md "The flame graph" states it).
#ifndef ANDWEORC_REPORT_FLAME_JSON_H_
#define ANDWEORC_REPORT_FLAME_JSON_H_

#include <nlohmann/json.hpp>

#include "report/stack_tree.h"

namespace andweorc::report {

// {"samples", "cut", "pruned_nodes", "pruned_samples", "names": [...],
//  "nodes": [[name index, samples, depth], ...]}: nodes in preorder,
// siblings by name, depth 1 for the outermost frames. A differential
// graph's nodes have a fourth element, the base profile's samples at the
// same path, and the object "base_samples".
nlohmann::ordered_json flame_json(const FlameGraph& g);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_FLAME_JSON_H_
