#include "api/host_functions.hpp"

#include <optional>

#include "api/module_impl.hpp"
#include "diag/codes.hpp"
#include "runtime/controller/controller.hpp"

namespace ss {

const char* kind_name(HostValue::Kind kind) {
  switch (kind) {
    case HostValue::Kind::tensor:
      return "tensor";
    case HostValue::Kind::number:
      return "number";
    case HostValue::Kind::string:
      return "string";
  }
  return "?";
}

namespace api {
namespace {

// The kind of host value a declared type takes (the checker allows no
// others: E1602).
std::optional<HostValue::Kind> kind_of(const types::Type& t) {
  if (t.is_tensor() || t.is(types::Type::Kind::any_tensor)) return HostValue::Kind::tensor;
  if (t.is_scalar_number()) return HostValue::Kind::number;
  if (t.is(types::Type::Kind::string)) return HostValue::Kind::string;
  return std::nullopt;
}

std::string kinds(const std::vector<HostValue::Kind>& ks) {
  std::string out = "(";
  for (std::size_t i = 0; i < ks.size(); ++i)
    out += (i ? ", " : "") + std::string(kind_name(ks[i]));
  return out + ")";
}

}  // namespace

void check_host_functions(Compiled& c, const std::map<std::string, HostFunction>& bound) {
  if (!c.ok()) return;
  for (const auto& entry : c.typed.functions) {
    // Named, not a structured binding: clang 14 won't let a lambda capture one.
    const std::string& name = entry.first;
    const auto& fn = entry.second;
    if (!fn.item->is_extern) continue;
    std::vector<HostValue::Kind> want;
    for (const auto& p : fn.params) want.push_back(kind_of(p).value_or(HostValue::Kind::tensor));
    const auto result = kind_of(fn.ret).value_or(HostValue::Kind::tensor);
    const auto it = bound.find(name);
    const auto report = [&](diag::Code code, const std::string& message, const std::string& label,
                            const std::string& help) {
      Diagnostic d = diag::error(code, message, help);
      d.labels.push_back(c.map->label(fn.item->name_span, label, true));
      d.location = d.labels.back().start;
      c.diagnostics.push_back(std::move(d));
    };
    if (it == bound.end() || !it->second) {
      report(diag::Code::E1606, "the host bound no function for `extern fn " + name + "`",
             "declared here",
             "bind one before load: LoadOptions::host_functions[\"" + name +
                 "\"] (ss_load_options_bind in C); the shapescript CLI binds none");
      continue;
    }
    const HostFunction& h = it->second;
    if (h.params() != want || h.result() != result)
      report(diag::Code::E1607,
             "the host's function for `" + name + "` takes " + kinds(h.params()) +
                 " and returns a " + kind_name(h.result()) + "; its `extern fn` takes " +
                 kinds(want) + " and returns a " + kind_name(result),
             "declared here",
             "give the binding the declaration's parameters, in order: tensors as ss::Tensor, "
             "ints and floats as numbers, strings as std::string");
  }
}

std::function<runtime::Value(const std::string&, const std::vector<runtime::Value>&)> host_caller(
    std::map<std::string, HostFunction> bound) {
  return [bound = std::move(bound)](const std::string& name,
                                    const std::vector<runtime::Value>& args) {
    using runtime::Value;
    const HostFunction& h = bound.at(name);
    std::vector<HostValue> given;
    for (const Value& v : args) {
      if (v.kind == Value::Kind::tensor) {
        const runtime::Tensor packed = v.tensor.compact();  // copied: the host owns what it gets
        given.push_back(HostValue::of(
            Tensor::copy(static_cast<DType>(packed.dtype()), packed.raw(), packed.shape())));
      } else if (v.kind == Value::Kind::string) {
        given.push_back(HostValue::of(v.text));
      } else {
        given.push_back(HostValue::of(runtime::as_double(v)));  // exact to 2^53
      }
    }
    HostValue got;
    try {
      got = h(given);
    } catch (const std::exception& e) {
      throw runtime::HostFunctionError(e.what());
    } catch (...) {
      throw runtime::HostFunctionError("it threw something that isn't a std::exception");
    }
    if (got.kind != h.result())
      throw runtime::HostFunctionError(std::string("it returned a ") + kind_name(got.kind) +
                                       ", where its binding says " + kind_name(h.result()));
    Value out;
    switch (got.kind) {
      case HostValue::Kind::tensor:
        if (auto bad = Module::Impl::unusable("its result", got.tensor))
          throw runtime::HostFunctionError("it returned a tensor that can't be read: " +
                                           bad->message);
        out.kind = Value::Kind::tensor;
        out.tensor = Module::Impl::to_runtime(got.tensor).clone();  // the host's memory may go
        break;
      case HostValue::Kind::number:
        out = runtime::number(got.number, false);
        break;
      case HostValue::Kind::string:
        out.kind = Value::Kind::string;
        out.text = got.text;
        break;
    }
    return out;
  };
}

}  // namespace api
}  // namespace ss
