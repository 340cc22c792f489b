// The size a sliding window leaves along one axis, PyTorch's arithmetic for
// conv and pooling: floor((n + before + after - d*(k-1) - 1) / s) + 1. The
// checker compares it with what `out=` names; a host's dims sized at load
// are compared then (api::apply_dims).
#pragma once

#include <cstdint>
#include <string>

#include "types/types.hpp"

namespace ss::types {

struct WindowSize {
  std::int64_t n = 0, k = 1, stride = 1, dilation = 1, before = 0, after = 0;

  // 0 when no window fits. In 128 bits, so that a program's huge dilation or
  // padding can't wrap; a count past 2^63 - 1 reads as 2^63 - 1.
  std::int64_t result() const {
    __extension__ typedef __int128 Wide;  // -Wpedantic: a GNU type
    const Wide span = Wide(dilation) * (k - 1) + 1, padded = Wide(n) + before + after;
    if (padded < span || stride <= 0) return 0;
    const Wide r = (padded - span) / stride + 1;
    return r > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(r);
  }
  // "floor((8 + 2*1 - 1*(3-1) - 1) / 2) + 1 = 4"
  std::string formula() const {
    const std::string pad = before == after
                                ? (before == 0 ? "" : " + 2*" + std::to_string(before))
                                : " + " + std::to_string(before) + " + " + std::to_string(after);
    return "floor((" + std::to_string(n) + pad + " - " + std::to_string(dilation) + "*(" +
           std::to_string(k) + "-1) - 1) / " + std::to_string(stride) +
           ") + 1 = " + std::to_string(result());
  }
};

// A window's size check left for load, when a host sizes the dims it needs.
struct WindowCheck {
  std::string op;  // "conv", "max_pool", "avg_pool"
  Axis n, k, out;  // the input's axis, the window's size, what `out=` names
  std::int64_t stride = 1, dilation = 1, before = 0, after = 0;
  std::uint32_t span_begin = 0, span_end = 0;
};

}  // namespace ss::types
