// profile_flame.cc: see profile_flame.h.
#include "report/profile_flame.h"

#include <string>
#include <vector>

#include "report/frame_name.h"

namespace andweorc::report {
namespace {

// A written profile keeps every stack: no cap on the tree.
constexpr size_t kNoCap = SIZE_MAX;

// Every stack of p, outermost frame first; an empty one as "[unknown]",
// as the folded export shows it.
void add_stacks_of(const profile::Profile& p, StackTree* tree) {
  std::vector<std::string> names;
  for (const profile::Stack& s : p.stacks) {
    names.clear();
    for (auto f = s.frames.rbegin(); f != s.frames.rend(); ++f)
      names.push_back(frame_name(p.frames[*f]));
    if (names.empty()) names.push_back("[unknown]");
    tree->add(names, s.samples);
  }
}

}  // namespace

FlameGraph profile_flame(const profile::Profile& p, double min_share,
                         size_t max_out) {
  NameTable names;
  StackTree tree(&names, kNoCap);
  add_stacks_of(p, &tree);
  return tree.graph(min_share, max_out);
}

FlameGraph profile_flame_against(const profile::Profile& p,
                                 const profile::Profile& base, double min_share,
                                 size_t max_out) {
  NameTable names;
  StackTree tree(&names, kNoCap), other(&names, kNoCap);
  add_stacks_of(p, &tree);
  add_stacks_of(base, &other);
  FlameGraph g = tree.graph(min_share, max_out);
  g.base_samples = other.weight();
  // Each node's path, rebuilt from the preorder depths.
  std::vector<std::string> path;
  for (const FlameGraph::Node& n : g.nodes) {
    path.resize(n.depth - 1);
    path.push_back(g.names[n.name]);
    g.base.push_back(other.weight_of(path));
  }
  return g;
}

}  // namespace andweorc::report
