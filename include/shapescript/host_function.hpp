// Host functions: what an `extern fn` of a program does, given by the host
// before load (LoadOptions::host_functions). A missing binding is E1606 at
// load, one whose parameters or result don't fit the declaration E1607; a
// call that throws, or returns a value of another shape, fails the calling
// program with E1608.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "shapescript/export.hpp"
#include "shapescript/tensor.hpp"

namespace ss {

// A value an `extern fn` takes or returns: a tensor (any tensor type), a
// number (`int` and `float` parameters) or a string.
struct SS_API HostValue {
  enum class Kind { tensor, number, string };
  Kind kind = Kind::tensor;
  Tensor tensor;
  double number = 0;
  std::string text;

  static HostValue of(Tensor t) { return {Kind::tensor, std::move(t), 0, {}}; }
  static HostValue of(double x) { return {Kind::number, {}, x, {}}; }
  static HostValue of(std::string s) { return {Kind::string, {}, 0, std::move(s)}; }
};

// "tensor", "number" or "string".
SS_API const char* kind_name(HostValue::Kind kind);

namespace detail {

template <typename T>
struct HostKind;
template <>
struct HostKind<Tensor> {
  static constexpr HostValue::Kind kind = HostValue::Kind::tensor;
  static Tensor from(const HostValue& v) { return v.tensor; }
};
template <>
struct HostKind<std::string> {
  static constexpr HostValue::Kind kind = HostValue::Kind::string;
  static std::string from(const HostValue& v) { return v.text; }
};
template <typename N>
struct HostNumber {
  static constexpr HostValue::Kind kind = HostValue::Kind::number;
  static N from(const HostValue& v) { return static_cast<N>(v.number); }
};
template <>
struct HostKind<double> : HostNumber<double> {};
template <>
struct HostKind<float> : HostNumber<float> {};
template <>
struct HostKind<int> : HostNumber<int> {};
template <>
struct HostKind<std::int64_t> : HostNumber<std::int64_t> {};

template <typename T>
HostValue to_host(T value) {
  if constexpr (HostKind<T>::kind == HostValue::Kind::number)
    return HostValue::of(static_cast<double>(value));
  else
    return HostValue::of(std::move(value));
}

// A callable's result and parameters, decayed.
template <typename F>
struct Signature : Signature<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct Signature<R (C::*)(A...) const> {
  using Result = std::decay_t<R>;
  using Args = std::tuple<std::decay_t<A>...>;
};
template <typename C, typename R, typename... A>
struct Signature<R (C::*)(A...)> : Signature<R (C::*)(A...) const> {};
template <typename R, typename... A>
struct Signature<R (*)(A...)> {
  using Result = std::decay_t<R>;
  using Args = std::tuple<std::decay_t<A>...>;
};

}  // namespace detail

class SS_API HostFunction {
 public:
  using Call = std::function<HostValue(const std::vector<HostValue>& args)>;

  HostFunction() = default;
  // The kinds it takes, in order, and returns, and the call. The library
  // calls it with exactly those kinds, from the thread that runs the
  // program's controller (one call at a time per module call).
  HostFunction(std::vector<HostValue::Kind> params, HostValue::Kind result, Call call)
      : params_(std::move(params)), result_(result), call_(std::move(call)) {}

  // From a callable (a lambda, a function pointer) whose parameters are
  // Tensor, double, float, int, std::int64_t or std::string, by value or
  // const reference, and whose result is one of those: the kinds come
  // from its signature.
  template <typename F, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<F>, HostFunction> &&
                            !std::is_convertible_v<std::decay_t<F>, std::vector<HostValue::Kind>>>>
  HostFunction(F f) {  // NOLINT: implicit, so a lambda binds directly
    using S = detail::Signature<std::decay_t<F>>;
    constexpr std::size_t n = std::tuple_size_v<typename S::Args>;
    bind(f, static_cast<typename S::Result*>(nullptr), static_cast<typename S::Args*>(nullptr),
         std::make_index_sequence<n>{});
  }

  const std::vector<HostValue::Kind>& params() const { return params_; }
  HostValue::Kind result() const { return result_; }
  // Throws what the host's function throws.
  HostValue operator()(const std::vector<HostValue>& args) const { return call_(args); }
  explicit operator bool() const { return static_cast<bool>(call_); }

 private:
  template <typename F, typename R, typename... A, std::size_t... I>
  void bind(F f, R*, std::tuple<A...>*, std::index_sequence<I...>) {
    params_ = {detail::HostKind<A>::kind...};
    result_ = detail::HostKind<R>::kind;
    call_ = [f](const std::vector<HostValue>& args) -> HostValue {
      if (args.size() != sizeof...(A)) throw std::invalid_argument("wrong number of arguments");
      return detail::to_host<R>(f(detail::HostKind<A>::from(args[I])...));
    };
  }

  std::vector<HostValue::Kind> params_;
  HostValue::Kind result_ = HostValue::Kind::tensor;
  Call call_;
};

}  // namespace ss
