// The CUDA executor's run of one graph, shared by the files that define
// its parts: cuda_graph_run.cpp (the plan, the run, memory and copies),
// cuda_run_kernels.cpp (pointwise work, reductions, contractions, fused
// regions) and cuda_run_node.cpp (one node: the op switch, the host's
// fallback, range checks). cuda_executor.cpp is the executor around it.
#pragma once

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>

#include "ir/attributes.hpp"
#include "ir/conv_deferral.hpp"
#include "ir/fusion.hpp"
#include "ir/memory_plan.hpp"
#include "kernels/cuda_bf16_plan.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/cuda_ops.hpp"
#include "kernels/cuda_reduce.hpp"
#include "runtime/core/device_error.hpp"
#include "runtime/fast/einsum_plan.hpp"
#include "runtime/reference/nodes.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::cuda::detail {

namespace ref = runtime::reference;
using runtime::DType;
using runtime::Shape;
using runtime::Tensor;

// What a node's kernels can't take (a dtype, a rank past kMaxRank, a size
// past cuBLAS's ints): the node runs on the host instead.
struct NotOnDevice {};

// A value in device memory: the runtime's tensor as a view (shape,
// strides, offset) of a device address, and the memory that keeps it.
// Only its metadata is ever read on the host.
struct DTensor {
  Tensor view;
  std::shared_ptr<DeviceMemory> memory;

  DType dtype() const { return view.dtype(); }
  const Shape& shape() const { return view.shape(); }
  std::int64_t size() const { return view.size(); }
  CUdeviceptr at() const { return reinterpret_cast<CUdeviceptr>(view.raw()); }
  DTensor with(Tensor v) const { return {std::move(v), memory}; }
};

// Whether a GEMM C = A B reads or writes a value kept in bf16.
inline bool any_bf16(const DTensor& a, const DTensor& b, const DTensor& c) {
  return a.dtype() == DType::bf16 || b.dtype() == DType::bf16 || c.dtype() == DType::bf16;
}

// A value the host holds a deferred copy of (Buffer::deferred): its
// device memory, for a later graph on the same GPU to take as it is.
struct DeviceTwin {
  std::shared_ptr<DeviceMemory> memory;
  const Gpu* gpu;
};

using ir::gemm_epilogue;
using ir::GemmEpilogue;

// Per graph: its fused regions with their sources, which node roots or
// belongs to one, and when values die.
struct GraphPlan {
  std::vector<ir::FusedKernel> kernels;
  std::vector<std::string> sources, names;
  std::vector<std::vector<std::uint8_t>> inner_broadcast;  // per kernel, per input
  std::vector<int> root_of;                                // node -> kernel it roots, or -1
  std::vector<char> member;  // node computed inside a kernel (not its root)
  // Per node: the epilogue whose root it is; and whether it is a product
  // made at such a root (which may fold it into cuBLASLt's epilogue).
  std::vector<GemmEpilogue> epilogues;
  std::vector<char> made_at_root;
  // Per node: a convolution's window, or its input gradient's einsum, left
  // unmade (ir/conv_deferral.hpp): what reads it runs on cuDNN with it, or
  // makes it first (GraphRun::make_deferred).
  std::vector<bool> deferred;
  // Per node: 1 where --precision bf16 keeps its value in bf16
  // (kernels/cuda_bf16_plan.hpp).
  std::vector<char> bf16_storage;
  // Per kernel, as bf16_storage keeps its inputs and root: which inputs
  // it loads as bf16 and whether it stores bf16, with that variant's
  // source and name (empty where it reads and writes float32 alone).
  std::vector<std::vector<std::uint8_t>> bf16_inputs;
  std::vector<char> bf16_out;
  std::vector<std::string> bf16_sources, bf16_names;
  ir::ReleasePlan releases;
  // Per node: a loop's or fused node's body's own plan, made with this one
  // (null for a node without a body).
  std::vector<std::shared_ptr<const GraphPlan>> bodies;
};

// A fused kernel's name with the bf16 it reads and writes.
std::string bf16_kernel_name(const std::string& base, const std::vector<std::uint8_t>& inputs,
                             bool out);

