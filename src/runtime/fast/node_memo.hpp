// A thread's memo of what the fast executor derives from a node and its
// operands' shapes alone (an einsum's plan, a rearrange's, an attention's
// bound layout): made on a node's first run at those shapes, found on the
// next, so a steady call allocates nothing. The last kEntries are kept, the
// oldest replaced. A node is known by its address and what the plans read
// of it (an address a freed graph's node had may be another node's now).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime::fast {

struct NodeKey {
  const ir::Node* node = nullptr;
  ir::Op op{};
  int sub = 0;
  bool keep = false;
  std::size_t inputs = 0;
  std::vector<std::vector<std::vector<std::string>>> groups_in;
  std::vector<std::vector<std::string>> groups_out;

  static NodeKey of(const ir::Node& n) {
    return {&n, n.op, n.sub, n.keep, n.in.size(), n.groups_in, n.groups_out};
  }
  bool is(const ir::Node& n) const {
    return node == &n && op == n.op && sub == n.sub && keep == n.keep && inputs == n.in.size() &&
           groups_in == n.groups_in && groups_out == n.groups_out;
  }
};

// Entries of `Value`, each under a node and a list of shapes (and strides,
// or sizes: whatever else the value depends on), `Tag` telling memos of one
// Value type apart.
template <typename Value, typename Tag, std::size_t kEntries = 64>
class NodeMemo {
 public:
  struct Entry {
    NodeKey key;
    std::vector<Shape> shapes;
    Value value;
  };

  // The entry for `n` at `shapes` (a list of Shape), or null.
  template <typename Shapes>
  static const Value* find(const ir::Node& n, const Shapes& shapes) {
    for (const Entry& e : entries())
      if (e.key.node == &n && same(e.shapes, shapes) && e.key.is(n)) return &e.value;
    return nullptr;
  }
  template <typename Shapes>
  static const Value& keep(const ir::Node& n, const Shapes& shapes, Value value) {
    Entry& e = entries()[next()];
    next() = (next() + 1) % kEntries;
    e.key = NodeKey::of(n);
    e.shapes.assign(shapes.begin(), shapes.end());
    e.value = std::move(value);
    return e.value;
  }

 private:
  template <typename Shapes>
  static bool same(const std::vector<Shape>& kept, const Shapes& shapes) {
    if (kept.size() != shapes.size()) return false;
    std::size_t k = 0;
    for (const Shape& s : shapes)
      if (kept[k++] != s) return false;
    return true;
  }
  static std::array<Entry, kEntries>& entries() {
    thread_local std::array<Entry, kEntries> e;
    return e;
  }
  static std::size_t& next() {
    thread_local std::size_t n = 0;
    return n;
  }
};

}  // namespace ss::runtime::fast
