// libshapescript: a statically shape-typed language for machine-learning
// programs, embedded in a C++ host. Include this one header.
//
//   #include <shapescript/shapescript.hpp>
//   #include <iostream>
//
//   int main() {
//     ss::Engine engine({.device = ss::Device::cpu()});   // or ss::Device::cuda(0)
//     if (!engine.ok()) {                                  // e.g. E1901: no CUDA driver
//       for (const auto& d : engine.diagnostics()) std::cerr << d.render();
//       return 1;
//     }
//     auto diagnostics = engine.check_file("mlp.ss");
//     for (const auto& d : diagnostics) std::cerr << d.render();
//     return ss::has_errors(diagnostics) ? 1 : 0;
//   }
//
// Nothing here throws on a user's mistake or on a missing device: those come
// back as coded diagnostics (docs/errors.md). The library prints nothing and
// opens no file unless asked: logging goes to the host's callback, or to
// standard error only when the host or SHAPESCRIPT_LOG sets a level.
#pragma once

#include "shapescript/diagnostic.hpp"
#include "shapescript/engine.hpp"
#include "shapescript/version.hpp"
