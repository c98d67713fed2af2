// flame_text.h: a FlameGraph as "name:samples@depth" per frame, in its
// preorder, for readable comparisons in tests.
#ifndef ANDWEORC_TESTS_SUPPORT_FLAME_TEXT_H_
#define ANDWEORC_TESTS_SUPPORT_FLAME_TEXT_H_

#include <string>
#include <vector>

#include "report/stack_tree.h"

namespace andweorc::testing {

inline std::vector<std::string> flame_text(const report::FlameGraph& g) {
  std::vector<std::string> out;
  for (const report::FlameGraph::Node& n : g.nodes)
    out.push_back(g.names[n.name] + ":" + std::to_string(n.value) + "@" +
                  std::to_string(n.depth));
  return out;
}

}  // namespace andweorc::testing

#endif  // ANDWEORC_TESTS_SUPPORT_FLAME_TEXT_H_
