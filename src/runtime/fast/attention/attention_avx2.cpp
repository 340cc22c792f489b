// The attention kernels built for avx2 (src/CMakeLists.txt sets the flags).
#define SS_ATTENTION_SUFFIX avx2
#define SS_ATTENTION_W 8
#include "runtime/fast/attention/attention_kernel.inc"