std::shared_ptr<const GraphPlan> make_plan(const ir::Graph& g);

inline DType common_dtype(DType a, DType b) {  // the reference's arithmetic_dtype
  if (a == b) return a;
  if (runtime::is_float(a) != runtime::is_float(b)) return runtime::is_float(a) ? a : b;
  return runtime::is_float(a) ? DType::f32 : DType::i32;
}

inline std::string dtype_tag(DType t) {
  return runtime::dtype_name(t);
}

inline std::int64_t product(const Shape& s, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t d = from; d < to; ++d) p *= s[d];
  return p;
}

struct Counts {
  std::map<std::string, std::int64_t> nodes;
  std::int64_t graphs = 0, fused = 0;
};

// An id a kernel range-checks: the least position out of 0..bound-1 lands
// in its slot of the run's error buffer.
struct RangeCheck {
  std::size_t node;
  int operand;
  std::int64_t bound;
  DTensor ids;  // compact, as the kernel read them
};
struct RangeChecks {
  DTensor errors;  // one slot of 8 bytes per check, all ones when in range
  std::vector<RangeCheck> checks;
};
// Reads a run's slots (a wait for the stream) and throws the reference's
// RangeError for the first id out of range.
void check_ranges(Gpu& gpu, const RangeChecks& r);

// What a run being captured into a CUDA graph is given and leaves: its
// inputs placed on the device beforehand (each taken out when its input
// node runs, so its memory is reused as an uncaptured run's would be),
// and its range checks (and its loops' and bodies'), read after each
// launch of the graph.
struct Capture {
  std::map<std::string, DTensor> placed;
  std::vector<RangeChecks> checks;
};

// Gives the run's values to the host as deferred buffers (Buffer::deferred)
// whose twin is their device memory; refetchable ones for a graph's
// results, which its next replay hands out again (Buffer::rearm).
Tensor hand_out(const std::shared_ptr<Gpu>& gpu, const DTensor& value, bool refetchable = false);

// An input's device copy, where there is one without copying: a value this
// GPU made that nothing has read since, or a resident (frozen) buffer's
// copy, made by its first call and kept with the buffer. `view`, when
// given, is the last call's view of this input, taken again (no new
// tensor) when it still fits, else replaced.
std::optional<DTensor> twin_of(const Gpu& gpu, const Tensor& host, Tensor* view = nullptr);
std::optional<DTensor> resident_copy(Gpu& gpu, const Tensor& host, const std::string& name,
                                     Tensor* view = nullptr);

// How the executor runs: its contractions' precision, whether cuBLAS may
// run them, and whether sums atomics would order go in index order.
struct RunOptions {
  Precision precision = Precision::f32;
  bool cublas = true;
  bool deterministic = false;
};

// One run of one graph.
class GraphRun {
 public:
  GraphRun(const std::shared_ptr<Gpu>& gpu, const ir::Graph& g, const GraphPlan& plan,
           const std::map<std::string, Tensor>& inputs, const runtime::Dims& dims,
           runtime::WorkerContext* worker, RunOptions options, Counts& counts,
           Capture* capture = nullptr, bool top = true)
      : shared_gpu_(gpu),
        gpu_(*gpu),
        g_(g),
        plan_(plan),
        inputs_(inputs),
        dims_(dims),
        worker_(worker),
        precision_(options.precision),
        cublas_(options.cublas && gpu->blas()),
        epilogues_(options.cublas && gpu->lt()),
        cudnn_(options.cublas && gpu->dnn()),
        deterministic_(options.deterministic),
        counts_(counts),
        capture_(capture),
        placed_(capture && top ? &capture->placed : nullptr) {
    sizes_ = runtime::bind_sizes(g, inputs, dims);
    values_.resize(g.nodes.size());
    host_.resize(g.nodes.size());
  }

  std::vector<Tensor> run();
  // The outputs as device values, each compact in memory of its own.
  std::vector<DTensor> run_on_device();

