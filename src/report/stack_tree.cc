// stack_tree.cc: see stack_tree.h.
#include "report/stack_tree.h"

#include <algorithm>
#include <cmath>

namespace andweorc::report {

uint32_t NameTable::find(const std::string& name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? kNone : it->second;
}

uint32_t NameTable::ref(const std::string& name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) {
    ++uses_[it->second];
    return it->second;
  }
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
    names_[id] = name;
    uses_[id] = 1;
  } else {
    id = uint32_t(names_.size());
    names_.push_back(name);
    uses_.push_back(1);
  }
  ids_.emplace(name, id);
  return id;
}

void NameTable::unref(uint32_t id) {
  if (--uses_[id] > 0) return;
  ids_.erase(names_[id]);
  names_[id].clear();
  names_[id].shrink_to_fit();
  free_.push_back(id);
}

StackTree::StackTree(NameTable* names, size_t max_nodes)
    : names_(names), max_nodes_(max_nodes), nodes_(1) {}

StackTree::~StackTree() {
  for (size_t id = 1; id < nodes_.size(); ++id)
    if (nodes_[id].name != NameTable::kNone) names_->unref(nodes_[id].name);
}

uint32_t StackTree::child(uint32_t parent, const std::string& name) const {
  uint32_t n = names_->find(name);
  if (n == NameTable::kNone) return NameTable::kNone;
  auto it = children_.find(key(parent, n));
  return it == children_.end() ? NameTable::kNone : it->second;
}

uint32_t StackTree::make_child(uint32_t parent, const std::string& name) {
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = uint32_t(nodes_.size());
    nodes_.emplace_back();
  }
  Node& n = nodes_[id];
  n = Node{names_->ref(name), parent, 0, 0};
  children_.emplace(key(parent, n.name), id);
  ++live_;
  return id;
}

void StackTree::free_node(uint32_t id) {
  Node& n = nodes_[id];
  children_.erase(key(n.parent, n.name));
  names_->unref(n.name);
  n = Node{};
  free_.push_back(id);
  --live_;
}

StackTree::Place StackTree::add(const std::vector<std::string>& stack,
                                uint64_t weight) {
  Place p;
  if (weight == 0) return p;
  nodes_[kRoot].total += weight;
  for (const std::string& name : stack) {
    uint32_t c = child(p.node, name);
    if (c == NameTable::kNone) {
      if (live_ >= max_nodes_) {
        p.cut = true;
        break;
      }
      c = make_child(p.node, name);
    }
    nodes_[c].total += weight;
    p.node = c;
  }
  if (p.cut) {
    nodes_[p.node].cut += weight;
    cut_ += weight;
  }
  return p;
}

uint64_t StackTree::weight_of(const std::vector<std::string>& path) const {
  uint32_t at = kRoot;
  for (const std::string& name : path) {
    at = child(at, name);
    if (at == NameTable::kNone) return 0;
  }
  return nodes_[at].total;
}

size_t StackTree::missing(const std::vector<std::string>& stack) const {
  uint32_t at = kRoot;
  for (size_t i = 0; i < stack.size(); ++i) {
    at = child(at, stack[i]);
    if (at == NameTable::kNone) return stack.size() - i;
  }
  return 0;
}

void StackTree::remove(Place p, uint64_t weight) {
  if (p.cut) {
    nodes_[p.node].cut -= weight;
    cut_ -= weight;
  }
  for (uint32_t id = p.node;; id = nodes_[id].parent) {
    nodes_[id].total -= weight;
    if (id == kRoot) break;
  }
  // Every live node has weight: free those this left empty, leaf upwards.
  for (uint32_t id = p.node; id != kRoot && nodes_[id].total == 0;) {
    uint32_t parent = nodes_[id].parent;
    free_node(id);
    id = parent;
  }
}

