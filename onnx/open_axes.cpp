#include "onnx/open_axes.hpp"

#include <set>

#include "onnx/import_error.hpp"

namespace ss::onnx_import {
namespace {

// Large primes no model's axis has: the program writes them back as the
// dims' generic axes (translator.cpp's symbolic_text). Two sets: a generic
// translation is made with each, and kept only where both write one text
// (entry.cpp), so a stand-in that leaked into a number the text doesn't
// write back as its axis (a size less one, say) can't pass unseen.
constexpr std::int64_t kSentinels[2][6] = {{100003, 100019, 100043, 100049, 100057, 100069},
                                           {100103, 100109, 100129, 100151, 100153, 100169}};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? " " : "") + std::to_string(shape[i]);
  return s + "]";
}

// An axis's name: its dim_param, or for one open without a name (no
// param, "?", or a dim_value below 0) `INPUT_axisK`, each its own.
std::string axis_name(const std::string& input, int k, const onnx::TensorShapeProto::Dimension& d) {
  if (d.has_dim_param() && !d.dim_param().empty() && d.dim_param() != "?") return d.dim_param();
  return input + "_axis" + std::to_string(k);
}

}  // namespace

bool is_open(const onnx::TensorShapeProto::Dimension& d) {
  return !d.has_dim_value() || d.dim_value() < 0;
}

void size_open_axes(onnx::ModelProto& model, const SizesGiven& given, Symbolic* symbolic) {
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  std::map<std::string, std::string> sized_by;  // a dim's name -> the input whose shape sized it
  for (auto& input : *model.mutable_graph()->mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    const auto shown = given.shapes.find(input.name());
    if (shown != given.shapes.end() && static_cast<int>(shown->second.size()) != shape->dim_size())
      fail("E2008", "input `" + input.name() + "` is given the shape " + shape_text(shown->second) +
                        ", of " + std::to_string(shown->second.size()) +
                        " axes; the model declares " + std::to_string(shape->dim_size()));
    std::vector<std::string> names;
    for (int k = 0; k < shape->dim_size(); ++k) {
      auto& d = *shape->mutable_dim(k);
      names.emplace_back();
      if (!is_open(d)) {
        if (shown != given.shapes.end() && shown->second[k] != d.dim_value())
          fail("E2008", "input `" + input.name() + "` is given the shape " +
                            shape_text(shown->second) + "; the model declares its axis " +
                            std::to_string(k) + " of size " + std::to_string(d.dim_value()));
        continue;
      }
      const std::string param = axis_name(input.name(), k, d);
      names.back() = param;
      if (symbolic->generic) {
        if (!symbolic->sentinels.count(param)) {
          const auto& set = kSentinels[symbolic->stand_ins & 1];
          if (symbolic->sentinels.size() == std::size(set))
            throw ImportError{"E2007", "the model leaves more than 6 sizes open", {}, {}, {}, true};
          symbolic->sentinels[param] = set[symbolic->sentinels.size()];
        }
        d.set_dim_value(symbolic->sentinels[param]);
        continue;
      }
      std::int64_t size = -1;
      if (auto it = given.dims.find(param); it != given.dims.end()) size = it->second;
      if (shown != given.shapes.end()) {
        const std::int64_t from_shape = shown->second[k];
        if (size >= 0 && size != from_shape)
          fail("E2008", "`" + param + "` is given the size " + std::to_string(size) +
                            ", and input `" + input.name() + "` the shape " +
                            shape_text(shown->second));
        size = from_shape;
      }
      if (size < 0 && symbolic->sizes.count(param)) size = symbolic->sizes[param];
      if (size < 0) {
        ImportError e{"E2007",
                      "input `" + input.name() + "` has an axis of open size, `" + param + "`",
                      {},
                      {},
                      "give its size at load: OnnxOptions::dims[\"" + param + "\"], or `--dim " +
                          param + "=N`, or the inputs' shapes (OnnxOptions::input_shapes)"};
        e.missing_size = true;
        throw e;
      }
      if (size < 1) fail("E2007", "`" + param + "` is given the size " + std::to_string(size));
      if (auto had = symbolic->sizes.find(param);
          had != symbolic->sizes.end() && had->second != size)
        fail("E2008", "`" + param + "`, an axis of inputs `" + sized_by[param] + "` and `" +
                          input.name() + "`, is given the sizes " + std::to_string(had->second) +
                          " and " + std::to_string(size));
      symbolic->sizes[param] = size;
      sized_by.emplace(param, input.name());
      d.set_dim_value(size);
    }
    symbolic->axes[input.name()] = std::move(names);
  }
  // A declared output or value of a size below 0 (-1 for "any", as some
  // exporters write) is a size left open, not one ONNX's inference would
  // have to agree with.
  const auto open_negative = [](onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (d.has_dim_value() && d.dim_value() < 0) d.clear_dim_value();
  };
  for (auto& v : *model.mutable_graph()->mutable_output()) open_negative(v);
  for (auto& v : *model.mutable_graph()->mutable_value_info()) open_negative(v);
  if (symbolic->generic) return;
  for (const auto& [name, size] : given.dims)
    if (!symbolic->sizes.count(name))
      fail("E2007", "the model has no open axis `" + name + "` to size",
           "the dims OnnxOptions::dims sizes are those the graph's inputs name (an axis open "
           "without a name is INPUT_axisK)");
}

}  // namespace ss::onnx_import