  // An output as the host gets it: copied back only when something reads
  // it, and until then taken back as it is by a later graph (a model's
  // parameters, a training loop's optimiser state).
  Tensor deferred(const DTensor& value) { return hand_out(shared_gpu_, owned(value)); }
  // The value compact, in memory that begins with it.
  DTensor owned(const DTensor& value);

 private:
  static constexpr std::int64_t kSlots = 64;

  // ---- memory and copies ----
  DTensor allocate(DType dtype, Shape shape, const std::string& what);
  DTensor make(std::size_t i, DType dtype, Shape shape) { return allocate(dtype, shape, what(i)); }
  std::string what(std::size_t i) const;

  DTensor upload(const Tensor& host, const std::string& name);
  std::optional<DTensor> twin_of(const Tensor& host) { return detail::twin_of(gpu_, host); }

  Tensor download(const DTensor& d);

  // Whether node i's value is kept in bf16 on this run (--precision bf16).
  bool narrowed(std::size_t i) const {
    return precision_ == Precision::bf16 && plan_.bf16_storage[i];
  }
  // Node n's inputs kept in bf16, widened back to float32 in place: for a
  // reader that doesn't read bf16 (only where a fused region fell back to
  // its nodes one by one, or a GEMM to the host).
  void widen_inputs(const ir::Node& n);
  // Whether node v's value is a GEMM's operand as it lies: float32, or a
  // float32 value kept in bf16 (a bf16 value of the program's own runs on
  // the host, as the reference rounds it).
  bool gemm_operand(int v) const {
    return values_[static_cast<std::size_t>(v)].dtype() == DType::f32 || kept_in_bf16(v);
  }
  // Whether node v's value is a float32 one kept in bf16 (not a bf16 value
  // of the program's own).
  bool kept_in_bf16(int v) const {
    return values_[static_cast<std::size_t>(v)].dtype() == DType::bf16 &&
           g_.nodes[static_cast<std::size_t>(v)].type.elem.kind == types::ElemKind::f32;
  }

  // ---- pointwise work ----
  // out (any strides) = op(inputs broadcast into out's shape).
  void pointwise(const Pointwise& op, const std::vector<const DTensor*>& ins, const DTensor& out);
  DTensor compact(const DTensor& x);
  DTensor cast(const DTensor& x, DType to);
  void fill(const DTensor& out, double value);
  // x with `axes` moved last (in order), compact.
  DTensor axes_last(const DTensor& x, const std::vector<std::int64_t>& axes);
  // Each row's reduction of a compact [rows, group] value: f32 [rows].
  DTensor reduce_rows(ir::Reduce op, const DTensor& x, std::int64_t rows, std::int64_t group);
  // log_softmax (or softmax) of a float value along `axis`, compact, in
  // the reference's steps: x - logsumexp(x), then exp.
  DTensor softmax(const DTensor& x, std::int64_t axis, bool log);
  // The permutation that undoes axes_last(x, {axis}) for x of `rank` axes.
  static std::vector<std::int64_t> back_from_last(std::size_t rank, std::int64_t axis);

  // ---- contractions ----
  // C[t] = A[t] (m x k) @ B[t] (k x n), each compact.
  void gemm(std::int64_t m, std::int64_t n, std::int64_t k, const DTensor& a, std::int64_t sa,
            const DTensor& b, std::int64_t sb, const DTensor& c, std::int64_t sc,
            std::int64_t batches);
  DTensor einsum(std::size_t i, const ir::Node& n, const DTensor& a, const DTensor& b);

  // ---- fused regions ----
  // The kernel on the GPU, or false when an input's layout isn't one its
  // code reads (then its nodes run one by one).
  bool fused(int k, std::size_t root);
  // Root's bias (and ReLU) in its product's GEMM, through cuBLASLt; false
  // where cuBLASLt isn't there or the operands aren't its shapes.
  bool gemm_with_epilogue(const GemmEpilogue& e, std::size_t root);

