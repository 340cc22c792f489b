// The CUDA libraries the back end calls besides the driver and NVRTC: cuBLAS
// for contractions and NCCL for collectives. Both are opened at run time;
// these probes report what a machine has (the host's own NCCL first).
#pragma once

#include <string>
#include <vector>

#include "shapescript/engine.hpp"

namespace ss::cuda {

LibraryStatus probe_cublas();
// cuBLAS's file names, newest first (cublas.cpp opens the same), and
// cuBLASLt's, which cuBLAS needs and which the loader may not find on its
// own where the toolkit's folder isn't on its path.
std::vector<std::string> cublas_candidates();
std::vector<std::string> cublas_lt_candidates();
// `requested`: as nccl::Library::open takes it (empty: the usual search).
LibraryStatus probe_nccl(const std::string& requested);

}  // namespace ss::cuda
