// A coded import error (docs/errors.md chapter 20), thrown inside the ONNX
// module and turned into a diagnostic at its C entry (entry.cpp). Nothing
// of it crosses the module's boundary as an exception.
#pragma once

#include <string>

namespace ss::onnx_import {

struct ImportError {
  std::string code;           // "E2004"
  std::string message;        // one line: what is wrong
  std::string node;           // the node's name ("" for the model as a whole)
  std::string op;             // its op type
  std::string help;           // how to fix it, may be empty
  bool generic = false;       // a symbolic dim can't stay a generic axis here (translator.hpp)
  bool missing_size = false;  // an input's open axis was given no size (open_axes.hpp)
};

[[noreturn]] inline void fail(std::string code, std::string message, std::string help = {}) {
  throw ImportError{std::move(code), std::move(message), {}, {}, std::move(help)};
}

}  // namespace ss::onnx_import
