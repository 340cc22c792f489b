#include "ir/distribute.hpp"

#include <map>

#include "ir/attention.hpp"
#include "ir/attributes.hpp"
#include "ir/ops.hpp"

namespace ss::ir {
namespace {

using types::Axis;
using types::Factor;
using types::Type;

// mixed: a partial part plus a whole part (a loss plus a penalty on the
// parameters), kept apart so that the partial part is reduced once.
enum class Place { whole, split, partial, mixed };

Type f32_scalar() {
  return Type::tensor({}, types::Elem{types::ElemKind::f32, {}, false});
}

class Distributor {
  struct Mixed {
    int partial;  // output nodes; -1 for none
    int whole;
  };

 public:
  explicit Distributor(const Graph& g) : src_(g) {
    out_.name = g.name;
    out_.symbols = g.symbols;
    out_.batch = g.batch;
    out_.updated = g.updated;
  }

  Graph run() {
    for (std::size_t i = 0; i < src_.nodes.size(); ++i) {
      const auto [id, place] = node(src_.nodes[i]);
      map_.push_back(id);
      place_.push_back(place);
    }
    for (const int x : src_.inputs) out_.inputs.push_back(map_[static_cast<std::size_t>(x)]);
    for (const int x : src_.outputs) {
      out_.outputs.push_back(whole(x));
      out_.split_outputs.push_back(place_[static_cast<std::size_t>(x)] == Place::split);
    }
    if (const std::string bad = verify(out_); !bad.empty())
      throw std::logic_error("distribution made a bad graph: " + bad);
    return std::move(out_);
  }

 private:
  // The position of the batch axis in a type, or -1.
  int batch_position(const Type& t) const {
    for (std::size_t k = 0; k < t.axes.size(); ++k)
      for (const auto& f : t.axes[k].factors)
        if (f.kind == Factor::Kind::generic && src_.batch.count(f.name)) return static_cast<int>(k);
    return -1;
  }

  const Node& at(int src) const { return src_.nodes[static_cast<std::size_t>(src)]; }
  Place place(int src) const { return place_[static_cast<std::size_t>(src)]; }

  // A source node's value, whole when it was partial (one all_reduce, shared
  // by every use).
  int whole(int src) {
    if (place(src) == Place::mixed) {
      const auto found = joined_.find(src);
      if (found != joined_.end()) return found->second;
      const Mixed m = mixed_.at(src);
      const int id = out_.add({.op = Op::binary,
                               .in = {all_reduce(m.partial), m.whole},
                               .sub = static_cast<int>(Binary::add),
                               .type = at(src).type,
                               .span = at(src).span});
      joined_[src] = id;
      return id;
    }
    const int id = map_[static_cast<std::size_t>(src)];
    return place(src) == Place::partial ? all_reduce(id) : id;
  }

  // One all_reduce per partial node, shared by every use.
  int all_reduce(int id) {
    const auto found = reduced_.find(id);
    if (found != reduced_.end()) return found->second;
    const Node& n = out_.nodes[static_cast<std::size_t>(id)];
    const int r = out_.add({.op = Op::all_reduce, .in = {id}, .type = n.type, .span = n.span});
    reduced_[id] = r;
    return r;
  }

  // `a +/- b` where each is whole, partial or mixed, at least one not whole:
  // the partial parts and the whole parts combine apart.
  std::pair<int, Place> add_apart(const Node& n, int a, int b) {
    const auto parts = [&](int src) -> Mixed {
      const int id = map_[static_cast<std::size_t>(src)];
      switch (place(src)) {
        case Place::partial:
          return {id, -1};
        case Place::mixed:
          return mixed_.at(src);
        default:
          return {-1, id};
      }
    };
    const Mixed x = parts(a), y = parts(b);
    const auto combine = [&](int l, int r) {
      if (l < 0 && r < 0) return -1;
      if (r < 0) return l;
      if (l < 0 && n.sub == static_cast<int>(Binary::add)) return r;
      if (l < 0) {
        const Type t = out_.nodes[static_cast<std::size_t>(r)].type;
        return out_.add({.op = Op::unary,
                         .in = {r},
                         .sub = static_cast<int>(Unary::neg),
                         .type = t,
                         .span = n.span});
      }
      Node c = n;
      c.in = {l, r};
      return out_.add(std::move(c));
    };
    const int partial = combine(x.partial, y.partial), whole = combine(x.whole, y.whole);
    if (whole < 0) return {partial, Place::partial};
    mixed_[static_cast<int>(map_.size())] = {partial, whole};  // map_'s next is this node
    return {partial, Place::mixed};
  }

