#include "runtime/controller/controller_impl.hpp"

namespace ss::runtime::control {

using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

// Runs a tensor expression's graph: its inputs read from the slots (a
// structure's by path, "m.w1"), its results assembled as the checker
// typed them, and the structures it changed (`mut`) written back.
Value Controller::graph(const ir::HostFunction& fn, const HostInstr& in,
                        std::vector<Value>& slots) {
  const ir::Graph& g = fn.graphs[static_cast<std::size_t>(in.target)];
  std::map<std::string, Tensor> inputs;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const std::string& name = g.nodes[static_cast<std::size_t>(g.inputs[i])].name;
    const Value& v = slots[static_cast<std::size_t>(in.args[i])];
    const auto dot = name.find('.');
    if (name == "$seed") {  // dropout's randomness: new at every run, the same every time
      inputs[name] = Tensor::scalar(DType::i32, static_cast<double>(dropout_runs_++));
      continue;
    }
    if (dot == std::string::npos) {
      if (v.kind == Value::Kind::integer && !support::fits_i32(v.whole))
        fail(diag::Code::E1510, in.span,
             (name[0] == '$' ? "an integer" : "`" + name + "`") + " is " + std::to_string(v.whole) +
                 ", past a tensor's i32",
             "used in this tensor expression",
             "tensor integers are i32 (at most 2147483647): keep larger numbers in the "
             "controller, or make them floats first (`n * 1.0`)");
      inputs[name] = as_tensor(v);
      continue;
    }
    const auto field = v.fields.find(name.substr(dot + 1));
    if (field == v.fields.end()) throw std::logic_error("no value for the graph input " + name);
    inputs[name] = field->second;
  }
  std::vector<Tensor> outputs;
  try {
    outputs = run(g, inputs);
  } catch (const std::exception& failure) {
    if (auto d = program_failure(failure, map_, in.span)) throw Failure{std::move(*d)};
    throw;
  }
  const std::size_t results = outputs.size() - g.updated.size();
  for (std::size_t k = 0; k < g.updated.size(); ++k) {
    const std::string& path = g.updated[k];
    slots[static_cast<std::size_t>(in.writes[k])].fields[path.substr(path.find('.') + 1)] =
        outputs[results + k];
  }
  std::size_t next = 0;
  const auto take = [&](HostKind kind, const std::string& model) {
    if (kind == HostKind::model) {  // a gradient: the model's tensors, in order
      Value v = of_kind(Value::Kind::model);
      v.text = model;
      for (const auto& param : model_layout(p_, model)) v.fields[param.path] = outputs.at(next++);
      return v;
    }
    if (kind == HostKind::none) return of_kind(Value::Kind::none);
    return from_output(outputs.at(next++), kind);
  };
  if (in.kind != HostKind::tuple) return take(in.kind, in.models.empty() ? "" : in.models[0]);
  Value v = of_kind(Value::Kind::tuple);
  for (std::size_t i = 0; i < in.items.size(); ++i)
    v.items.push_back(take(in.items[i], in.models[i]));
  return v;
}

// A graph on the workers when it has a batch to split, else here.
std::vector<Tensor> Controller::run(const ir::Graph& g,
                                    const std::map<std::string, Tensor>& inputs) {
  if (!options_.devices || !has_split_input(g))
    return run_graph(g, inputs, p_.dims, nullptr, options_.executor);
  auto found = distributed_.find(&g);
  if (found == distributed_.end()) found = distributed_.emplace(&g, ir::distribute(g)).first;
  std::vector<WorkerStats> stats;
  auto outputs =
      options_.devices->run(found->second, inputs, p_.dims, options_.stats ? &stats : nullptr);
  if (options_.stats) host_call("the stats callback", [&] { options_.stats(g.name, stats); });
  return outputs;
}

// `data |> map(f)`: f (a device function from one record to another) run
// on each example; the results make a new dataset, in the same order.
Value Controller::map_examples(const Value& data, const std::string& function, diag::Span span) {
  const auto& fn = p_.functions.at(function);
  const ir::Graph* lowered = p_.graph(function);
  // What lowering couldn't make of it was a load error; only a bug gets here.
  if (!lowered) throw std::logic_error("`" + function + "` wasn't lowered");
  const ir::Graph& g = *lowered;
  const std::string param = fn.params.at(0).name;
  const std::string record = fn.ret.name;
  const auto& fields = p_.records.at(record);
  std::vector<std::vector<double>> columns(fields.size());
  std::vector<Shape> shapes(fields.size());
  std::vector<DType> dtypes(fields.size(), DType::f32);
  const std::int64_t n = data.data ? data.data->size() : 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::map<std::string, Tensor> inputs;
    for (auto& [name, t] : data.data->batch(k, k + 1)) inputs[param + "." + name] = t.select(0, 0);
    std::vector<Tensor> out;
    try {
      out = run_graph(g, inputs, p_.dims, nullptr, options_.executor);
    } catch (const std::exception& failure) {
      if (auto d = program_failure(failure, map_, span)) throw Failure{std::move(*d)};
      throw;
    }
    for (std::size_t f = 0; f < fields.size() && f < out.size(); ++f) {
      const auto values = out[f].values();
      columns[f].insert(columns[f].end(), values.begin(), values.end());
      shapes[f] = out[f].shape();
      dtypes[f] = out[f].dtype();
    }
  }
  auto mapped = std::make_shared<Dataset>();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    Shape shape = shapes[f];
    shape.insert(shape.begin(), n);
    mapped->names.push_back(fields[f].first);
    mapped->columns.push_back(Tensor::from_values(dtypes[f], shape, columns[f]));
  }
  for (std::int64_t k = 0; k < n; ++k) mapped->rows.push_back(k);
  Value v = of_kind(Value::Kind::dataset);
  v.text = record;
  v.data = std::move(mapped);
  return v;
}

}  // namespace ss::runtime::control
