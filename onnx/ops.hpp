#pragma once
#include <map>
#include <string>

#include "onnx/translator.hpp"

namespace ss::onnx_import {
// Each family's handlers, entered in the op table by its op types.
void register_elementwise(std::map<std::string, Handler>& table);
void register_shapes(std::map<std::string, Handler>& table);
void register_reductions(std::map<std::string, Handler>& table);
void register_networks(std::map<std::string, Handler>& table);
void register_losses(std::map<std::string, Handler>& table);
void register_windows(std::map<std::string, Handler>& table);
void register_indexing(std::map<std::string, Handler>& table);
void register_recurrent(std::map<std::string, Handler>& table);
void register_resize(std::map<std::string, Handler>& table);
void register_sequences(std::map<std::string, Handler>& table);
}  // namespace ss::onnx_import
