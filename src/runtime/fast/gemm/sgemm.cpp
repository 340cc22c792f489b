#include "runtime/fast/gemm/sgemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "runtime/core/aligned_scratch.hpp"
#include "runtime/core/cpu_isa.hpp"
#include "runtime/core/helper_threads.hpp"
#include "runtime/fast/gemm/kernel_args.hpp"
#include "support/inline_vector.hpp"

namespace ss::gemm {

using runtime::run_parts;
namespace {

struct Choice {
  detail::Kernel kernel;
  detail::Gemv gemv;
  detail::Blocking blocking;
  const char* name;
  detail::PackedFloats packed_floats;
  detail::PackB pack_b;
  detail::KernelPacked kernel_packed;
  bool epilogues;      // applies Args' bias and ReLU itself (the float32 kernels)
  bool chain = false;  // each element one chain of FMAs over k (alpha 1; beta 0 or 1)
};

using runtime::Isa;

// What this CPU can run, best first.
std::vector<Choice> supported() {
  __builtin_cpu_init();
  std::vector<Choice> out;
  const Isa isa = runtime::kernel_isa();
  if (isa >= Isa::avx512)
    out.push_back({detail::kernel_avx512, detail::gemv_avx512, detail::blocking_avx512(), "avx512",
                   detail::packed_floats_avx512, detail::pack_b_avx512,
                   detail::kernel_packed_avx512, true});
  if (isa >= Isa::avx2)
    out.push_back({detail::kernel_avx2, detail::gemv_avx2, detail::blocking_avx2(), "avx2",
                   detail::packed_floats_avx2, detail::pack_b_avx2, detail::kernel_packed_avx2,
                   true});
  out.push_back({detail::kernel_portable, detail::gemv_portable, detail::blocking_portable(),
                 "portable", detail::packed_floats_portable, detail::pack_b_portable,
                 detail::kernel_packed_portable, true});
  return out;
}

const std::vector<Choice>& choices() {
  static const std::vector<Choice> c = supported();
  return c;
}

// The portable numerics' kernels this CPU can run, widest first: each gives
// the others' bits, so which one runs changes only the time.
std::vector<Choice> supported_chains() {
  std::vector<Choice> out;
  const Isa isa = runtime::kernel_isa();
  if (isa >= Isa::avx512)
    out.push_back({detail::kernel_chain_avx512, detail::gemv_chain_avx512,
                   detail::blocking_chain_avx512(), "chain-avx512",
                   detail::packed_floats_chain_avx512, detail::pack_b_chain_avx512,
                   detail::kernel_packed_chain_avx512, true, true});
  if (isa >= Isa::avx2)
    out.push_back({detail::kernel_chain_avx2, detail::gemv_chain_avx2,
                   detail::blocking_chain_avx2(), "chain-avx2", detail::packed_floats_chain_avx2,
                   detail::pack_b_chain_avx2, detail::kernel_packed_chain_avx2, true, true});
  if (runtime::kernel_fma())
    out.push_back({detail::kernel_chain_scalar, detail::gemv_chain_scalar,
                   detail::blocking_chain_scalar(), "chain-scalar",
                   detail::packed_floats_chain_scalar, detail::pack_b_chain_scalar,
                   detail::kernel_packed_chain_scalar, true, true});
  return out;
}

const std::vector<Choice>& chain_choices() {
  static const std::vector<Choice> c = supported_chains();
  return c;
}

constexpr const char* kNoChain = "no FMA on this CPU: the portable numerics need it";

// Whether a chain kernel can't take this alpha and beta itself (it takes
// alpha 1 with beta 0, or 1 to go on from C): the chains are scaled after.
bool chain_scaled(const Choice& choice, float alpha, float beta) {
  return choice.chain && (alpha != 1.0f || (beta != 0.0f && beta != 1.0f));
}

// Whether a product of m rows runs the kernel's own product of one row: a
// chain's only where B's rows are contiguous (each column's chain a lane)
// and it starts from zero; else the packed kernel, the same chains.
bool one_row(const Choice& choice, std::int64_t m, std::int64_t b_cols, float beta) {
  return m == 1 && choice.gemv && (!choice.chain || (b_cols == 1 && beta == 0.0f));
}

// The kernels a name picks from: the chain ones for "chain-...".
const std::vector<Choice>& listed_with(const std::string& kernel) {
  return kernel.rfind("chain-", 0) == 0 ? chain_choices() : choices();
}

// Whether this CPU and the OS let this process use AMX's bfloat16 tiles:
// CPUID says AMX-TILE and AMX-BF16, and Linux grants the tile data's state
// (arch_prctl's ARCH_REQ_XCOMP_PERM), which a process asks for once before
// its first tile instruction. The grant is the process's: its threads'
// signal frames grow by the 8 KiB of tile data.
bool amx_usable() {
#if defined(__x86_64__) && defined(__linux__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  if (!(d & (1u << 22)) || !(d & (1u << 24))) return false;  // AMX-BF16, AMX-TILE
  constexpr long kRequestPermission = 0x1023, kTileData = 18;
  return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
#else
  return false;
#endif
}

// The bfloat16 kernels, best first: AMX's tiles, then AVX512-BF16's
// vdpbf16ps; both need AVX512-BF16 and AVX512-BW, which their packing
// uses. Neither has a product of one row of its own: a row is a micro-tile
// with one row.
std::vector<Choice> supported_bf16() {
  __builtin_cpu_init();
  std::vector<Choice> out;
  if (runtime::kernel_isa() < Isa::avx512 || !__builtin_cpu_supports("avx512bf16") ||
      !__builtin_cpu_supports("avx512bw"))
    return out;
  if (amx_usable())
    out.push_back({detail::kernel_amx_bf16, nullptr, detail::blocking_amx_bf16(), "amx",
                   detail::packed_floats_amx_bf16, detail::pack_b_amx_bf16,
                   detail::kernel_packed_amx_bf16, false});
  out.push_back({detail::kernel_avx512_bf16, nullptr, detail::blocking_avx512_bf16(), "avx512bf16",
                 detail::packed_floats_avx512_bf16, detail::pack_b_avx512_bf16,
                 detail::kernel_packed_avx512_bf16, false});
  return out;
}

const std::vector<Choice>& bf16_choices() {
  static const std::vector<Choice> c = supported_bf16();
  return c;
}

std::int64_t round_up(std::int64_t x, std::int64_t to) {
  return (x + to - 1) / to * to;
}

// Each thread's packing buffers, kept between calls: `n` floats.
float* packing_buffers(std::size_t n) {
  thread_local runtime::AlignedScratch buffers;
  return static_cast<float*>(buffers.get(n * sizeof(float)));
}

void run_tile(const Choice& k, const detail::Args& args, detail::Tile tile) {
  const auto& b = k.blocking;
  const std::int64_t a_floats = round_up(b.mc, b.mr) * b.kc;
  const std::int64_t b_floats = b.kc * round_up(b.nc, b.nr);
  float* base = packing_buffers(static_cast<std::size_t>(a_floats + b_floats));
  k.kernel(args, tile, base, base + a_floats);
}

// Each tile on a thread of its own, the first on the caller's; a tile's
// failure (out of memory for its buffers) is rethrown here.
// (Up to 16 tiles, one a thread, without a heap allocation.)
using Tiles = support::InlineVector<detail::Tile, 16>;
void run_tiles(const Tiles& tiles, support::FunctionRef<void(detail::Tile)> tile) {
  support::InlineVector<std::exception_ptr, 16> failed(tiles.size());
  run_parts(static_cast<int>(tiles.size()), [&](int t) {
    try {
      tile(tiles[static_cast<std::size_t>(t)]);
    } catch (...) {
      failed[static_cast<std::size_t>(t)] = std::current_exception();
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

// The arguments the kernels take.
detail::Args arguments(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a,
                       Matrix b, float beta, Output c) {
  return {m,
          n,
          k,
          alpha,
          beta,
          a.data,
          a.row_stride,
          a.col_stride,
          b.data,
          b.row_stride,
          b.col_stride,
          c.data,
          c.row_stride,
          nullptr,
          0};
}

// The epilogue as a pass over C: where the kernel doesn't apply it (the
// bfloat16 ones), or at an alpha other than 1 (a kernel's fused sum and
// the pass's would round apart there).
void apply_epilogue(std::int64_t m, std::int64_t n, Output c, Epilogue e) {
  if (!e.bias && !e.relu) return;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float& out = c.data[i * c.row_stride + j];
      float v = e.bias ? out + e.bias[j] : out;
      if (e.relu) v = v > 0.0f ? v : 0.0f;
      out = v;
    }
}

// The epilogue into the kernels' arguments when `choice` applies it at
// this alpha; false when a pass must.
bool fuse_epilogue(const Choice& choice, float alpha, Epilogue e, detail::Args& args) {
  if (!choice.epilogues || alpha != 1.0f) return false;
  args.bias = e.bias;
  args.relu = e.relu ? 1 : 0;
  return true;
}

void run_products(const Choice& choice, const detail::Args& args, int threads);
void run_chain_scaled(const Choice& choice, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, Matrix a, Matrix b, float beta, Output c, int threads,
                      Epilogue epilogue);

void run(const Choice& choice, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
         Matrix a, Matrix b, float beta, Output c, int threads, Epilogue epilogue) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == 0.0f) {  // nothing to add: C = beta * C
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        float& out = c.data[i * c.row_stride + j];
        out = beta == 0.0f ? 0.0f : beta * out;
      }
    return apply_epilogue(m, n, c, epilogue);
  }
  if (chain_scaled(choice, alpha, beta))
    return run_chain_scaled(choice, m, n, k, alpha, a, b, beta, c, threads, epilogue);
  detail::Args args = arguments(m, n, k, alpha, a, b, beta, c);
  const bool fused = fuse_epilogue(choice, alpha, epilogue, args);
  run_products(choice, args, threads);
  if (!fused) apply_epilogue(m, n, c, epilogue);
}

// A chain kernel's C = alpha A B + beta C at another alpha or beta: the
// chains into the thread's scratch, then each element alpha t + beta c as
// one fused multiply-add (t alone scaled where beta is 0), in plain code.
void run_chain_scaled(const Choice& choice, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, Matrix a, Matrix b, float beta, Output c, int threads,
                      Epilogue epilogue) {
  thread_local runtime::AlignedScratch scratch;
  float* t = static_cast<float*>(scratch.get(static_cast<std::size_t>(m * n) * sizeof(float)));
  run(choice, m, n, k, 1.0f, a, b, 0.0f, {t, n}, threads, {});
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float& out = c.data[i * c.row_stride + j];
      const float product = t[i * n + j];
      out = beta == 0.0f ? alpha * product : std::fma(alpha, product, beta * out);
    }
  apply_epilogue(m, n, c, epilogue);
}

void run_products(const Choice& choice, const detail::Args& args, int threads) {
  const std::int64_t m = args.m, n = args.n, k = args.k;
  // A batch of one: B streamed once, unpacked.
  if (one_row(choice, m, args.b_cols, args.beta)) return choice.gemv(args);
  // Small products, or one thread: all here. Else the wider side is split
  // in whole micro-tiles, one part a thread, the first on the caller's.
  const bool split = threads > 1 && m * n * k >= (std::int64_t{1} << 20);
  if (!split) return run_tile(choice, args, {0, m, 0, n});
  const bool by_columns = n >= m;
  const std::int64_t unit = by_columns ? choice.blocking.nr : choice.blocking.mr;
  const std::int64_t size = by_columns ? n : m;
  const std::int64_t parts = std::min<std::int64_t>(threads, (size + unit - 1) / unit);
  const std::int64_t step = round_up((size + parts - 1) / parts, unit);
  Tiles tiles;
  for (std::int64_t start = 0; start < size; start += step) {
    const std::int64_t end = std::min(size, start + step);
    tiles.push_back(by_columns ? detail::Tile{0, m, start, end} : detail::Tile{start, end, 0, n});
  }
  run_tiles(tiles, [&](detail::Tile t) { run_tile(choice, args, t); });
}

void run_tile_packed(const Choice& k, const detail::Args& args, detail::Tile tile,
                     const float* packed) {
  const auto& b = k.blocking;
  k.kernel_packed(args, tile,
                  packing_buffers(static_cast<std::size_t>(round_up(b.mc, b.mr) * b.kc)), packed);
}

// The kernel a packing was made for: choices()[index], or for a negative
// index bf16_choices()[-1 - index].
const Choice& chosen(int index, bool chain = false) {
  if (chain) return chain_choices()[static_cast<std::size_t>(index)];
  return index < 0 ? bf16_choices()[static_cast<std::size_t>(-1 - index)]
                   : choices()[static_cast<std::size_t>(index)];
}

// The index of the kernel called `kernel` in `list`; std::invalid_argument
// where there is none.
int named(const std::vector<Choice>& list, const std::string& kernel, const char* what) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (kernel == list[i].name) return static_cast<int>(i);
  throw std::invalid_argument(std::string("no ") + what + " `" + kernel + "` on this CPU");
}

