// stack_tree.h: call stacks at function granularity as one trie with a node
// cap, and the pruned flame graph drawn from it (report/html/flame.js). The
// live view keeps two (live/stack_profile.h: the last N seconds and the
// whole run).
//
// Each node counts the weight of the samples whose stack passes through it
// (its inclusive weight, kept up to date on every add and remove, so a
// flame graph needs no recount). A stack that needs a node beyond the cap
// is cut: its weight stays on the deepest frame that has a node, counted
// there as `cut` ("deeper frames not kept"), never lost from the totals.
// Names are interned in a NameTable shared by the trees of one profile and
// released with their last node, so memory is bounded by the caps.
#ifndef ANDWEORC_REPORT_STACK_TREE_H_
#define ANDWEORC_REPORT_STACK_TREE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace andweorc::report {

// Function names as small ids; a name lives while a node uses it.
class NameTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t find(const std::string& name) const;  // kNone when absent
  uint32_t ref(const std::string& name);         // one more use
  void unref(uint32_t id);
  const std::string& name(uint32_t id) const { return names_[id]; }
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
  std::vector<uint32_t> uses_;
  std::vector<uint32_t> free_;
};

// A flame graph of one span, pruned for display: nodes in preorder,
// siblings by name, each with its inclusive weight.
struct FlameGraph {
  uint64_t samples = 0;     // weighted samples in the span (the root)
  uint64_t cut = 0;         // of which deeper frames were not kept (node cap)
  size_t pruned_nodes = 0;  // nodes left out, being under the threshold
  uint64_t pruned_samples = 0;  // the weight of the outermost of those
  std::vector<std::string> names;
  struct Node {
    uint32_t name = 0;   // index into names
    uint64_t value = 0;  // inclusive weight
    uint32_t depth = 1;  // 1: an outermost frame (the root is implicit)
    bool operator==(const Node&) const = default;
  };
  std::vector<Node> nodes;
  // A differential graph (profile_flame.h): another profile's samples at
  // each node's path (one per node), and all of its samples.
  std::vector<uint64_t> base;
  uint64_t base_samples = 0;
};

// What a page is sent by default: frames of at least 0.5% of the span's
// samples, at most 1500 of them (a page stays small and quick to draw).
inline constexpr double kFlameMinShare = 0.005;
inline constexpr size_t kFlameMaxFrames = 1500;

// The pseudo-frame a cut weight shows as, under the frame it stopped at.
inline constexpr const char* kCutFrameName = "[deeper frames not kept]";

class StackTree {
 public:
  static constexpr uint32_t kRoot = 0;
  // Where one stack's weight was put: the node of its innermost kept
  // frame, and whether frames below it were cut.
  struct Place {
    uint32_t node = kRoot;
    bool cut = false;
    bool operator<(const Place& o) const {
      return node != o.node ? node < o.node : cut < o.cut;
    }
  };

  StackTree(NameTable* names, size_t max_nodes);
  ~StackTree();
  StackTree(const StackTree&) = delete;
  StackTree& operator=(const StackTree&) = delete;

  // Adds `weight` (> 0) for a stack of function names, outermost first.
  Place add(const std::vector<std::string>& stack, uint64_t weight);
  // The weight of the node at `path` (outermost first), 0 when absent.
  uint64_t weight_of(const std::vector<std::string>& path) const;
  // How many frames of `stack` have no node yet (what add() would make).
  size_t missing(const std::vector<std::string>& stack) const;
  // Takes back weight that add() put at `p`; nodes left without weight
  // are freed.
  void remove(Place p, uint64_t weight);
  // Frees at least a quarter of the nodes, the lightest (a node is never
  // heavier than its parent, so whole subtrees go): each freed subtree's
  // weight becomes its parent's cut. Returns the weight that so lost its
  // frames (cut weight folded again is not counted twice).
  uint64_t compact();

  size_t nodes() const { return live_; }  // without the root
  size_t max_nodes() const { return max_nodes_; }
  uint64_t weight() const { return nodes_[kRoot].total; }
  uint64_t cut() const { return cut_; }

  // The nodes whose weight is at least min_share of the whole and among
  // the `max_out` heaviest (ties: fewer), cut weights as kCutFrameName
  // children.
  FlameGraph graph(double min_share, size_t max_out) const;

 private:
  struct Node {
    uint32_t name = NameTable::kNone;  // kNone: free (or the root)
    uint32_t parent = kRoot;
    uint64_t total = 0;  // inclusive weight
    uint64_t cut = 0;    // of total, below this frame but not kept
  };
  static uint64_t key(uint32_t parent, uint32_t name) {
    return (uint64_t(parent) << 32) | name;
  }
  uint32_t child(uint32_t parent, const std::string& name) const;  // or kNone
  uint32_t make_child(uint32_t parent, const std::string& name);
  void free_node(uint32_t id);

  NameTable* names_;
  size_t max_nodes_;
  std::vector<Node> nodes_;  // [0] is the root
  std::vector<uint32_t> free_;
  std::unordered_map<uint64_t, uint32_t> children_;  // key(parent, name)
  size_t live_ = 0;
  uint64_t cut_ = 0;
};

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_STACK_TREE_H_
