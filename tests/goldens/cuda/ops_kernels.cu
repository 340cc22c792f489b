// Generated (kernels/cuda_ops.cpp).
#ifndef SS_OPS_PRELUDE
#define SS_OPS_PRELUDE
struct ss_layout {
  long long shape[8];
  long long stride[4][8];
  int rank;
};
__device__ __forceinline__ void ss_store(float* p, double v) { *p = (float)v; }
__device__ __forceinline__ void ss_store(int* p, double v) {
  *p = v != v ? 0 : v <= -2147483648.0 ? (int)0x80000000 : v >= 2147483647.0 ? 0x7fffffff : (int)v;
}
__device__ __forceinline__ void ss_store(unsigned char* p, double v) { *p = v != 0.0 ? 1 : 0; }
__device__ __forceinline__ double ss_load(const float* p) { return (double)*p; }
__device__ __forceinline__ double ss_load(const int* p) { return (double)*p; }
__device__ __forceinline__ double ss_load(const unsigned char* p) { return *p != 0 ? 1.0 : 0.0; }
__device__ __forceinline__ void ss_store(float* p, float v) { *p = v; }
__device__ __forceinline__ void ss_store(unsigned char* p, float v) { *p = v != 0.0f ? 1 : 0; }
__device__ __forceinline__ float ss_loadf(const float* p) { return *p; }
__device__ __forceinline__ float ss_loadf(const unsigned char* p) { return *p != 0 ? 1.0f : 0.0f; }
#endif
#ifndef SS_FORMULA_HELPERS
#define SS_FORMULA_HELPERS
__device__ __forceinline__ float ss_nanf() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double ss_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
#endif
extern "C" __global__ void mod_i32(const int* __restrict__ a_p, const int* __restrict__ b_p, const float* __restrict__ c_p, int* __restrict__ out, ss_layout l, long long total) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    long long rest = e, at[4] = {0, 0, 0, 0};
    for (int d = l.rank - 1; d >= 0; --d) {
      const long long i = rest % l.shape[d];
      rest /= l.shape[d];
      for (int k = 0; k < 4; ++k) at[k] += i * l.stride[k][d];
    }
    const double a = ss_load(a_p + at[0]);
    const double b = ss_load(b_p + at[1]);
    ss_store(out + at[3], (b == 0.0 ? 0.0 : (a - (floor((a / b)) * b))));
  }
}
// Generated (kernels/cuda_ops.cpp).
#ifndef SS_BLOCK_SUM
#define SS_BLOCK_SUM
__device__ float ss_block_sum(float v) {
  __shared__ float partial[256];
  __syncthreads();  // the last call's readers are done
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d /= 2) {
    if (threadIdx.x < d) partial[threadIdx.x] += partial[threadIdx.x + d];
    __syncthreads();
  }
  return partial[0];
}
#endif
#ifndef SS_KAHAN
#define SS_KAHAN
template <typename T>
struct SsKahan {
  T sum = 0, carry = 0;
  __device__ void add(T v) {
    const T y = v - carry;
    const T t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
};
#endif
extern "C" __global__ void cross_entropy(const float* __restrict__ log_p, const int* __restrict__ labels, float* out,
    long long outer, long long classes, long long inner, long long* error, int sum) {
  const long long positions = outer * inner;
  SsKahan<float> acc;
  for (long long p = threadIdx.x; p < positions; p += blockDim.x) {
    const long long label = labels[p];
    if (label < 0 || label >= classes) {
      atomicMin((unsigned long long*)error, (unsigned long long)p);
      
      continue;
    }
    const long long o = p / inner, i = p - o * inner;
    acc.add(-log_p[(o * classes + label) * inner + i]);
  }
  const float total = ss_block_sum(acc.sum);
  if (threadIdx.x == 0) out[0] = sum ? total : total / (float)positions;
}
// Generated (kernels/cuda_ops.cpp).
extern "C" __global__ void gather_f32(const float* __restrict__ table, const int* __restrict__ ids, float* __restrict__ out,
    long long count, long long row, long long rows, long long* error) {
  const long long total = count * row;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long i = e / row, k = e - i * row;
    const long long id = ids[i];
    if (id < 0 || id >= rows) {
      atomicMin((unsigned long long*)error, (unsigned long long)i);
      out[e] = 0;
      continue;
    }
    out[e] = table[id * row + k];
  }
}
// Generated (kernels/cuda_ops.cpp).
extern "C" __global__ void gemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
    long long m, long long n, long long k, long long stride_a, long long stride_b,
    long long stride_c) {
  __shared__ float ta[16][16], tb[16][16];
  a += blockIdx.z * stride_a;
  b += blockIdx.z * stride_b;
  c += blockIdx.z * stride_c;
  const long long row = blockIdx.y * 16 + threadIdx.y;
  const long long col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (long long p0 = 0; p0 < k; p0 += 16) {
    const long long pa = p0 + threadIdx.x, pb = p0 + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = row < m && pa < k ? a[row * k + pa] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = pb < k && col < n ? b[pb * n + col] : 0.0f;
    __syncthreads();
    for (int q = 0; q < 16; ++q)
      acc += ta[threadIdx.y][q] * tb[q][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