std::vector<std::string> names(const std::vector<Choice>& list) {
  std::vector<std::string> out;
  for (const auto& c : list) out.emplace_back(c.name);
  return out;
}

constexpr const char* kNoBf16 = "no bfloat16 GEMM kernel on this CPU (AVX512-BF16)";

std::shared_ptr<const PackedB> pack_with(int index, std::int64_t k, std::int64_t n, Matrix b,
                                         bool chain = false) {
  const Choice& choice = chosen(index, chain);
  auto out = std::make_shared<PackedB>();
  out->k = k;
  out->n = n;
  out->b = b;
  out->kernel = index;
  out->chain = chain;
  const std::int64_t floats = std::max<std::int64_t>(1, choice.packed_floats(k, n));
  float* memory = static_cast<float*>(
      runtime::allocate_aligned(64, static_cast<std::size_t>(round_up(floats * 4, 64))));
  out->panels = std::shared_ptr<float>(memory, runtime::AlignedScratch::Free{});
  if (k > 0 && n > 0) choice.pack_b(arguments(0, n, k, 1.0f, {}, b, 0.0f, {}), memory);
  return out;
}

}  // namespace

std::shared_ptr<const PackedB> pack_b(std::int64_t k, std::int64_t n, Matrix b) {
  return pack_with(0, k, n, b);
}

