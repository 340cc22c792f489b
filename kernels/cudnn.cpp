#include "kernels/cudnn.hpp"

#include "kernels/cuda_libraries.hpp"

namespace ss::cuda {

using namespace cudnn_abi;

std::unique_ptr<Cudnn> Cudnn::open(const std::string& path, CUstream stream, std::string* why) {
  std::unique_ptr<Cudnn> dnn(new Cudnn());
  dnn->library_ = support::DynamicLibrary::open_first(
      path.empty() ? cudnn_candidates() : std::vector<std::string>{path}, why);
  if (!dnn->library_) return nullptr;
  auto& l = dnn->library_;
  GetVersion_t get_version = nullptr;
  Create_t create = nullptr;
  SetStream_t set_stream = nullptr;
  if (!l.load(get_version, "cudnnGetVersion") || !l.load(create, "cudnnCreate") ||
      !l.load(dnn->destroy_, "cudnnDestroy") || !l.load(set_stream, "cudnnSetStream") ||
      !l.load(dnn->create_tensor_, "cudnnCreateTensorDescriptor") ||
      !l.load(dnn->destroy_tensor_, "cudnnDestroyTensorDescriptor") ||
      !l.load(dnn->set_tensor_, "cudnnSetTensor4dDescriptor") ||
      !l.load(dnn->create_filter_, "cudnnCreateFilterDescriptor") ||
      !l.load(dnn->destroy_filter_, "cudnnDestroyFilterDescriptor") ||
      !l.load(dnn->set_filter_, "cudnnSetFilter4dDescriptor") ||
      !l.load(dnn->create_conv_, "cudnnCreateConvolutionDescriptor") ||
      !l.load(dnn->destroy_conv_, "cudnnDestroyConvolutionDescriptor") ||
      !l.load(dnn->set_conv_, "cudnnSetConvolution2dDescriptor") ||
      !l.load(dnn->set_math_, "cudnnSetConvolutionMathType") ||
      !l.load(dnn->forward_algorithm_, "cudnnGetConvolutionForwardAlgorithm_v7") ||
      !l.load(dnn->forward_workspace_, "cudnnGetConvolutionForwardWorkspaceSize") ||
      !l.load(dnn->forward_, "cudnnConvolutionForward") ||
      !l.load(dnn->data_algorithm_, "cudnnGetConvolutionBackwardDataAlgorithm_v7") ||
      !l.load(dnn->data_workspace_, "cudnnGetConvolutionBackwardDataWorkspaceSize") ||
      !l.load(dnn->data_, "cudnnConvolutionBackwardData") ||
      !l.load(dnn->filter_algorithm_, "cudnnGetConvolutionBackwardFilterAlgorithm_v7") ||
      !l.load(dnn->filter_workspace_, "cudnnGetConvolutionBackwardFilterWorkspaceSize") ||
      !l.load(dnn->filter_, "cudnnConvolutionBackwardFilter")) {
    if (why) *why = l.path() + " lacks a cuDNN function the convolutions need";
    return nullptr;
  }
  dnn->version_ = get_version();
  if (dnn->version_ < 8000) {  // the _v7 heuristics and the math types came with 8
    if (why)
      *why = l.path() + " is cuDNN " + std::to_string(dnn->version_) + "; 8 or later is needed";
    return nullptr;
  }
  if (const Status s = create(&dnn->handle_); s != kSuccess) {
    if (why) *why = "cudnnCreate failed with status " + std::to_string(s);
    dnn->handle_ = nullptr;
    return nullptr;
  }
  if (const Status s = set_stream(dnn->handle_, stream); s != kSuccess) {
    if (why) *why = "cudnnSetStream failed with status " + std::to_string(s);
    return nullptr;
  }
  return dnn;
}

Cudnn::~Cudnn() {
  for (auto& [key, p] : plans_) {
    for (TensorDesc t : {p.x, p.y})
      if (t) destroy_tensor_(t);
    if (p.w) destroy_filter_(p.w);
    if (p.conv) destroy_conv_(p.conv);
  }
  if (handle_) destroy_(handle_);
}

namespace {

// The most workspace an algorithm may ask for: some of the fastest ask for
// gigabytes, which the model's own memory may need.
constexpr std::size_t kMaxWorkspace = std::size_t{256} << 20;

}  // namespace

Status Cudnn::pick(Pass pass, Plan& p, int math, bool deterministic) const {
  constexpr int kAsked = 8;  // more than cuDNN has of any pass
  AlgoPerf found[kAsked]{};
  int returned = 0;
  Status s = pass == Pass::forward
                 ? forward_algorithm_(handle_, p.x, p.w, p.conv, p.y, kAsked, &returned, found)
             : pass == Pass::data
                 ? data_algorithm_(handle_, p.w, p.y, p.conv, p.x, kAsked, &returned, found)
                 : filter_algorithm_(handle_, p.x, p.y, p.conv, p.w, kAsked, &returned, found);
  if (s != kSuccess) return s;
  // The heuristics' best first. Under f32, none that needs tensor-core
  // math (it may round to TF32), and the descriptor stays FMA math; else
  // each with the math it was offered with.
  for (int r = 0; r < returned && r < kAsked; ++r) {
    const AlgoPerf& a = found[r];
    if (a.status != kSuccess || (deterministic && a.determinism != kDeterministic) ||
        (math == kFmaMath && a.math_type != kFmaMath && a.math_type != kDefaultMath))
      continue;
    if (math != kFmaMath)
      if (const Status m = set_math_(p.conv, a.math_type); m != kSuccess) return m;
    std::size_t bytes = 0;
    s = pass == Pass::forward ? forward_workspace_(handle_, p.x, p.w, p.conv, p.y, a.algo, &bytes)
        : pass == Pass::data  ? data_workspace_(handle_, p.w, p.y, p.conv, p.x, a.algo, &bytes)
                              : filter_workspace_(handle_, p.x, p.y, p.conv, p.w, a.algo, &bytes);
    if (s != kSuccess || bytes > kMaxWorkspace) continue;  // the next, not out of memory
    p.algo = a.algo;
    p.workspace = bytes;
    return kSuccess;
  }
  return kNotSupported;
}

Cudnn::Plan& Cudnn::plan(Pass pass, const ConvShape& s, int math, bool deterministic) const {
  const Key key{static_cast<int>(pass), s.key(), math, deterministic};
  if (const auto it = plans_.find(key); it != plans_.end()) return it->second;
  Plan& p = plans_[key];
  const auto i = [](std::int64_t v) { return static_cast<int>(v); };
  p.status = create_tensor_(&p.x);
  if (p.status == kSuccess) p.status = create_tensor_(&p.y);
  if (p.status == kSuccess) p.status = create_filter_(&p.w);
  if (p.status == kSuccess) p.status = create_conv_(&p.conv);
  // cuDNN's dims are (n, c, h, w) whatever the layout.
  if (p.status == kSuccess)
    p.status = set_tensor_(p.x, kTensorNhwc, kDataFloat, i(s.n), i(s.c), i(s.h), i(s.w));
  if (p.status == kSuccess)
    p.status = set_tensor_(p.y, kTensorNhwc, kDataFloat, i(s.n), i(s.f), i(s.oh), i(s.ow));
  if (p.status == kSuccess)
    p.status = set_filter_(p.w, kDataFloat, kTensorNhwc, i(s.f), i(s.c), i(s.kh), i(s.kw));
  if (p.status == kSuccess)
    p.status = set_conv_(p.conv, i(s.pad[0]), i(s.pad[1]), i(s.stride[0]), i(s.stride[1]),
                         i(s.dilation[0]), i(s.dilation[1]), kCrossCorrelation, kDataFloat);
  if (p.status == kSuccess) p.status = set_math_(p.conv, math);
  if (p.status == kSuccess) p.status = pick(pass, p, math, deterministic);
  return p;
}

Status Cudnn::run(Pass pass, const ConvShape& s, Precision precision, bool deterministic,
                  CUdeviceptr a, CUdeviceptr b, CUdeviceptr out,
                  const std::function<CUdeviceptr(std::size_t)>& workspace) const {
  if (precision == Precision::bf16) return kNotSupported;
  std::lock_guard lock(mutex_);
  const Plan& p =
      plan(pass, s, precision == Precision::f32 ? kFmaMath : kDefaultMath, deterministic);
  if (p.status != kSuccess) return p.status;
  void* space = p.workspace ? reinterpret_cast<void*>(workspace(p.workspace)) : nullptr;
  const float one = 1.0f, zero = 0.0f;
  const auto in = [](CUdeviceptr v) { return reinterpret_cast<const void*>(v); };
  void* o = reinterpret_cast<void*>(out);
  switch (pass) {
    case Pass::forward:
      return forward_(handle_, &one, p.x, in(a), p.w, in(b), p.conv, p.algo, space, p.workspace,
                      &zero, p.y, o);
    case Pass::data:
      return data_(handle_, &one, p.w, in(b), p.y, in(a), p.conv, p.algo, space, p.workspace, &zero,
                   p.x, o);
    case Pass::filter:
      return filter_(handle_, &one, p.x, in(a), p.y, in(b), p.conv, p.algo, space, p.workspace,
                     &zero, p.w, o);
  }
  return kNotSupported;
}

}  // namespace ss::cuda
