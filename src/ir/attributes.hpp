// Typed reads of a node's attributes (ir/ops.def names which fields each op
// uses), so no executor decodes Node's catch-all fields its own way.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.hpp"

namespace ss::ir {

// The part of one axis a slice keeps, an index takes, or a place fills
// (place: the slice's or the index's it reverses).
struct AxisPart {
  std::int64_t axis = 0;
  bool index = false;      // one position, `start`; the axis goes (an index) or comes back
  std::int64_t start = 0;  // an index: negative counts from the axis' end
  std::int64_t end = 0;    // exclusive; counted back from the axis' end when `from_end`
  bool from_end = false;

  // [first, last) in an axis of `size`; an index's position resolved.
  std::int64_t first(std::int64_t size) const { return index && start < 0 ? start + size : start; }
  std::int64_t last(std::int64_t size) const {
    return index ? first(size) + 1 : from_end ? size - end : end;
  }
  // Whether the part lies within an axis of `size` (else the reference's
  // RangeError).
  bool fits(std::int64_t size) const {
    return first(size) >= 0 && first(size) <= last(size) && last(size) <= size &&
           (!index || first(size) < size);
  }
};

// For slice, index and place.
inline AxisPart axis_part(const Node& n) {
  AxisPart p;
  p.axis = n.axes.at(0);
  if (n.op == Op::index || (n.op == Op::place && n.ints.empty())) {
    p.index = true;
    p.start = static_cast<std::int64_t>(n.number);
    return p;
  }
  p.start = n.ints.at(0);
  p.end = n.ints.at(1);
  p.from_end = n.keep;
  return p;
}

struct PadWidths {
  std::int64_t axis = 0, before = 0, after = 0;
  double value = 0;
};

inline PadWidths pad_of(const Node& n) {
  return {n.axes.at(0), n.ints.at(0), n.ints.at(1), n.number};
}

// random: the draws' kind, their two parameters, seed and stream.
struct RandomDraw {
  std::string kind;     // "normal" or "uniform"
  double a = 0, b = 1;  // mean and std, or low and high
  std::int64_t seed = 0, stream = 0;
};

inline RandomDraw random_of(const Node& n) {
  RandomDraw r;
  r.kind = n.name;
  if (n.values.size() > 0) r.a = n.values[0];
  if (n.values.size() > 1) r.b = n.values[1];
  if (n.ints.size() > 0) r.seed = n.ints[0];
  if (n.ints.size() > 1) r.stream = n.ints[1];
  return r;
}

}  // namespace ss::ir