  // The number of elements of a value of the given axes, as an f32 scalar
  // (a batch axis's Op::size is the whole batch's on every worker).
  int count(const std::vector<Axis>& axes, diag::Span span) {
    int total = out_.add({.op = Op::constant, .number = 1, .type = f32_scalar(), .span = span});
    for (const auto& axis : axes)
      for (const auto& f : axis.factors) {
        Node n{.type = f32_scalar(), .span = span};
        if (f.kind == Factor::Kind::literal) {
          n.op = Op::constant;
          n.number = static_cast<double>(f.value);
        } else if (f.kind == Factor::Kind::opaque) {
          throw NoDistributedLowering("a count over an axis of unknown size " + axis.str());
        } else {
          n.op = Op::size;
          n.name = f.name;
        }
        const int factor = out_.add(std::move(n));
        total = out_.add({.op = Op::binary,
                          .in = {total, factor},
                          .sub = static_cast<int>(Binary::mul),
                          .type = f32_scalar(),
                          .span = span});
      }
    return total;
  }

  int divide(int x, int by, const Type& t, diag::Span span) {
    return out_.add({.op = Op::binary,
                     .in = {x, by},
                     .sub = static_cast<int>(Binary::div),
                     .type = t,
                     .span = span});
  }

  std::vector<Axis> axes_at(const Type& t, const std::vector<std::int64_t>& positions) {
    std::vector<Axis> out;
    for (const auto p : positions) out.push_back(t.axes.at(static_cast<std::size_t>(p)));
    return out;
  }

  [[noreturn]] void no_lowering(const Node& n) {
    throw NoDistributedLowering(std::string("`") + op_name(n.op) +
                                "` along the batch axis has no lowering for several devices");
  }

  std::pair<int, Place> node(const Node& src) {
    Node n = src;
    const bool apart = n.op == Op::binary && (static_cast<Binary>(n.sub) == Binary::add ||
                                              static_cast<Binary>(n.sub) == Binary::sub);
    if (apart) {
      bool split = false, reduced = false;
      for (const int x : n.in) {
        split = split || place(x) == Place::split;
        reduced = reduced || place(x) == Place::partial || place(x) == Place::mixed;
      }
      if (reduced && !split) return add_apart(n, n.in[0], n.in[1]);
    }
    std::vector<Place> places;
    for (auto& x : n.in) {
      places.push_back(place(x) == Place::mixed ? Place::whole : place(x));
      x = place(x) == Place::mixed ? whole(x) : map_[static_cast<std::size_t>(x)];
    }
    const auto count_of = [&](Place p) {
      int c = 0;
      for (const auto q : places) c += q == p;
      return c;
    };
    const bool out_batch = batch_position(n.type) >= 0;
    // Every input whole or split: partials meet an all_reduce first.
    const auto materialise = [&] {
      for (std::size_t k = 0; k < n.in.size(); ++k)
        if (places[k] == Place::partial) {
          n.in[k] = whole(src.in[k]);
          places[k] = Place::whole;
        }
    };
    const auto add = [&](Place p) { return std::pair{out_.add(n), p}; };

    switch (n.op) {
      case Op::input:
        return add(out_batch ? Place::split : Place::whole);
      case Op::constant:
      case Op::size:
      case Op::literal:
        return add(Place::whole);
      case Op::fill:
      case Op::arange:
      case Op::random:
        materialise();
        return add(out_batch ? Place::split : Place::whole);
      case Op::all_reduce:
        throw std::logic_error("a graph distributed twice");

      case Op::reduce: {
        const auto op = static_cast<Reduce>(n.sub);
        const bool linear = op == Reduce::sum || op == Reduce::mean;
        materialise();
        if (places[0] != Place::split) return add(Place::whole);
        const int batch_at = batch_position(at_type(src.in[0]));
        bool across = false;
        for (const auto a : n.axes) across = across || a == batch_at;
        if (!across) return add(Place::split);
        if (!linear) no_lowering(n);
        // A count (autodiff's sum of ones): the whole size, with no collective.
        if (op == Reduce::sum && at(src.in[0]).op == Op::fill) {
          const Node& ones = at(src.in[0]);
          int c = count(axes_at(ones.type, n.axes), n.span);
          if (ones.number != 1) {
            const int k = out_.add(
                {.op = Op::constant, .number = ones.number, .type = f32_scalar(), .span = n.span});
            c = out_.add({.op = Op::binary,
                          .in = {c, k},
                          .sub = static_cast<int>(Binary::mul),
                          .type = f32_scalar(),
                          .span = n.span});
          }
          if (!n.type.axes.empty()) {  // broadcast the count to the reduced shape
            const int zeros =
                out_.add({.op = Op::fill, .number = 0, .type = n.type, .span = n.span});
            c = out_.add({.op = Op::binary,
                          .in = {zeros, c},
                          .sub = static_cast<int>(Binary::add),
                          .type = n.type,
                          .span = n.span});
          } else if (!(n.type.elem == f32_scalar().elem)) {
            c = out_.add({.op = Op::cast, .in = {c}, .type = n.type, .span = n.span});
          }
          return {c, Place::whole};
        }
        if (op == Reduce::sum) return add(Place::partial);
        const auto reduced = axes_at(at_type(src.in[0]), n.axes);
        n.sub = static_cast<int>(Reduce::sum);
        const int local = out_.add(n);
        return {divide(local, count(reduced, n.span), n.type, n.span), Place::partial};
      }

      case Op::matmul:
      case Op::einsum:
      case Op::scatter_add:  // a sum of rows: the values' batch axis adds up
        materialise();
        if (count_of(Place::split) == 0) return add(Place::whole);
        return add(out_batch ? Place::split : Place::partial);

      case Op::einops: {
        const bool linear = n.name.empty() || n.name == "sum" || n.name == "mean";
        materialise();
        if (places[0] != Place::split) return add(Place::whole);
        if (out_batch) return add(Place::split);
        if (!linear) no_lowering(n);
        if (n.name == "sum") return add(Place::partial);
        n.name = "sum";  // mean: the local sum, over the whole count
        const int local = out_.add(n);
        const Type& in_type = at_type(src.in[0]);
        const int scaled = out_.add({.op = Op::binary,
                                     .in = {local, count(n.type.axes, n.span)},
                                     .sub = static_cast<int>(Binary::mul),
                                     .type = n.type,
                                     .span = n.span});
        return {divide(scaled, count(in_type.axes, n.span), n.type, n.span), Place::partial};
      }

      case Op::loop: {  // its body as each worker runs it, each step
        materialise();
        Graph body = *src.body;
        body.batch = src_.batch;
        const LoopShape shape = loop_of(src);
        for (std::size_t k = shape.carries; k < shape.carries + shape.stacked; ++k)
          if (batch_position(at_type(src.in[k])) == shape.axes[k - shape.carries])
            no_lowering(src);  // a scan along the batch axis (E1801)
        n.body = std::make_shared<const Graph>(distribute(body));
        return add(n.body->split_outputs.at(0) ? Place::split : Place::whole);
      }
      case Op::loop_part: {
        const Node& loop = out_.nodes[static_cast<std::size_t>(n.in[0])];
        return add(loop.body->split_outputs.at(static_cast<std::size_t>(n.number)) ? Place::split
                                                                                   : Place::whole);
      }

      case Op::cross_entropy: {
        materialise();
        if (places[0] != Place::split) return add(Place::whole);
        n.sub = 1;  // the local sum, over the whole count of positions
        const int local = out_.add(n);
        return {divide(local, count(at_type(src.in[1]).axes, n.span), n.type, n.span),
                Place::partial};
      }

      default:
        break;
    }

    // Everything else works on whole values, and a split one only away from
    // its batch axis.
    materialise();
    if (count_of(Place::split) == 0) return add(Place::whole);
    if (!out_batch) no_lowering(n);
    check_away_from_batch(src);
    return add(Place::split);
  }

