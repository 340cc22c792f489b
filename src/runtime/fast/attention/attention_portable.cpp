// The attention kernels built for the baseline x86-64 (or any) CPU.
#define SS_ATTENTION_SUFFIX portable
#define SS_ATTENTION_W 4
#include "runtime/fast/attention/attention_kernel.inc"
