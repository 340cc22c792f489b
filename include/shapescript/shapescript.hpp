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
//     ss::Module mod = engine.load_file("mlp.ss");       // read, check, keep
//     if (!mod) {
//       for (const auto& d : mod.diagnostics()) std::cerr << d.render();
//       return 1;
//     }
//     std::vector<float> x(64 * 8);                        // 8 examples of 64 pixels
//     auto result = mod.call("logits", {ss::Tensor::view(x.data(), {8, 64})},
//                            {{"m.w1", w1}, {"m.b1", b1}, {"m.w2", w2}, {"m.b2", b2}});
//     if (!result) { /* E16xx: an argument of the wrong shape, say */ }
//     std::vector<float> logits = result.tensor().to_floats();   // [8 10]
//   }
//
// Nothing here throws on a user's mistake or on a missing device: those come
// back as coded diagnostics (docs/errors.md). The library prints nothing and
// opens no file unless asked: logging goes to the host's callback, or to
// standard error only when the host or SHAPESCRIPT_LOG sets a level.
#pragma once

#include "shapescript/diagnostic.hpp"
#include "shapescript/engine.hpp"
#include "shapescript/module.hpp"
#include "shapescript/mpi.hpp"
#include "shapescript/tensor.hpp"
#include "shapescript/version.hpp"
