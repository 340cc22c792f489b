#include "runtime/fast/onednn_conv.hpp"

#include <bit>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "runtime/core/aligned_scratch.hpp"
#include "runtime/core/helper_threads.hpp"

#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
#define SS_HAVE_DNNL_HEADER 1
#endif

#if defined(__SANITIZE_THREAD__)
#define SS_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SS_UNDER_TSAN 1
#endif
#endif

namespace ss::runtime::fast {
namespace {

std::atomic<std::int64_t> calls{0};

}  // namespace

std::int64_t onednn_conv_calls() {
  return calls.load();
}

ConvKernel conv_kernel(const ConvForward& s, gemm::Matrix kernel) {
  return {kernel.data, kernel.col_stride, s.kh * s.kw * kernel.row_stride, s.kw * kernel.row_stride,
          kernel.row_stride};
}

#if defined(SS_HAVE_DNNL_HEADER) && !defined(SS_UNDER_TSAN)
namespace {

// The C API's functions, looked up in libdnnl.so.2 (oneDNN 2.x: the
// descriptor-based API of its dnnl.h, which this file is built against).
struct Api {
  decltype(&dnnl_engine_create) engine_create = nullptr;
  decltype(&dnnl_stream_create) stream_create = nullptr;
  decltype(&dnnl_stream_destroy) stream_destroy = nullptr;
  decltype(&dnnl_stream_wait) stream_wait = nullptr;
  decltype(&dnnl_memory_desc_init_by_tag) md_by_tag = nullptr;
  decltype(&dnnl_memory_desc_init_by_strides) md_by_strides = nullptr;
  decltype(&dnnl_memory_desc_get_size) md_size = nullptr;
  decltype(&dnnl_memory_desc_equal) md_equal = nullptr;
  decltype(&dnnl_dilated_convolution_forward_desc_init) conv_desc = nullptr;
  decltype(&dnnl_dilated_convolution_backward_weights_desc_init) weights_desc = nullptr;
  decltype(&dnnl_dilated_convolution_backward_data_desc_init) data_desc = nullptr;
  decltype(&dnnl_primitive_attr_create) attr_create = nullptr;
  decltype(&dnnl_primitive_attr_destroy) attr_destroy = nullptr;
  decltype(&dnnl_primitive_attr_set_scratchpad_mode) attr_scratchpad = nullptr;
  decltype(&dnnl_primitive_attr_set_post_ops) attr_post_ops = nullptr;
  decltype(&dnnl_post_ops_create) post_ops_create = nullptr;
  decltype(&dnnl_post_ops_destroy) post_ops_destroy = nullptr;
  decltype(&dnnl_post_ops_append_eltwise) post_ops_eltwise = nullptr;
  decltype(&dnnl_primitive_desc_create) pd_create = nullptr;
  decltype(&dnnl_primitive_desc_destroy) pd_destroy = nullptr;
  decltype(&dnnl_primitive_desc_query) pd_query = nullptr;
  decltype(&dnnl_primitive_desc_query_md) pd_query_md = nullptr;
  decltype(&dnnl_reorder_primitive_desc_create) reorder_pd = nullptr;
  decltype(&dnnl_primitive_create) primitive_create = nullptr;
  decltype(&dnnl_primitive_execute) execute = nullptr;
  decltype(&dnnl_memory_create) memory_create = nullptr;
  decltype(&dnnl_memory_destroy) memory_destroy = nullptr;
  decltype(&dnnl_version) version = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;
  int (*omp_get_max_threads)() = nullptr;
  dnnl_engine_t engine = nullptr;
  std::string status, path;
};

template <typename F>
bool load(void* library, F& out, const char* name) {
  out = reinterpret_cast<F>(::dlsym(library, name));
  return out != nullptr;
}

const Api& api() {
  static const Api a = [] {
    Api found;
    const char* off = std::getenv("SHAPESCRIPT_ONEDNN");
    if (off && std::string(off) == "0") {
      found.status = "off (SHAPESCRIPT_ONEDNN=0)";
      return found;
    }
    // Never closed: its primitives are kept for the process's life.
    void* library = ::dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      found.status = std::string("not found: ") + ::dlerror();
      return found;
    }
    // Its OpenMP runtime, loaded with it.
    void* omp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    const bool all =
        load(library, found.engine_create, "dnnl_engine_create") &&
        load(library, found.stream_create, "dnnl_stream_create") &&
        load(library, found.stream_destroy, "dnnl_stream_destroy") &&
        load(library, found.stream_wait, "dnnl_stream_wait") &&
        load(library, found.md_by_tag, "dnnl_memory_desc_init_by_tag") &&
        load(library, found.md_by_strides, "dnnl_memory_desc_init_by_strides") &&
        load(library, found.md_size, "dnnl_memory_desc_get_size") &&
        load(library, found.md_equal, "dnnl_memory_desc_equal") &&
        load(library, found.conv_desc, "dnnl_dilated_convolution_forward_desc_init") &&
        load(library, found.weights_desc, "dnnl_dilated_convolution_backward_weights_desc_init") &&
        load(library, found.data_desc, "dnnl_dilated_convolution_backward_data_desc_init") &&
        load(library, found.attr_create, "dnnl_primitive_attr_create") &&
        load(library, found.attr_destroy, "dnnl_primitive_attr_destroy") &&
        load(library, found.attr_scratchpad, "dnnl_primitive_attr_set_scratchpad_mode") &&
        load(library, found.attr_post_ops, "dnnl_primitive_attr_set_post_ops") &&
        load(library, found.post_ops_create, "dnnl_post_ops_create") &&
        load(library, found.post_ops_destroy, "dnnl_post_ops_destroy") &&
        load(library, found.post_ops_eltwise, "dnnl_post_ops_append_eltwise") &&
        load(library, found.pd_create, "dnnl_primitive_desc_create") &&
        load(library, found.pd_destroy, "dnnl_primitive_desc_destroy") &&
        load(library, found.pd_query, "dnnl_primitive_desc_query") &&
        load(library, found.pd_query_md, "dnnl_primitive_desc_query_md") &&
        load(library, found.reorder_pd, "dnnl_reorder_primitive_desc_create") &&
        load(library, found.primitive_create, "dnnl_primitive_create") &&
        load(library, found.execute, "dnnl_primitive_execute") &&
        load(library, found.memory_create, "dnnl_memory_create") &&
        load(library, found.memory_destroy, "dnnl_memory_destroy") &&
        load(library, found.version, "dnnl_version") && omp &&
        load(omp, found.omp_set_num_threads, "omp_set_num_threads") &&
        load(omp, found.omp_get_max_threads, "omp_get_max_threads");
    if (!all) {
      found.status = "not usable: libdnnl.so.2 lacks the oneDNN 2 functions, or libgomp";
      return found;
    }
    if (found.engine_create(&found.engine, dnnl_cpu, 0) != dnnl_success) {
      found.engine = nullptr;
      found.status = "not usable: no CPU engine";
      return found;
    }
    Dl_info info{};
    found.path = ::dladdr(reinterpret_cast<void*>(found.engine_create), &info) && info.dli_fname
                     ? info.dli_fname
                     : "libdnnl.so.2";
    found.status = "available";
    return found;
  }();
  return a;
}

// This thread as one OpenMP thread while it lives: what oneDNN reads when
// it makes or runs a primitive. The thread's own setting comes back after,
// so a host's OpenMP on the same thread keeps its threads.
class OneOmpThread {
 public:
  OneOmpThread() : before_(api().omp_get_max_threads()) { api().omp_set_num_threads(1); }
  ~OneOmpThread() { api().omp_set_num_threads(before_); }
  OneOmpThread(const OneOmpThread&) = delete;
  OneOmpThread& operator=(const OneOmpThread&) = delete;

