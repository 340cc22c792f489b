// The attention kernels built for avx512 (src/CMakeLists.txt sets the flags).
#define SS_ATTENTION_SUFFIX avx512
#define SS_ATTENTION_W 16
#include "runtime/fast/attention/attention_kernel.inc"
