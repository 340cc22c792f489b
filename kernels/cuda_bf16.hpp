// bf16 storage of activations on CUDA (--precision bf16): the CUDA C that
// narrows a float to bf16 and widens it back (cuda_bf16.cuh), for the
// kernels that store or load such values.
#pragma once

namespace ss::cuda {

// cuda_bf16.cuh as text: ss_bf16(float) and ss_from_bf16(unsigned short),
// guarded, so any number of sources in one program may include it.
const char* bf16_helpers_text();

}  // namespace ss::cuda
