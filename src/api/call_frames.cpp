// Frames made for a call's input shapes: by the first call at them
// (Impl::new_frame), or ahead of the calls by Module::reserve, which
// checks the sizes it is given before anything is made from them.
#include <set>

#include "api/module_impl.hpp"
#include "diag/codes.hpp"
#include "runtime/core/executor.hpp"
#include "runtime/core/out_of_memory.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/nearest.hpp"

namespace ss {
namespace {

// The generic axes a function's inputs have (`b` of `[b D]`, `b` and `t`
// of `[b*t]`): the sizes a reserve needs.
std::set<std::string> reserve_axes(const ir::Graph& graph) {
  std::set<std::string> out;
  for (const int id : graph.inputs)
    for (const auto& axis : graph.nodes[static_cast<std::size_t>(id)].type.axes)
      for (const auto& f : axis.factors)
        if (f.kind == types::Factor::Kind::generic) out.insert(f.name);
  return out;
}

// E1605 for a size the function can't take: negative, or for an axis its
// inputs lack.
std::optional<Diagnostic> unusable_reserve_size(const std::string& function,
                                                const std::set<std::string>& generic,
                                                const std::map<std::string, std::int64_t>& sizes) {
  for (const auto& [name, size] : sizes) {
    if (!generic.count(name))
      return diag::error(diag::Code::E1605,
                         "reserving `" + function + "` was given a size for `" + name +
                             "`, which none of its inputs has",
                         generic.empty()
                             ? std::string("it has no generic axes")
                             : "its generic axes: " + support::quoted_list(std::vector<std::string>(
                                                          generic.begin(), generic.end())));
    if (size < 0)
      return diag::error(diag::Code::E1605,
                         "reserving `" + function + "` was given the size " + std::to_string(size) +
                             " for `" + name + "`",
                         "a size is 0 or more");
  }
  return std::nullopt;
}

}  // namespace

// A frame for the inputs' shapes (by name), checked as run_device checks
// them (E1603, E1605, E1613 into `r`), its memory not planned yet.
std::unique_ptr<api::CallFrame> Module::Impl::new_frame(
    const std::string& function, const Callable& c,
    const std::map<std::string, runtime::Tensor>& inputs, CallResult& r) const {
  const ir::Graph& graph = *c.graph;
  if (auto bad = runtime::match_arguments(c.inputs, inputs, runtime::ArgumentSource::host)) {
    r.diagnostics.push_back(std::move(*bad));
    return nullptr;
  }
  if (auto empty = empty_average(function, c, inputs)) {
    r.diagnostics.push_back(std::move(*empty));
    return nullptr;
  }
  auto frame = std::make_unique<api::CallFrame>();
  try {
    frame->graph.sizes = runtime::bind_sizes(graph, inputs, compiled->typed.dims);
  } catch (const runtime::InputMismatch& e) {
    r.diagnostics.push_back(runtime::mismatched_argument(e.what(), runtime::ArgumentSource::host));
    return nullptr;
  }
  frame->held.resize(c.sources.size());
  frame->field_of.resize(c.sources.size());
  frame->field.resize(c.sources.size(), nullptr);
  for (const int id : graph.inputs) {
    const runtime::Tensor& t = inputs.at(graph.nodes[static_cast<std::size_t>(id)].name);
    frame->dtypes.push_back(t.dtype());
    frame->shapes.push_back(t.shape());
  }
  frame->graph.values.resize(graph.nodes.size());
  if (c.whole)
    for (const int id : graph.inputs)
      frame->named_at.push_back(&frame->named[graph.nodes[static_cast<std::size_t>(id)].name]);
  return frame;
}

std::vector<Diagnostic> Module::reserve(const std::string& function,
                                        const std::map<std::string, std::int64_t>& sizes) const {
  try {
    return current()->reserve(function, sizes);
  } catch (const std::exception& e) {  // memory no machine has (E1611), or a bug
    return {runtime::unexpected_failure(e)};
  }
}

// A frame made ahead of the calls: the function run once, on zeros, at
// the inputs' shapes its types give with `sizes`, so its memory is planned
// and kept; the results are dropped. The sizes are checked wherever calls
// run (E1605; E1611 for inputs larger than the machine's memory), though
// only calls that run in frames keep one.
std::vector<Diagnostic> Module::Impl::reserve(
    const std::string& function, const std::map<std::string, std::int64_t>& sizes) const {
  CallResult r;
  if (auto empty = empty_module()) return {std::move(*empty)};
  if (!compiled->ok()) return compiled->diagnostics;
  const auto sig = program.functions.find(function);
  const auto prepared = callable.find(function);
  if (sig == program.functions.end() || sig->second.is_extern || sig->second.controller ||
      prepared == callable.end())
    return {diag::error(diag::Code::E1604,
                        "`" + function + "` isn't a device function of this program",
                        api::unknown_function_help(compiled->typed, function, false))};
  const Callable& c = prepared->second;
  const ir::Graph& graph = *c.graph;
  if (auto bad = unusable_reserve_size(function, reserve_axes(graph), sizes))
    return {std::move(*bad)};
  const auto& dims = compiled->typed.dims;
  std::vector<std::pair<runtime::DType, runtime::Shape>> shapes;
  for (const int id : graph.inputs) {
    const ir::Node& n = graph.nodes[static_cast<std::size_t>(id)];
    runtime::Shape shape;
    for (const auto& axis : n.type.axes) {
      const auto size = runtime::size_of(axis, sizes, dims);  // OutOfMemory past an int64
      if (!size)
        return {diag::error(diag::Code::E1605,
                            "reserving `" + function + "` needs a size for `" + axis.str() +
                                "` (of `" + n.name + "`, a " + n.type.str() + ")",
                            "give each generic axis its size: {{\"b\", 64}}")};
      shape.push_back(*size);
    }
    const auto dtype = runtime::dtype_of(n.type.elem);
    const std::size_t bytes =
        runtime::checked_bytes(runtime::element_count(shape), runtime::dtype_size(dtype));
    runtime::check_fits_machine(bytes, bytes);
    shapes.emplace_back(dtype, std::move(shape));
  }
  if (!c.framed || load_options.memory_limit > 0) return {};  // its calls don't run in frames
  std::map<std::string, runtime::Tensor> inputs;
  for (std::size_t k = 0; k < c.sources.size(); ++k)
    inputs.emplace(graph.nodes[static_cast<std::size_t>(graph.inputs[k])].name,
                   runtime::Tensor::zeros(shapes[k].first, shapes[k].second));
  auto frame = new_frame(function, c, inputs, r);
  if (!frame) return r.diagnostics;
  for (std::size_t k = 0; k < c.sources.size(); ++k) {
    const auto id = static_cast<std::size_t>(graph.inputs[k]);
    const runtime::Tensor& zeros = inputs.at(graph.nodes[id].name);
    frame->graph.values[id] = zeros;
    // A host tensor's borrow to come, made now (reborrow points it).
    frame->held[k] =
        c.sources[k].seed ? zeros : runtime::Tensor::borrow(nullptr, zeros.dtype(), {});
  }
  inputs.clear();
  {
    runtime::FrameMemory::Scope planned(frame->memory);
    try {
      runtime::run_graph_in(graph, frame->graph, dims, executor.get());
    } catch (const std::exception& e) {
      frame->graph.clear();
      return {run_failure(function, e)};
    }
    frame->graph.clear();
  }
  c.frames->give(std::move(frame));
  return {};
}

}  // namespace ss
