// flame_json.cc: see flame_json.h.
#include "report/flame_json.h"

namespace andweorc::report {

nlohmann::ordered_json flame_json(const FlameGraph& g) {
  using OJson = nlohmann::ordered_json;
  const bool diff = !g.base.empty();
  OJson nodes = OJson::array();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const FlameGraph::Node& n = g.nodes[i];
    OJson node = OJson::array({n.name, n.value, n.depth});
    if (diff) node.push_back(g.base[i]);
    nodes.push_back(std::move(node));
  }
  OJson j{{"samples", g.samples},
          {"cut", g.cut},
          {"pruned_nodes", g.pruned_nodes},
          {"pruned_samples", g.pruned_samples},
          {"names", g.names},
          {"nodes", std::move(nodes)}};
  if (diff) j["base_samples"] = g.base_samples;
  return j;
}

}  // namespace andweorc::report
