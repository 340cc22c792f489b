// The CUDA libraries the back end calls besides the driver and NVRTC: cuBLAS
// for contractions and NCCL for collectives. Both are opened at run time;
// these probes report what a machine has (the host's own NCCL first).
#pragma once

#include "shapescript/engine.hpp"

namespace ss::cuda {

LibraryStatus probe_cublas();
LibraryStatus probe_nccl();

}  // namespace ss::cuda
