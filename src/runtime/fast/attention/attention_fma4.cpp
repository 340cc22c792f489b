// The attention kernels four floats wide with FMA (built with -mfma): the
// portable numerics' scalar path, whose products fuse as the wider
// kernels' do.
#define SS_ATTENTION_SUFFIX fma4
#define SS_ATTENTION_W 4
#include "runtime/fast/attention/attention_kernel.inc"