uint64_t StackTree::compact() {
  std::vector<uint64_t> totals;
  for (size_t id = 1; id < nodes_.size(); ++id)
    if (nodes_[id].name != NameTable::kNone) totals.push_back(nodes_[id].total);
  if (totals.empty()) return 0;
  size_t k = std::max<size_t>(totals.size() / 4, 1) - 1;
  std::nth_element(totals.begin(), totals.begin() + k, totals.end());
  const uint64_t light = totals[k];
  auto gone = [&](uint32_t id) {
    return id != kRoot && nodes_[id].name != NameTable::kNone &&
           nodes_[id].total <= light;
  };
  uint64_t folded = 0;
  std::vector<uint32_t> drop;
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    if (!gone(id)) continue;
    drop.push_back(id);
    Node& parent = nodes_[nodes_[id].parent];
    if (!gone(nodes_[id].parent)) {  // the top of a folded subtree
      parent.cut += nodes_[id].total;
      folded += nodes_[id].total;
    }
  }
  // Cut weight inside a folded subtree is within its top's total: what
  // newly lost its frames is the rest.
  uint64_t was_cut = 0;
  for (uint32_t id : drop) {
    was_cut += nodes_[id].cut;
    free_node(id);
  }
  cut_ += folded - was_cut;
  return folded - was_cut;
}

FlameGraph StackTree::graph(double min_share, size_t max_out) const {
  FlameGraph g;
  g.samples = weight();
  g.cut = cut_;
  if (g.samples == 0) return g;
  auto is_live = [&](size_t id) {
    return id == kRoot || nodes_[id].name != NameTable::kNone;
  };
  // The threshold: min_share of the span, raised until at most max_out
  // nodes (cut pseudo-frames included) reach it. A node is never heavier
  // than its parent, so what reaches it is a tree.
  uint64_t t =
      std::max<uint64_t>(1, uint64_t(std::ceil(min_share * double(g.samples))));
  std::vector<uint64_t> values;
  for (size_t id = 0; id < nodes_.size(); ++id) {
    if (!is_live(id)) continue;
    if (id != kRoot && nodes_[id].total >= t)
      values.push_back(nodes_[id].total);
    if (nodes_[id].cut >= t) values.push_back(nodes_[id].cut);
  }
  if (values.size() > max_out) {
    if (max_out == 0) {
      t = UINT64_MAX;
    } else {
      auto nth = values.begin() + (max_out - 1);
      std::nth_element(values.begin(), nth, values.end(),
                       std::greater<uint64_t>());
      // Ties at the max_out-th value beyond max_out: all of them go.
      uint64_t next = *std::max_element(nth + 1, values.end());
      t = next == *nth ? *nth + 1 : *nth;
    }
  }
  // Kept children per node: (name, value, node or kNone for a cut).
  struct Kid {
    const std::string* name;
    uint64_t value;
    uint32_t id;
  };
  std::unordered_map<uint32_t, std::vector<Kid>> kids;
  static const std::string kCut = kCutFrameName;
  auto kept = [&](uint32_t id) { return id == kRoot || nodes_[id].total >= t; };
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    if (!is_live(id)) continue;
    const Node& n = nodes_[id];
    if (id != kRoot) {
      if (n.total >= t) {
        kids[n.parent].push_back({&names_->name(n.name), n.total, id});
      } else {
        ++g.pruned_nodes;
        if (kept(n.parent)) g.pruned_samples += n.total;
      }
    }
    if (n.cut >= t) {
      kids[id].push_back({&kCut, n.cut, NameTable::kNone});
    } else if (n.cut > 0) {
      ++g.pruned_nodes;
      if (kept(id)) g.pruned_samples += n.cut;
    }
  }
  std::unordered_map<std::string, uint32_t> name_index;
  // Depth-first, siblings by name: an explicit stack of (kid, depth),
  // pushed in reverse so the first name comes out first.
  std::vector<std::pair<Kid, uint32_t>> stack;
  auto push_kids = [&](uint32_t id, uint32_t depth) {
    auto it = kids.find(id);
    if (it == kids.end()) return;
    std::vector<Kid>& v = it->second;
    std::sort(v.begin(), v.end(), [](const Kid& a, const Kid& b) {
      return *a.name != *b.name ? *a.name < *b.name : a.id < b.id;
    });
    for (auto k = v.rbegin(); k != v.rend(); ++k) stack.push_back({*k, depth});
  };
  push_kids(kRoot, 1);
  while (!stack.empty()) {
    auto [k, depth] = stack.back();
    stack.pop_back();
    auto [it, added] =
        name_index.try_emplace(*k.name, uint32_t(g.names.size()));
    if (added) g.names.push_back(*k.name);
    g.nodes.push_back({it->second, k.value, depth});
    if (k.id != NameTable::kNone) push_kids(k.id, depth + 1);
  }
  return g;
}

}  // namespace andweorc::report
