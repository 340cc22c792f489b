// The one table of the op types the importer translates, each family's
// handlers entered by their files (ops_*.cpp).
#include "onnx/ops.hpp"

namespace ss::onnx_import {
namespace {

const std::map<std::string, Handler>& table() {
  static const std::map<std::string, Handler> t = [] {
    std::map<std::string, Handler> m;
    register_elementwise(m);
    register_shapes(m);
    register_reductions(m);
    register_networks(m);
    register_losses(m);
    register_windows(m);
    register_indexing(m);
    register_recurrent(m);
    register_resize(m);
    register_sequences(m);
    return m;
  }();
  return t;
}

}  // namespace

Handler handler_for(const std::string& op_type) {
  auto it = table().find(op_type);
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> supported_ops() {
  std::vector<std::string> out;
  for (const auto& [name, h] : table()) out.push_back(name);
  return out;
}

}  // namespace ss::onnx_import