  // ---- convolutions (cuda_run_conv.cpp) ----
  // Whether node v is one the plan deferred and nothing has made yet.
  bool unmade(int v) const {
    return plan_.deferred[static_cast<std::size_t>(v)] &&
           !values_[static_cast<std::size_t>(v)].memory;
  }
  // Makes node v, where it is an unmade deferred node.
  void make_deferred(int v);
  // A two-operand einsum over an unmade window (a convolution's forward
  // pass, or its kernel's gradient), or a window_fold of an unmade einsum
  // (its input's gradient), as one cuDNN call (kernels/cuda_conv_match);
  // false where cuDNN isn't there or refuses it, or the shapes aren't a
  // 2-D convolution it takes.
  bool conv_on_cudnn(std::size_t i, const ir::Node& n);
  // One pass on operands as cudnn.hpp takes them; false where cuDNN
  // refuses it, E1910 where it fails.
  bool cudnn_pass(Cudnn::Pass pass, const ConvShape& s, const DTensor& a, const DTensor& b,
                  const DTensor& out);

  RunOptions options() const {
    return {precision_, cublas_ || epilogues_ || cudnn_, deterministic_};
  }

  // ---- one node ----
  void node(std::size_t i);

  // The reference operation on the host, its operands copied over.
  void on_host(std::size_t i, const ir::Node& n);
  // A loop node: its body run per step on this GPU (cuda_run_node.cpp).
  void loop(std::size_t i, const ir::Node& n);
  // A fused node (attention) as its body: the composition, on this GPU.
  void body(std::size_t i, const ir::Node& n);
  // An attention node or its gradient by the fused kernels
  // (cuda_run_attention.cpp); false leaves it to its body (a layout or
  // head the kernels don't take, or SHAPESCRIPT_ATTENTION_KERNEL=0).
  bool attention(std::size_t i, const ir::Node& n);

  const DTensor& in(const ir::Node& n, std::size_t k) const;

  // A range-checked kernel's error slot for `ids` (compact); read when the
  // run ends (or, captured, after each launch).
  CUdeviceptr slot(std::size_t node, int operand, std::int64_t bound, const DTensor& ids);

  // Runs node i on the device and names its path, or throws NotOnDevice:
  // dispatched by op to one of the families below (cuda_run_node.cpp; the
  // moves and reads at ids in cuda_run_moves.cpp).
  const char* device_node(std::size_t i, const ir::Node& n);
  const char* input_node(std::size_t i, const ir::Node& n);
  const char* created_node(std::size_t i, const ir::Node& n);
  const char* pointwise_node(std::size_t i, const ir::Node& n);
  const char* product_node(std::size_t i, const ir::Node& n);
  const char* reduce_node(std::size_t i, const ir::Node& n);
  const char* row_node(std::size_t i, const ir::Node& n);
  const char* index_node(std::size_t i, const ir::Node& n);
  const char* move_node(std::size_t i, const ir::Node& n);
  const char* window_node(std::size_t i, const ir::Node& n);

  // An einops node as views and one copy (runtime/fast/fast_loops.cpp's
  // rearrange, on the device); sums and means of floats by the reduction
  // kernels.
  DTensor einops(std::size_t i, const ir::Node& n);

  std::shared_ptr<Gpu> shared_gpu_;
  Gpu& gpu_;
  const ir::Graph& g_;
  const GraphPlan& plan_;
  const std::map<std::string, Tensor>& inputs_;
  const runtime::Dims& dims_;
  runtime::WorkerContext* worker_;  // one of several workers', or null
  Precision precision_;
  bool cublas_;
  bool epilogues_;  // cuBLASLt's (GemmEpilogue)
  bool cudnn_;      // convolutions on cuDNN (cuda_run_conv.cpp)
  bool deterministic_;
  Counts& counts_;
  std::map<std::string, std::int64_t> sizes_;
  std::vector<DTensor> values_;
  std::vector<Tensor> host_;
  std::map<std::size_t, std::vector<DTensor>> loop_outputs_;  // a loop's outputs, by node
  RangeChecks checks_;
  Capture* capture_;                        // null: not captured
  std::map<std::string, DTensor>* placed_;  // the top run's placed inputs, taken as read
};

}  // namespace ss::cuda::detail