std::shared_ptr<const PackedB> pack_b_with(const std::string& kernel, std::int64_t k,
                                           std::int64_t n, Matrix b) {
  const auto& list = listed_with(kernel);
  return pack_with(named(list, kernel, "GEMM kernel"), k, n, b, &list == &chain_choices());
}

void sgemm_packed(std::int64_t m, float alpha, Matrix a, const PackedB& b, float beta, Output c,
                  int threads, Epilogue epilogue) {
  const Choice& choice = chosen(b.kernel, b.chain);
  const std::int64_t n = b.n, k = b.k;
  // One row (where the kernel has its own product of one), nothing to
  // multiply, or nothing to add, or a chain's other alpha or beta: as
  // sgemm does it.
  if (m <= 0 || one_row(choice, m, b.b.col_stride, beta) || n <= 0 || k <= 0 || alpha == 0.0f ||
      chain_scaled(choice, alpha, beta))
    return run(choice, m, n, k, alpha, a, b.b, beta, c, threads, epilogue);
  detail::Args args = arguments(m, n, k, alpha, a, b.b, beta, c);
  const bool fused = fuse_epilogue(choice, alpha, epilogue, args);
  const float* panels = b.panels.get();
  // Split by rows only: each part reads the one packing of B.
  const bool split =
      threads > 1 && m * n * k >= (std::int64_t{1} << 20) && m >= 2 * choice.blocking.mr;
  if (!split) {
    run_tile_packed(choice, args, {0, m, 0, n}, panels);
  } else {
    const std::int64_t unit = choice.blocking.mr;
    const std::int64_t parts = std::min<std::int64_t>(threads, (m + unit - 1) / unit);
    const std::int64_t step = round_up((m + parts - 1) / parts, unit);
    Tiles tiles;
    for (std::int64_t start = 0; start < m; start += step)
      tiles.push_back({start, std::min(m, start + step), 0, n});
    run_tiles(tiles, [&](detail::Tile t) { run_tile_packed(choice, args, t, panels); });
  }
  if (!fused) apply_epilogue(m, n, c, epilogue);
}

