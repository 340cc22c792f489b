#include "runtime/core/executor.hpp"

#include "runtime/core/out_of_memory.hpp"
#include "types/size_arith.hpp"

namespace ss::runtime {

using types::Factor;

std::pair<int, std::string> batch_axis(const types::Type& t, const std::set<std::string>& batch) {
  for (std::size_t k = 0; k < t.axes.size(); ++k) {
    const auto& axis = t.axes[k];
    if (axis.single() && axis.factors[0].kind == Factor::Kind::generic &&
        batch.count(axis.factors[0].name))
      return {static_cast<int>(k), axis.factors[0].name};
  }
  return {-1, {}};
}

std::optional<std::int64_t> size_of(const types::Axis& axis,
                                    const std::map<std::string, std::int64_t>& sizes,
                                    const Dims& dims) {
  std::int64_t n = 1;
  for (const auto& f : axis.factors) {
    if (f.kind == Factor::Kind::literal) {
      n = checked_product(n, f.value);
    } else if (f.kind == Factor::Kind::dim) {
      const auto it = dims.find(f.name);
      if (it == dims.end() || !it->second) return std::nullopt;
      n = checked_product(n, *it->second);
    } else if (const auto it = sizes.find(f.name); it != sizes.end()) {
      n = checked_product(n, it->second);
    } else {
      return std::nullopt;
    }
  }
  return n;
}

Shape shape_of(const types::Type& type, const std::map<std::string, std::int64_t>& sizes,
               const Dims& dims) {
  Shape shape;
  for (const auto& axis : type.axes) {
    const auto size = size_of(axis, sizes, dims);
    if (!size) throw InternalError("a value of unknown size " + axis.str());
    shape.push_back(*size);
  }
  return shape;
}

std::map<std::string, std::int64_t> bind_sizes(const ir::Graph& graph,
                                               const std::map<std::string, Tensor>& inputs,
                                               const Dims& dims) {
  std::map<std::string, std::int64_t> sizes;
  // First the axes that are one generic factor, then check every axis.
  for (int pass = 0; pass < 2; ++pass) {
    for (const int id : graph.inputs) {
      const ir::Node& n = graph.nodes[static_cast<std::size_t>(id)];
      const auto it = inputs.find(n.name);
      if (it == inputs.end()) throw InputMismatch(n.name, "no value given for `" + n.name + "`");
      const Tensor& t = it->second;
      if (t.rank() != static_cast<std::int64_t>(n.type.axes.size()))
        throw InputMismatch(n.name, "`" + n.name + "` is " + n.type.str() +
                                        ", given a tensor of shape " + shape_str(t.shape()));
      if (t.dtype() != dtype_of(n.type.elem))
        throw InputMismatch(n.name, "`" + n.name + "` holds " + n.type.elem.str() + ", given " +
                                        dtype_name(t.dtype()));
      for (std::size_t k = 0; k < n.type.axes.size(); ++k) {
        const auto& axis = n.type.axes[k];
        const std::int64_t given = t.dim(static_cast<std::int64_t>(k));
        if (pass == 0 && axis.single() && axis.factors[0].kind == Factor::Kind::generic) {
          const auto [at, fresh] = sizes.emplace(axis.factors[0].name, given);
          if (!fresh && at->second != given)
            throw InputMismatch(n.name, "`" + n.name + "`'s axis " + axis.str() + " is " +
                                            std::to_string(given) + ", but " + axis.str() + " is " +
                                            std::to_string(at->second) + " in another input");
          continue;
        }
        if (pass == 1) {
          const auto want = size_of(axis, sizes, dims);
          if (want && *want != given)
            throw InputMismatch(n.name, "`" + n.name + "` is " + n.type.str() + ": its axis " +
                                            axis.str() + " has size " + std::to_string(*want) +
                                            ", given " + std::to_string(given));
        }
      }
    }
  }
  return sizes;
}

std::string GraphExecutor::listing(const ir::Graph& g, std::string_view pass) const {
  if (pass == "fuse") return "graph " + g.name + ": no fused kernels (" + name() + ")\n";
  const auto releases = this->releases(g);
  return "graph " + g.name + "\n  on " + name() + "\n" +
         ir::print_releases(releases ? *releases : ir::plan_releases(g));
}

}  // namespace ss::runtime
