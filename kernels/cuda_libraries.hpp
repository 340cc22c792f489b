// The CUDA libraries the back end calls besides the driver and NVRTC: cuBLAS
// for contractions, cuDNN for convolutions and NCCL for collectives. Each
// is opened at run time; these probes report what a machine has (the
// host's own NCCL first).
#pragma once

#include <string>
#include <vector>

#include "shapescript/options.hpp"

namespace ss::cuda {

LibraryStatus probe_cublas();
// SHAPESCRIPT_CUDNN's library (0: not looked for), else the toolkit's;
// version as "9.1.0".
LibraryStatus probe_cudnn();
// cuBLAS's file names, newest first (cublas.cpp opens the same), and
// cuBLASLt's, which cuBLAS needs and which the loader may not find on its
// own where the toolkit's folder isn't on its path.
std::vector<std::string> cublas_candidates();
std::vector<std::string> cublas_lt_candidates();
// cuDNN's (kernels/cudnn.hpp), 9 first.
std::vector<std::string> cudnn_candidates();
// `requested`: as nccl::Library::open takes it (empty: the usual search).
LibraryStatus probe_nccl(const std::string& requested);

}  // namespace ss::cuda