 private:
  int before_;
};

// The three passes oneDNN runs: the forward, the kernel's gradient and the
// input's.
enum class Pass { forward, weights, data };

// One part's primitive, made once per shape and kept: the convolution, the
// weights' layout it chose (the kernel's, or its gradient's), its
// scratchpad's size, and the reorder between that layout and ours: for the
// forward and the input's gradient from the kernel's strides into it, for
// the kernel's gradient out of it into ours ([f c kh kw], the einsum's
// result).
struct Primitive {
  dnnl_primitive_t conv = nullptr, reorder = nullptr;
  // bfloat16's forward: the images rounded from float32 (src_f32) into
  // src, a part at a time, before the convolution reads them.
  dnnl_primitive_t round_images = nullptr;
  dnnl_memory_desc_t src_f32{};
  // Winograd's forward (3x3, stride 1, float32): its images in oneDNN's
  // blocked layout, reordered into it (to_blocked) and out of it
  // (from_blocked) around the convolution, a part at a time.
  dnnl_primitive_t to_blocked = nullptr, from_blocked = nullptr;
  dnnl_memory_desc_t src_blocked{}, dst_blocked{};
  // Its weights' layout takes a plain [f c kh kw] kernel only: the kernel
  // reordered into that first (to_plain), where it is kept otherwise.
  dnnl_primitive_t to_plain = nullptr;
  dnnl_memory_desc_t kernel_plain{};
  dnnl_memory_desc_t src{}, dst{}, weights{}, kernel{}, scratchpad{}, bias{};
  std::size_t weights_bytes = 0, scratchpad_bytes = 0;
  std::string impl;
};

using Key = std::array<std::int64_t, 27>;

// A primitive of `pass` for `images` of s's images, the kernel at
// `kernel`'s strides (forward, data); nullptr where oneDNN refuses it or offers
// only its im2col GEMM, no faster than ours (remembered: asked once).
const Primitive* primitive(Pass pass, const ConvForward& s, std::int64_t images,
                           const ConvKernel& kernel, const ConvPostOps& post = {}) {
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<Primitive>> made;
  const Key key{static_cast<std::int64_t>(pass),
                images,
                s.h,
                s.w,
                s.c,
                s.f,
                s.kh,
                s.kw,
                s.stride[0],
                s.stride[1],
                s.dilation[0],
                s.dilation[1],
                s.before[0],
                s.before[1],
                s.after[0],
                s.after[1],
                s.oh,
                s.ow,
                kernel.f_stride,
                kernel.c_stride,
                kernel.kh_stride,
                kernel.kw_stride,
                s.groups,
                s.bf16,
                post.bias != nullptr,
                static_cast<std::int64_t>(post.activation),
                (static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(post.lo)) << 32) |
                    std::bit_cast<std::uint32_t>(post.hi)};
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = made.find(key); it != made.end()) return it->second.get();
  const Api& a = api();
  const OneOmpThread one;
  auto p = std::make_unique<Primitive>();
  const dnnl_dims_t src{images, s.c, s.h, s.w}, dst{images, s.f, s.oh, s.ow};
  // oihw's axes at the kernel's strides; grouped, goihw's (a group's
  // outputs the f's next to each other).
  const std::int64_t g = s.groups, per_group = s.f / g;
  const bool grouped = g > 1;
  const int weights_rank = grouped ? 5 : 4;
  const dnnl_dims_t weights{s.f, s.c, s.kh, s.kw},
      grouped_weights{g, per_group, s.c / g, s.kh, s.kw};
  const dnnl_dims_t kernel_strides{kernel.f_stride, kernel.c_stride, kernel.kh_stride,
                                   kernel.kw_stride},
      grouped_strides{per_group * kernel.f_stride, kernel.f_stride, kernel.c_stride,
                      kernel.kh_stride, kernel.kw_stride};
  const dnnl_dims_t strides{s.stride[0], s.stride[1]},
      dilation{s.dilation[0] - 1, s.dilation[1] - 1}, before{s.before[0], s.before[1]},
      after{s.after[0], s.after[1]};
  dnnl_memory_desc_t any{};
  const dnnl_dims_t bias_dims{s.f};
  dnnl_post_ops_t post_ops = nullptr;
  dnnl_convolution_desc_t desc{}, backward{};
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_desc_t pd = nullptr, hint = nullptr, reorder_pd = nullptr;
  const bool forward = pass == Pass::forward, kernel_in = pass != Pass::weights;
  // bfloat16's images and weights (its forward only: the gradients are
  // left to our GEMM's bfloat16 kernels).
  const dnnl_data_type_t in_type = s.bf16 ? dnnl_bf16 : dnnl_f32;
  bool ok =
      (!s.bf16 || forward) && a.md_by_tag(&p->src, 4, src, in_type, dnnl_nhwc) == dnnl_success &&
      a.md_by_tag(&p->src_f32, 4, src, dnnl_f32, dnnl_nhwc) == dnnl_success &&
      a.md_by_tag(&p->dst, 4, dst, dnnl_f32, dnnl_nhwc) == dnnl_success &&
      (!grouped || (pass == Pass::forward && s.c % g == 0 && s.f % g == 0)) &&
      a.md_by_tag(&any, weights_rank, grouped ? grouped_weights : weights, in_type,
                  dnnl_format_tag_any) == dnnl_success &&
      (kernel_in ? a.md_by_strides(&p->kernel, weights_rank, grouped ? grouped_weights : weights,
                                   dnnl_f32, grouped ? grouped_strides : kernel_strides)
                 : a.md_by_tag(&p->kernel, 4, weights, dnnl_f32, dnnl_oihw)) == dnnl_success &&
      (!post.bias || a.md_by_tag(&p->bias, 1, bias_dims, dnnl_f32, dnnl_a) == dnnl_success) &&
      a.conv_desc(&desc, forward ? dnnl_forward_inference : dnnl_forward_training,
                  dnnl_convolution_direct, &p->src, &any, post.bias ? &p->bias : nullptr, &p->dst,
                  strides, dilation, before, after) == dnnl_success &&
      a.attr_create(&attr) == dnnl_success &&
      a.attr_scratchpad(attr, dnnl_scratchpad_mode_user) == dnnl_success;
  // The forward's post-op: the activation.
  using Activation = ConvPostOps::Activation;
  if (ok && forward && post.activation != Activation::none) {
    ok =
        a.post_ops_create(&post_ops) == dnnl_success &&
        (post.activation != Activation::relu ||
         a.post_ops_eltwise(post_ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f) == dnnl_success) &&
        (post.activation != Activation::clip ||
         a.post_ops_eltwise(post_ops, 1.0f, dnnl_eltwise_clip, post.lo, post.hi) == dnnl_success) &&
        a.attr_post_ops(attr, post_ops) == dnnl_success;
  }
  if (post_ops) a.post_ops_destroy(post_ops);
  // Winograd F(2x2, 3x3) where oneDNN has it (jit_fp32_wino_2x3 on
  // AVX-512): 2.25 times fewer multiplies, 1.2-1.8 times as fast at
  // ResNet's 3x3 layers of 14x14 to 56x56 pixels, the reorders of the
  // images into its blocked layout and back included; its sums within the
  // `fast` row. Smaller images gain nothing.
  dnnl_primitive_desc_t wino = nullptr;
  if (ok && forward && !s.bf16 && !grouped && s.kh == 3 && s.kw == 3 && s.stride[0] == 1 &&
      s.stride[1] == 1 && s.dilation[0] == 1 && s.dilation[1] == 1 && s.c % 16 == 0 &&
      s.f % 16 == 0 && s.oh * s.ow >= 196) {
    dnnl_memory_desc_t src_any{}, dst_any{};
    dnnl_convolution_desc_t wino_desc{};
    const char* impl = nullptr;
    if (a.md_by_tag(&src_any, 4, src, dnnl_f32, dnnl_format_tag_any) == dnnl_success &&
        a.md_by_tag(&dst_any, 4, dst, dnnl_f32, dnnl_format_tag_any) == dnnl_success &&
        a.conv_desc(&wino_desc, dnnl_forward_inference, dnnl_convolution_winograd, &src_any, &any,
                    post.bias ? &p->bias : nullptr, &dst_any, strides, dilation, before,
                    after) == dnnl_success &&
        a.pd_create(&wino, &wino_desc, attr, a.engine, nullptr) == dnnl_success &&
        a.pd_query(wino, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl &&
        std::string(impl).find("wino") != std::string::npos) {
      p->src_blocked = *a.pd_query_md(wino, dnnl_query_src_md, 0);
      p->dst_blocked = *a.pd_query_md(wino, dnnl_query_dst_md, 0);
      const dnnl_memory_desc_t* wino_weights = a.pd_query_md(wino, dnnl_query_weights_md, 0);
      dnnl_primitive_desc_t into = nullptr, back = nullptr, direct = nullptr, plain = nullptr;
      // The kernel into Winograd's weights: at once, or through [f c kh kw].
      const bool at_once = a.reorder_pd(&direct, &p->kernel, a.engine, wino_weights, a.engine,
                                        nullptr) == dnnl_success;
      const bool weights_in =
          at_once ||
          (a.md_by_tag(&p->kernel_plain, 4, weights, dnnl_f32, dnnl_oihw) == dnnl_success &&
           a.reorder_pd(&plain, &p->kernel, a.engine, &p->kernel_plain, a.engine, nullptr) ==
               dnnl_success &&
           a.primitive_create(&p->to_plain, plain) == dnnl_success);
      const bool reorders = weights_in &&
                            a.reorder_pd(&into, &p->src, a.engine, &p->src_blocked, a.engine,
                                         nullptr) == dnnl_success &&
                            a.primitive_create(&p->to_blocked, into) == dnnl_success &&
                            a.reorder_pd(&back, &p->dst_blocked, a.engine, &p->dst, a.engine,
                                         nullptr) == dnnl_success &&
                            a.primitive_create(&p->from_blocked, back) == dnnl_success;
      for (const auto made_pd : {into, back, direct, plain})
        if (made_pd) a.pd_destroy(made_pd);
      if (reorders) {
        pd = wino;
      } else {
        a.pd_destroy(wino);
        // (a half-made set: leaked, as every primitive made is kept)
        p->to_blocked = p->from_blocked = p->to_plain = nullptr;
      }
    } else if (wino) {
      a.pd_destroy(wino);
    }
  }
  if (ok && forward) {  // the direct convolution, where Winograd's isn't
    ok = pd || a.pd_create(&pd, &desc, attr, a.engine, nullptr) == dnnl_success;
  } else if (ok) {  // a gradient's primitive takes the forward's as a hint
    ok = a.pd_create(&hint, &desc, nullptr, a.engine, nullptr) == dnnl_success &&
         (pass == Pass::weights
              ? a.weights_desc(&backward, dnnl_convolution_direct, &p->src, &any, nullptr, &p->dst,
                               strides, dilation, before, after)
              : a.data_desc(&backward, dnnl_convolution_direct, &p->src, &any, &p->dst, strides,
                            dilation, before, after)) == dnnl_success &&
         a.pd_create(&pd, &backward, attr, a.engine, hint) == dnnl_success;
  }
  if (ok) {
    const char* impl = nullptr;
    a.pd_query(pd, dnnl_query_impl_info_str, 0, &impl);
    p->impl = impl ? impl : "";
    p->weights = *a.pd_query_md(
        pd, pass == Pass::weights ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    p->scratchpad = *a.pd_query_md(pd, dnnl_query_scratchpad_md, 0);
    p->weights_bytes = a.md_size(&p->weights);
    p->scratchpad_bytes = a.md_size(&p->scratchpad);
    const dnnl_memory_desc_t *from = kernel_in ? (p->to_plain ? &p->kernel_plain : &p->kernel)
                                               : &p->weights,
                             *to = kernel_in ? &p->weights : &p->kernel;
    ok = p->impl.find("gemm") == std::string::npos &&
         p->impl.rfind("ref", 0) == std::string::npos &&
         a.primitive_create(&p->conv, pd) == dnnl_success &&
         a.reorder_pd(&reorder_pd, from, a.engine, to, a.engine, nullptr) == dnnl_success &&
         a.primitive_create(&p->reorder, reorder_pd) == dnnl_success;
    if (ok && s.bf16) {
      a.pd_destroy(reorder_pd);
      reorder_pd = nullptr;
      ok = a.reorder_pd(&reorder_pd, &p->src_f32, a.engine, &p->src, a.engine, nullptr) ==
               dnnl_success &&
           a.primitive_create(&p->round_images, reorder_pd) == dnnl_success;
    }
  }
  if (attr) a.attr_destroy(attr);
  for (const auto made_pd : {pd, hint, reorder_pd})
    if (made_pd) a.pd_destroy(made_pd);
  const Primitive* out = ok ? p.get() : nullptr;
  made.emplace(key, ok ? std::move(p) : nullptr);
  return out;
}

// Runs a primitive with memories over the given buffers on this thread's
// stream, and waits for it.
struct Arg {
  int which;
  const dnnl_memory_desc_t* desc;
  void* data;
};

bool run(dnnl_primitive_t primitive, const std::vector<Arg>& args) {
  const Api& a = api();
  struct Stream {
    dnnl_stream_t s = nullptr;
    ~Stream() {
      if (s) api().stream_destroy(s);
    }
  };
  thread_local Stream stream;
  if (!stream.s && a.stream_create(&stream.s, a.engine, dnnl_stream_default_flags) != dnnl_success)
    return false;
  std::vector<dnnl_exec_arg_t> exec;
  bool ok = true;
  for (const Arg& arg : args) {
    dnnl_memory_t m = nullptr;
    ok = ok && a.memory_create(&m, arg.desc, a.engine, arg.data) == dnnl_success;
    if (m) exec.push_back({arg.which, m});
  }
  ok = ok &&
       a.execute(primitive, stream.s, static_cast<int>(exec.size()), exec.data()) == dnnl_success &&
       a.stream_wait(stream.s) == dnnl_success;
  for (const auto& e : exec) a.memory_destroy(e.memory);
  return ok;
}

// A thread's scratch of at least `bytes`, or nullptr where memory ran out
// (the caller then leaves the call to our own kernels).
void* scratch(AlignedScratch& kept, std::size_t bytes) {
  try {
    return kept.get(std::max<std::size_t>(1, bytes));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// The images split into parts of whole images, one a thread: the first
// `extra` parts one image more than the rest, each with its primitive
// (`first` for those, `rest` for the others: the same where all are alike).
struct Split {
  std::int64_t parts = 0, base = 0, extra = 0;
  const Primitive *first = nullptr, *rest = nullptr;

  std::int64_t begin(std::int64_t part) const { return part * base + std::min(part, extra); }
  const Primitive& of(std::int64_t part) const { return part < extra ? *first : *rest; }
};

// The split of s's images over `threads`, with its primitives of `pass`;
// nothing (parts 0) where oneDNN isn't there or refuses a part's.
Split split(Pass pass, const ConvForward& s, const ConvKernel& kernel, int threads,
            const ConvPostOps& post = {}) {
  Split out;
  if (!api().engine || s.n <= 0) return out;
  const std::int64_t parts = std::clamp<std::int64_t>(threads, 1, s.n);
  out.base = s.n / parts;
  out.extra = s.n % parts;
  out.first = primitive(pass, s, out.extra ? out.base + 1 : out.base, kernel, post);
  out.rest = out.extra ? primitive(pass, s, out.base, kernel, post) : out.first;
  if (out.first && out.rest) out.parts = parts;
  return out;
}

// A primitive's weights in its layout, reordered from `kernel`: kept with
// a frozen kernel's buffer (made once), else in the thread's scratch.
const void* reordered(const Primitive& p, const ConvKernel& kernel, AlignedScratch& kept,
                      std::shared_ptr<const void>& held) {
  const auto reorder = [&](void* into) {
    const OneOmpThread one;
    void* from = const_cast<float*>(kernel.data);
    if (p.to_plain) {  // Winograd's: through [f c kh kw]
      thread_local AlignedScratch plain;
      void* at = scratch(plain, api().md_size(&p.kernel_plain));
      if (!at ||
          !run(p.to_plain, {{DNNL_ARG_FROM, &p.kernel, from}, {DNNL_ARG_TO, &p.kernel_plain, at}}))
        return false;
      from = at;
    }
    return run(p.reorder, {{DNNL_ARG_FROM, p.to_plain ? &p.kernel_plain : &p.kernel, from},
                           {DNNL_ARG_TO, &p.weights, into}});
  };
  if (kernel.frozen) {
    const auto* base = static_cast<const float*>(kernel.frozen->data());
    // (a primitive is made once and kept: its address names its layout)
    const Buffer::DerivedKey key{kernel.data - base, reinterpret_cast<std::int64_t>(&p),
                                 kernel.f_stride,    kernel.c_stride,
                                 kernel.kh_stride,   kernel.kw_stride};
    held = kernel.frozen->derived(key, [&]() -> std::shared_ptr<const void> {
      auto copy = std::make_shared<AlignedScratch>();
      void* into = scratch(*copy, p.weights_bytes);
      if (!into || !reorder(into)) return nullptr;
      return std::shared_ptr<const void>(copy, into);
    });
    if (held) return held.get();
  }
  void* into = scratch(kept, p.weights_bytes);
  return into && reorder(into) ? into : nullptr;
}

// The forward (x to y) or the input's gradient (dy to dx): each part its
// images, the kernel reordered once for the part sizes' layouts (or found
// reordered with its frozen buffer).
bool run_with_kernel(Pass pass, const ConvForward& s, const float* from, const ConvKernel& kernel,
                     float* to, int threads, const ConvPostOps& post = {}) {
  const Api& a = api();
  const Split parts = split(pass, s, kernel, threads, post);
  if (!parts.parts) return false;
  const Primitive *first = parts.first, *rest = parts.rest;
  // The kernel in each primitive's layout: once, or twice where the two
  // part sizes chose different layouts.
  const bool same = a.md_equal(&first->weights, &rest->weights) != 0;
  thread_local AlignedScratch weights_first, weights_rest;
  std::shared_ptr<const void> held_first, held_rest;
  const void* w_first = reordered(*first, kernel, weights_first, held_first);
  const void* w_rest = same ? w_first : reordered(*rest, kernel, weights_rest, held_rest);
  if (!w_first || !w_rest) return false;
  const bool forward = pass == Pass::forward;
  const std::int64_t in_image = s.h * s.w * s.c, out_image = s.oh * s.ow * s.f;
  std::atomic<bool> failed{false};
  run_parts(static_cast<int>(parts.parts), [&](int part) {
    const Primitive& p = parts.of(part);
    const std::int64_t begin = parts.begin(part);
    thread_local AlignedScratch scratchpad;
    void* pad = scratch(scratchpad, p.scratchpad_bytes);
    void* read = const_cast<float*>(from + begin * (forward ? in_image : out_image));
    if (p.round_images) {  // bfloat16: the part's images rounded first
      thread_local AlignedScratch rounded;
      void* into = scratch(rounded, a.md_size(&p.src));
      if (!into ||
          !run(p.round_images, {{DNNL_ARG_FROM, &p.src_f32, read}, {DNNL_ARG_TO, &p.src, into}})) {
        failed = true;
        return;
      }
      read = into;
    }
    float* write = to + begin * (forward ? out_image : in_image);
    const OneOmpThread one_here;
    // Winograd's: the images into its blocked layout, its result out of it.
    thread_local AlignedScratch blocked_in, blocked_out;
    void* conv_in = read;
    void* conv_out = write;
    if (p.to_blocked) {
      conv_in = scratch(blocked_in, a.md_size(&p.src_blocked));
      conv_out = scratch(blocked_out, a.md_size(&p.dst_blocked));
      if (!conv_in || !conv_out ||
          !run(p.to_blocked,
               {{DNNL_ARG_FROM, &p.src, read}, {DNNL_ARG_TO, &p.src_blocked, conv_in}})) {
        failed = true;
        return;
      }
    }
    std::vector<Arg> args{
        {forward ? DNNL_ARG_SRC : DNNL_ARG_DIFF_DST,
         forward ? (p.to_blocked ? &p.src_blocked : &p.src) : &p.dst, conv_in},
        {DNNL_ARG_WEIGHTS, &p.weights, const_cast<void*>(&p == first ? w_first : w_rest)},
        {forward ? DNNL_ARG_DST : DNNL_ARG_DIFF_SRC,
         forward ? (p.to_blocked ? &p.dst_blocked : &p.dst) : &p.src, conv_out},
        {DNNL_ARG_SCRATCHPAD, &p.scratchpad, pad}};
    if (post.bias) args.push_back({DNNL_ARG_BIAS, &p.bias, const_cast<float*>(post.bias)});
    if (!pad || !run(p.conv, args)) failed = true;
    if (!failed && p.from_blocked &&
        !run(p.from_blocked,
             {{DNNL_ARG_FROM, &p.dst_blocked, conv_out}, {DNNL_ARG_TO, &p.dst, write}}))
      failed = true;
  });
  if (failed) return false;
  ++calls;
  return true;
}

}  // namespace

bool onednn_conv_forward(const ConvForward& s, const float* x, const ConvKernel& kernel, float* y,
                         int threads, const ConvPostOps& post) {
  return run_with_kernel(Pass::forward, s, x, kernel, y, threads, post);
}

bool onednn_conv_data_gradient(const ConvForward& s, const float* dy, const ConvKernel& kernel,
                               float* dx, int threads) {
  return run_with_kernel(Pass::data, s, dy, kernel, dx, threads);
}

const char* onednn_status() {
  static const std::string status = [] {
    const Api& a = api();
    if (!a.engine) return a.status;
    // The kernel it picks for the benchmarks' conv layer.
    const ConvForward probe{8, 32, 32, 64, 64, 3, 3, 32, 32, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    const Primitive* p =
        primitive(Pass::forward, probe, probe.n, conv_kernel(probe, {nullptr, 64, 1}));
    return p ? "available, " + p->impl : std::string("available, no direct convolution here");
  }();
  return status.c_str();
}

std::string onednn_path() {
  return api().engine ? api().path : "";
}

std::string onednn_version() {
  if (!api().engine) return "";
  const dnnl_version_t* v = api().version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

bool onednn_conv_kernel_gradient(const ConvForward& s, const float* x, const float* dy, float* dk,
                                 int threads) {
  const Split parts = split(Pass::weights, s, ConvKernel{}, threads);
  if (!parts.parts) return false;
  // Each part's sums over its images in the primitive's layout, then in
  // ours: the first part's straight into dk, the others' added to it in
  // the parts' order (so the same bits for the same thread count).
  const std::int64_t count = s.f * s.c * s.kh * s.kw;
  std::vector<float> partial(static_cast<std::size_t>((parts.parts - 1) * count));
  std::atomic<bool> failed{false};
  const OneOmpThread one;
  run_parts(static_cast<int>(parts.parts), [&](int part) {
    const Primitive& p = parts.of(part);
    const std::int64_t begin = parts.begin(part);
    thread_local AlignedScratch scratchpad, sums;
    void* pad = scratch(scratchpad, p.scratchpad_bytes);
    void* grad = scratch(sums, p.weights_bytes);
    float* into = part == 0 ? dk : partial.data() + (part - 1) * count;
    const OneOmpThread one_here;
    if (!pad || !grad ||
        !run(p.conv,
             {{DNNL_ARG_SRC, &p.src, const_cast<float*>(x + begin * s.h * s.w * s.c)},
              {DNNL_ARG_DIFF_DST, &p.dst, const_cast<float*>(dy + begin * s.oh * s.ow * s.f)},
              {DNNL_ARG_DIFF_WEIGHTS, &p.weights, grad},
              {DNNL_ARG_SCRATCHPAD, &p.scratchpad, pad}}) ||
        !run(p.reorder, {{DNNL_ARG_FROM, &p.weights, grad}, {DNNL_ARG_TO, &p.kernel, into}}))
      failed = true;
  });
  if (failed) return false;
  for (std::int64_t part = 1; part < parts.parts; ++part)
    for (std::int64_t i = 0; i < count; ++i)
      dk[i] += partial[static_cast<std::size_t>((part - 1) * count + i)];
  ++calls;
  return true;
}

#else  // no oneDNN header at build time, or ThreadSanitizer

const char* onednn_status() {
#if defined(SS_UNDER_TSAN)
  return "off under ThreadSanitizer (libgomp isn't instrumented)";
#else
  return "not built (no oneapi/dnnl/dnnl.h: Debian's libdnnl-dev)";
#endif
}

std::string onednn_path() {
  return "";
}

std::string onednn_version() {
  return "";
}

bool onednn_conv_forward(const ConvForward&, const float*, const ConvKernel&, float*, int,
                         const ConvPostOps&) {
  return false;
}

bool onednn_conv_kernel_gradient(const ConvForward&, const float*, const float*, float*, int) {
  return false;
}

bool onednn_conv_data_gradient(const ConvForward&, const float*, const ConvKernel&, float*, int) {
  return false;
}

#endif

}  // namespace ss::runtime::fast
