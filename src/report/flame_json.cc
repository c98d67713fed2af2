// flame_json.cc: see flame_json.h.
#include "report/flame_json.h"

namespace andweorc::report {

nlohmann::ordered_json flame_json(const FlameGraph& g) {
  using OJson = nlohmann::ordered_json;
  OJson nodes = OJson::array();
  for (const FlameGraph::Node& n : g.nodes)
    nodes.push_back(OJson::array({n.name, n.value, n.depth}));
  return OJson{{"samples", g.samples},
               {"cut", g.cut},
               {"pruned_nodes", g.pruned_nodes},
               {"pruned_samples", g.pruned_samples},
               {"names", g.names},
               {"nodes", std::move(nodes)}};
}

}  // namespace andweorc::report