std::shared_ptr<const PackedB> pack_b_chain(std::int64_t k, std::int64_t n, Matrix b) {
  if (chain_choices().empty()) throw std::invalid_argument(kNoChain);
  return pack_with(0, k, n, b, true);
}

void sgemm_chain(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
                 float beta, Output c, int threads, Epilogue epilogue) {
  if (chain_choices().empty()) throw std::invalid_argument(kNoChain);
  run(chain_choices().front(), m, n, k, alpha, a, b, beta, c, threads, epilogue);
}

std::vector<std::string> chain_kernels() {
  return names(chain_choices());
}

const char* sgemm_kernel() {
  return choices().front().name;
}

std::vector<std::string> sgemm_kernels() {
  return names(choices());
}

void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
           float beta, Output c, int threads, Epilogue epilogue) {
  run(choices().front(), m, n, k, alpha, a, b, beta, c, threads, epilogue);
}

bool bf16_supported() {
  return !bf16_choices().empty();
}

const char* bf16_kernel() {
  return bf16_choices().empty() ? "" : bf16_choices().front().name;
}

std::vector<std::string> bf16_kernels() {
  return names(bf16_choices());
}

std::shared_ptr<const PackedB> pack_b_bf16(std::int64_t k, std::int64_t n, Matrix b) {
  if (bf16_choices().empty()) throw std::invalid_argument(kNoBf16);
  return pack_with(-1, k, n, b);
}

