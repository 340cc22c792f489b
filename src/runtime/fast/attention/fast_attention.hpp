// The fast executor's attention (ir/attention.hpp's node) and its gradient
// as single kernels: each batch position (every letter but the queries',
// keys', contracted and values' own) on one thread, flash-style, through
// the kernel for the widest vector unit the CPU has. The batch positions
// are split over `threads`; each is computed in one order whatever the
// split, so the bits repeat for any thread count. False leaves the node to
// its body (the composition): a dtype or layout it doesn't take, or
// infinite scores; with SHAPESCRIPT_ATTENTION_KERNEL=0 set, every one.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime::fast {

// `scale`: the node's scale input, or null.
// `portable`: Numerics::portable (the same bits on every CPU).
bool attention(const ir::Node& n, const Tensor& q, const Tensor& k, const Tensor& v,
               const Tensor* scale, Tensor& out, int threads, bool portable = false);

// dq, dk and dv stacked along a new leading axis, from the attention's
// inputs and its value's gradient.
bool attention_grad(const ir::Node& n, const Tensor& q, const Tensor& k, const Tensor& v,
                    const Tensor* scale, const Tensor& dout, Tensor& grads, int threads,
                    bool portable = false);

// The kernels this CPU can run, best first ("avx512", "avx2", "portable");
// the _with forms run one by name (for the tests).
std::vector<std::string> attention_kernels();
// ("fma4", four-wide with FMA, is the portable numerics' scalar path.)
bool attention_with(const std::string& kernel, const ir::Node& n, const Tensor& q, const Tensor& k,
                    const Tensor& v, const Tensor* scale, Tensor& out, int threads,
                    bool portable = false);
bool attention_grad_with(const std::string& kernel, const ir::Node& n, const Tensor& q,
                         const Tensor& k, const Tensor& v, const Tensor* scale, const Tensor& dout,
                         Tensor& grads, int threads, bool portable = false);

}  // namespace ss::runtime::fast
