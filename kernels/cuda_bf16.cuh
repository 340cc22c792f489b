// bfloat16 storage for the CUDA executor's activations under --precision
// bf16: a float rounded to bf16 bits and back. The library embeds this file
// as text (cuda_bf16_text.cpp.in) in the kernels that read or write such a
// value; tests/kernels/cuda_bf16_test.cpp compiles it for the host and
// checks it bit for bit against runtime/core/dtype.cpp's float_to_bfloat.
#ifndef SS_BF16_HELPERS
#define SS_BF16_HELPERS
// To nearest, ties to even; infinities stay, a NaN stays a quiet NaN of the
// same sign, subnormals are kept (not flushed).
__device__ __forceinline__ unsigned short ss_bf16(float f) {
  const unsigned int u = __float_as_uint(f);
  if (f != f) return (unsigned short)((u >> 16) | 0x40u);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
// Exact: a bf16 is a float's upper half.
__device__ __forceinline__ float ss_from_bf16(unsigned short b) {
  return __uint_as_float((unsigned int)b << 16);
}
#endif
