// libFuzzer target (the `sanitize` preset): real exports cut to at most 50
// nodes (tests/fuzz/onnx_model_corpus, make_onnx_model_seeds.py), mutated
// as models, not bytes: an input's dims (open, -1, 0, a stand-in's size),
// an attribute, a small integer initializer, a node's input rewired, a
// node dropped or its op changed, the opset. Each mutant is imported as a
// host would, without sizes (the generic attempt first) and with every open
// axis given a size (the sized import first), and held to what
// onnx_import_check.hpp says: no model ONNX's checker accepts crashes the
// host.
#include <random>
#include <string>

#include "onnx/onnx_pb.h"
#include "onnx_import_check.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

using Rng = std::mt19937;

std::int64_t pick(Rng& rng, std::initializer_list<std::int64_t> values) {
  return *(values.begin() + rng() % values.size());
}

void mutate_dim(onnx::ModelProto& m, Rng& rng) {
  auto* g = m.mutable_graph();
  if (g->input_size() == 0) return;
  auto* t = g->mutable_input(static_cast<int>(rng() % g->input_size()))->mutable_type();
  if (!t->has_tensor_type() || !t->tensor_type().has_shape()) return;
  auto* shape = t->mutable_tensor_type()->mutable_shape();
  if (shape->dim_size() == 0 || rng() % 8 == 0) {
    shape->add_dim()->set_dim_value(1 + rng() % 4);
    return;
  }
  auto* d = shape->mutable_dim(static_cast<int>(rng() % shape->dim_size()));
  switch (rng() % 4) {
    case 0:
      d->set_dim_value(pick(rng, {-1, 0, 1, 2, 3, 7, 64, 100003}));
      break;
    case 1:
      d->set_dim_param(rng() % 2 ? "?" : "n" + std::to_string(rng() % 3));
      break;
    case 2:
      d->clear_dim_value();
      d->clear_dim_param();
      break;
    default:
      shape->mutable_dim()->RemoveLast();
      break;
  }
}

void mutate_attribute(onnx::ModelProto& m, Rng& rng) {
  auto* g = m.mutable_graph();
  auto* n = g->mutable_node(static_cast<int>(rng() % g->node_size()));
  if (n->attribute_size() == 0) return;
  auto* a = n->mutable_attribute(static_cast<int>(rng() % n->attribute_size()));
  const std::int64_t nudge = pick(rng, {-2, -1, 0, 1, 2, 3, 1 << 20});
  if (a->type() == onnx::AttributeProto::INT) a->set_i(rng() % 2 ? a->i() + nudge : nudge);
  if (a->type() == onnx::AttributeProto::FLOAT) a->set_f(static_cast<float>(nudge) / 2);
  if (a->type() == onnx::AttributeProto::INTS) {
    if (a->ints_size() && rng() % 3)
      a->set_ints(static_cast<int>(rng() % a->ints_size()), nudge);
    else if (rng() % 2 && a->ints_size())
      a->mutable_ints()->RemoveLast();
    else
      a->add_ints(nudge);
  }
  if (a->type() == onnx::AttributeProto::STRING) a->set_s(rng() % 2 ? "" : "constant");
}

void mutate_initializer(onnx::ModelProto& m, Rng& rng) {
  auto* g = m.mutable_graph();
  if (g->initializer_size() == 0) return;
  auto* t = g->mutable_initializer(static_cast<int>(rng() % g->initializer_size()));
  if (t->data_type() != onnx::TensorProto::INT64) return;
  const std::int64_t v = pick(rng, {-1, 0, 1, 2, 3, -100003, 100003, 1LL << 40});
  if (t->int64_data_size())
    t->set_int64_data(static_cast<int>(rng() % t->int64_data_size()), v);
  else if (t->raw_data().size() >= 8) {
    std::string raw = t->raw_data();
    const std::size_t at = 8 * (rng() % (raw.size() / 8));
    for (int b = 0; b < 8; ++b) raw[at + b] = static_cast<char>((v >> (8 * b)) & 0xff);
    t->set_raw_data(raw);
  }
}

void rewire(onnx::ModelProto& m, Rng& rng) {
  auto* g = m.mutable_graph();
  const int k = static_cast<int>(rng() % g->node_size());
  auto* n = g->mutable_node(k);
  if (n->input_size() == 0) return;
  std::vector<std::string> names;
  for (const auto& v : g->input()) names.push_back(v.name());
  for (const auto& t : g->initializer()) names.push_back(t.name());
  for (int i = 0; i < k; ++i)
    for (const auto& o : g->node(i).output()) names.push_back(o);
  if (names.empty()) return;
  n->set_input(static_cast<int>(rng() % n->input_size()), names[rng() % names.size()]);
}

void mutate_node(onnx::ModelProto& m, Rng& rng) {
  static const char* const kOps[] = {
      "Add",   "Mul",       "Sub",       "Reshape",         "Slice",   "Gather",  "Concat",
      "Shape", "Expand",    "Where",     "Range",           "Cast",    "MatMul",  "Transpose",
      "Equal", "ScatterND", "Unsqueeze", "ConstantOfShape", "Softmax", "Squeeze", "Tile"};
  auto* g = m.mutable_graph();
  const int k = static_cast<int>(rng() % g->node_size());
  if (rng() % 2) {
    g->mutable_node(k)->set_op_type(kOps[rng() % std::size(kOps)]);
  } else {
    g->mutable_node()->DeleteSubrange(k, 1);
  }
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned seed) {
  onnx::ModelProto m;
  if (!m.ParseFromArray(data, static_cast<int>(size)) || m.graph().node_size() == 0)
    return LLVMFuzzerMutate(data, size, max_size);
  Rng rng(seed);
  for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0 && m.graph().node_size(); --edits) {
    switch (rng() % 7) {
      case 0:
        mutate_dim(m, rng);
        break;
      case 1:
        mutate_attribute(m, rng);
        break;
      case 2:
        mutate_initializer(m, rng);
        break;
      case 3:
        rewire(m, rng);
        break;
      case 4:
        mutate_node(m, rng);
        break;
      case 5:
        for (auto& o : *m.mutable_opset_import())
          if (o.domain().empty()) o.set_version(pick(rng, {7, 11, 12, 13, 16, 17}));
        break;
      default:
        return LLVMFuzzerMutate(data, size, max_size);
    }
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes) || bytes.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::copy(bytes.begin(), bytes.end(), data);
  return bytes.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ss::test::check_onnx_import("fuzz_onnx_models", data, size, nullptr);
  // The same with every open axis of the inputs given a size: the sized
  // import first.
  onnx::ModelProto m;
  if (!m.ParseFromArray(data, static_cast<int>(size))) return 0;
  nlohmann::json shapes = nlohmann::json::object();
  bool open = false;
  for (const auto& v : m.graph().input()) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    std::vector<std::int64_t> shape;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      const bool sized = d.has_dim_value() && d.dim_value() >= 0;
      open = open || !sized;
      shape.push_back(sized ? d.dim_value() : 2);
    }
    shapes[v.name()] = shape;
  }
  if (!open) return 0;
  // Names that aren't UTF-8 are written with U+FFFD, as a host's would be.
  const std::string options = nlohmann::json{{"shapes", shapes}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  ss::test::check_onnx_import("fuzz_onnx_models", data, size, options.c_str());
  return 0;
}