std::shared_ptr<const PackedB> pack_b_bf16_with(const std::string& kernel, std::int64_t k,
                                                std::int64_t n, Matrix b) {
  return pack_with(-1 - named(bf16_choices(), kernel, "bfloat16 GEMM kernel"), k, n, b);
}

void sgemm_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
                float beta, Output c, int threads) {
  if (bf16_choices().empty()) throw std::invalid_argument(kNoBf16);
  run(bf16_choices().front(), m, n, k, alpha, a, b, beta, c, threads, {});
}

void sgemm_bf16_with(const std::string& kernel, std::int64_t m, std::int64_t n, std::int64_t k,
                     float alpha, Matrix a, Matrix b, float beta, Output c, int threads) {
  const int i = named(bf16_choices(), kernel, "bfloat16 GEMM kernel");
  run(bf16_choices()[static_cast<std::size_t>(i)], m, n, k, alpha, a, b, beta, c, threads, {});
}

void sgemm_with(const std::string& kernel, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, Matrix a, Matrix b, float beta, Output c, int threads,
                Epilogue epilogue) {
  const auto& list = listed_with(kernel);
  const int i = named(list, kernel, "GEMM kernel");
  run(list[static_cast<std::size_t>(i)], m, n, k, alpha, a, b, beta, c, threads, epilogue);
}

}  // namespace ss::gemm
