// OnnxOptions::frozen checked against the graph's initializers.
#include <cctype>
#include <string>
#include <vector>

#include "onnx/import_error.hpp"
#include "onnx/translator.hpp"
#include "support/nearest.hpp"

namespace ss::onnx_import {
namespace {

// A name as an identifier of the program writes it: `fc.weight` as
// `fc_weight`, for the help of a frozen name given in the program's form.
std::string as_identifier(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

}  // namespace

// E2011 for a name in OnnxOptions::frozen that isn't an initializer: a
// typo would otherwise leave the layer trainable without a word.
void Translator::check_frozen_names() const {
  std::vector<std::string> names;
  for (const auto& t : model_.graph().initializer()) names.push_back(t.name());
  for (const auto& name : frozen_) {
    const auto it = values_.find(name);
    if (it != values_.end() && it->second.constant) continue;
    std::string help;
    for (const auto& n : names)
      if (as_identifier(n) == as_identifier(name)) help = "the graph calls it `" + n + "`";
    if (help.empty())
      help = names.empty() ? "the graph has no initializers"
                           : support::nearest_names(name, names, "its initializers include", 4);
    fail("E2011", "the frozen name `" + name + "` isn't an initializer of the graph", help);
  }
}

}  // namespace ss::onnx_import
