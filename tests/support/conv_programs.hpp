// Convolutions the CUDA executor's cuDNN tests run (tests/kernels/cudnn_test.cpp
// on the stand-in, tests/gpu on a GPU): strides, dilations, mixed settings
// per axis, a two-layer CNN; and an even kernel's uneven padding, which
// cuDNN can't take.
#pragma once

#include <cstdint>
#include <string>

namespace ss::test {

extern const char* const kConvPrograms;

// How many cuDNN passes each graph of kConvPrograms has: a forward graph its
// convolutions; a gradient graph (every input's) its forward passes again
// (for r's gradient, the ReLU's mask) and each image's and kernel's
// gradient; none for the uneven padding.
std::int64_t cudnn_passes(const std::string& function, bool gradients);

}  // namespace ss::test
