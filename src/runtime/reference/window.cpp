// window and window_fold, plainly: each element of the windowed tensor is
// one element of the input (or the padding), found from its multi-index.
#include "runtime/reference/ops.hpp"

namespace ss::runtime::reference {
namespace {

// Where each element of the windowed shape comes from in a tensor of
// `shape`: its flat index there, or -1 for the padding.
class Source {
 public:
  Source(const Shape& shape, const ir::Window& w) : shape_(shape), w_(w) {
    if (!w.valid(static_cast<std::int64_t>(shape.size())))
      throw InternalError("a window that doesn't fit its input's axes");
    windowed_ = w.shape_of(shape);
  }
  const Shape& windowed() const { return windowed_; }

  std::int64_t of(const std::vector<std::int64_t>& index) const {
    std::vector<std::int64_t> at(index.begin(),
                                 index.begin() + static_cast<std::ptrdiff_t>(shape_.size()));
    for (std::size_t k = 0; k < w_.axes.size(); ++k) {
      const auto& a = w_.axes[k];
      const auto axis = static_cast<std::size_t>(a.axis);
      const std::int64_t p = a.position(index[axis], index[shape_.size() + k]);
      if (p < 0 || p >= shape_[axis]) return -1;
      at[axis] = p;
    }
    std::int64_t flat = 0;
    for (std::size_t k = 0; k < shape_.size(); ++k) flat = flat * shape_[k] + at[k];
    return flat;
  }

 private:
  Shape shape_, windowed_;
  const ir::Window& w_;
};

// Calls f(flat, index) for every element of `shape`, last axis fastest.
template <typename F>
void each(const Shape& shape, F f) {
  std::vector<std::int64_t> index(shape.size(), 0);
  const std::int64_t n = element_count(shape);
  for (std::int64_t flat = 0; flat < n; ++flat) {
    f(flat, index);
    for (std::size_t k = shape.size(); k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
}

}  // namespace

Tensor window(const Tensor& x, const ir::Window& w) {
  const Source source(x.shape(), w);
  Tensor out = Tensor::zeros(x.dtype(), source.windowed());
  each(source.windowed(), [&](std::int64_t flat, const std::vector<std::int64_t>& index) {
    const std::int64_t from = source.of(index);
    out.set(flat, from < 0 ? w.value : x.get(from));
  });
  return out;
}

Tensor window_fold(const Tensor& values, const Shape& like, const ir::Window& w) {
  const Source source(like, w);
  if (values.shape() != source.windowed())
    throw InternalError("window_fold's values aren't its window's shape");
  Tensor out = Tensor::zeros(values.dtype(), like);
  each(source.windowed(), [&](std::int64_t flat, const std::vector<std::int64_t>& index) {
    const std::int64_t to = source.of(index);
    if (to >= 0) out.set(to, out.get(to) + values.get(flat));
  });
  return out;
}

}  // namespace ss::runtime::reference
