// libshapescript: a statically shape-typed language for machine-learning
// programs, embedded in a C++ host. Include this one header.
//
//   #include <shapescript/shapescript.hpp>
//   #include <iostream>
//   #include <vector>
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
//     std::vector<float> w1(64 * 128), b1(128), w2(128 * 10), b2(10);   // the weights
//     auto result = mod.call("logits", {ss::Tensor::view(x.data(), {8, 64})},
//                            {{"m.w1", ss::Tensor::view(w1.data(), {64, 128})},
//                             {"m.b1", ss::Tensor::view(b1.data(), {128})},
//                             {"m.w2", ss::Tensor::view(w2.data(), {128, 10})},
//                             {"m.b2", ss::Tensor::view(b2.data(), {10})}});
//     if (!result) return 1;                               // E16xx: a wrong shape, say
//     std::vector<float> logits = result.tensor().to_floats();   // [8 10]
//     std::cout << logits.size() << " logits\n";
//   }
//
// Nothing here throws on a user's mistake or on a missing device: those come
// back as coded diagnostics (docs/errors.md). The library prints nothing and
// opens no file unless asked: logging goes to the host's callback, or to
// standard error only when the host or SHAPESCRIPT_LOG sets a level.
#pragma once

#include "shapescript/batcher.hpp"
#include "shapescript/diagnostic.hpp"
#include "shapescript/engine.hpp"
#include "shapescript/module.hpp"
#include "shapescript/mpi.hpp"
#include "shapescript/tensor.hpp"
#include "shapescript/version.hpp"