  // Ops that work along an axis (ir/ops.def's kAway) must not work along
  // the batch axis.
  void check_away_from_batch(const Node& src) {
    if (op_info(src.op).split != OpInfo::kAway) return;
    const int at = src.in.empty() ? -1 : batch_position(at_type(src.in[0]));
    if (src.op == Op::causal) {  // the last two axes
      if (at >= static_cast<int>(at_type(src.in[0]).axes.size()) - 2) no_lowering(src);
    } else if (src.op == Op::gather) {  // rows of a split table
      if (at == 0) no_lowering(src);
    } else if (src.op == Op::attention || src.op == Op::attention_grad) {
      // each of q, k and v split along a batch letter, never i, j, d or e
      const AttentionLayout l = attention_of(src);
      const std::vector<std::string>* names[] = {&l.q, &l.k, &l.v};
      for (std::size_t k = 0; k < 3; ++k) {
        const int b = batch_position(at_type(src.in[k]));
        if (b < 0) continue;
        const std::string& x = names[k]->at(static_cast<std::size_t>(b));
        if (x == l.i || x == l.j || x == l.d || x == l.e) no_lowering(src);
      }
    } else {
      for (const auto a : src.axes)
        if (a == at) no_lowering(src);
    }
  }

  const Type& at_type(int src) const { return at(src).type; }

  const Graph& src_;
  Graph out_;
  std::vector<int> map_;
  std::vector<Place> place_;
  std::map<int, int> reduced_;  // partial output node -> its all_reduce
  std::map<int, Mixed> mixed_;  // by source node
  std::map<int, int> joined_;   // a mixed source node made whole
};

}  // namespace

Graph distribute(const Graph& g) {
  return Distributor(g).run();
}

}  // namespace ss::ir
