#include "runtime/controller/controller_impl.hpp"

namespace ss::runtime::control {

using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

// Runs a controller function; `finals`, when given, gets its parameters'
// values as it returned (for `mut` arguments).
Value Controller::call(const std::string& name, std::vector<Value> args, diag::Span at,
                       std::vector<Value>* finals) {
  const auto found = code_.find(name);
  if (found == code_.end()) {
    const auto fn = p_.functions.find(name);
    if (fn != p_.functions.end() && fn->second.is_extern)
      return call_host(name, fn->second, args, at);
    throw std::logic_error("no compact form of the controller function `" + name + "`");
  }
  const ir::HostFunction& fn = found->second;
  std::vector<Value> slots(fn.slots.size());
  for (std::size_t i = 0; i < args.size() && i < fn.params.size(); ++i)
    slots[static_cast<std::size_t>(fn.params[i])] = std::move(args[i]);
  Value result = run(fn, slots);
  if (finals)
    for (const int p : fn.params) finals->push_back(std::move(slots[static_cast<std::size_t>(p)]));
  return result;
}

// An `extern fn`: the host's function, its result checked against the
// declaration (E1608 for a failure or a result that doesn't fit).
Value Controller::call_host(const std::string& name, const ir::Signature& fn,
                            const std::vector<Value>& args, diag::Span at) {
  if (!options_.call_host) unsupported("calling the host function `" + name + "`", at);
  const auto fail = [&](const std::string& why) -> Failure {
    Diagnostic d = diag::error(diag::Code::E1608, "the host function `" + name + "` " + why,
                               "the host's function must return what its `extern fn` "
                               "declares, or throw to fail the call");
    d.labels.push_back(map_.label(at, "called here", true));
    d.location = d.labels.back().start;
    return Failure{std::move(d)};
  };
  Value result;
  try {
    result = options_.call_host(name, args);
  } catch (const HostFunctionError& e) {
    throw fail(std::string("failed: ") + e.what());
  }
  const types::Type& want = fn.ret;
  // Numbers and strings: their kind was checked at load.
  if (want.is(types::Type::Kind::integer)) return number(result.number, true);
  if (!want.is_tensor()) return result;
  const Tensor& t = result.tensor;
  const DType dtype = dtype_of(want.elem);
  bool fits = result.kind == Value::Kind::tensor &&
              t.rank() == static_cast<std::int64_t>(want.axes.size()) && t.dtype() == dtype;
  for (std::size_t k = 0; fits && k < want.axes.size(); ++k)
    if (const auto size = size_of(want.axes[k], {}, p_.dims);
        size && *size != t.dim(static_cast<std::int64_t>(k)))
      fits = false;
  if (!fits)
    throw fail("returned a " + std::string(dtype_name(t.dtype())) + " tensor of shape " +
               shape_str(t.shape()) + ", where its `extern fn` declares " + want.str());
  return result;
}

// Runs a function: compiled (tier 1) when the JIT is there and compiles
// it, else interpreted; the two share every instruction's work below.
Value Controller::run(const ir::HostFunction& fn, std::vector<Value>& slots) {
  const SsJitHostFn compiled = compiled_function(fn);
  if (options_.on_call) options_.on_call(fn.name, compiled != nullptr);
  return compiled ? run_compiled(fn, slots, compiled) : interpret(fn, slots);
}

Value Controller::interpret(const ir::HostFunction& fn, std::vector<Value>& slots) {
  std::size_t pc = 0;
  while (pc < fn.code.size()) {
    const HostInstr& in = fn.code[pc];
    switch (in.op) {
      case HostOp::branch:
      case HostOp::loop_next:
        pc = test(fn, slots, pc) ? pc + 1 : static_cast<std::size_t>(in.target);
        break;
      case HostOp::jump:
        pc = static_cast<std::size_t>(in.target);
        break;
      case HostOp::ret: {
        Value out;
        exec(fn, slots, pc, &out);
        return out;
      }
      default:
        exec(fn, slots, pc++, nullptr);
    }
  }
  return of_kind(Value::Kind::none);
}

// A function's control flow as the JIT's steps: branches and loops ask
// test(), jumps are the code's own, everything else is exec().
SsJitHostFn Controller::compiled_function(const ir::HostFunction& fn) {
  if (!options_.jit) return nullptr;
  if (const auto it = compiled_.find(&fn); it != compiled_.end()) return it->second.fn;
  // The load's code: the module holds it as long as this controller runs.
  if (options_.compiled)
    if (const auto it = options_.compiled->find(&fn); it != options_.compiled->end())
      return it->second.fn;
  return (compiled_[&fn] = controller_code(*options_.jit, fn, options_.code_cache)).fn;
}

std::int32_t Controller::exec_step(void* frame, std::int32_t pc) noexcept {
  auto& f = *static_cast<Frame*>(frame);
  try {
    f.self->exec(*f.fn, *f.slots, static_cast<std::size_t>(pc), &f.returned);
    return 0;
  } catch (...) {
    f.failure = std::current_exception();
    return 1;
  }
}

std::int32_t Controller::test_step(void* frame, std::int32_t pc) noexcept {
  auto& f = *static_cast<Frame*>(frame);
  try {
    return f.self->test(*f.fn, *f.slots, static_cast<std::size_t>(pc)) ? 1 : 0;
  } catch (...) {
    f.failure = std::current_exception();
    return -1;
  }
}

Value Controller::run_compiled(const ir::HostFunction& fn, std::vector<Value>& slots,
                               SsJitHostFn code) {
  static constexpr SsJitHostCallbacks callbacks = {&exec_step, &test_step};
  Frame frame{this, &fn, &slots, nullptr, of_kind(Value::Kind::none)};
  const std::int32_t status = code(&frame, &callbacks);
  if (status == 1) std::rethrow_exception(frame.failure);
  if (status != 0 && status != 2)
    throw std::logic_error("compiled controller code returned " + std::to_string(status));
  return status == 2 ? std::move(frame.returned) : of_kind(Value::Kind::none);
}

// A variable read before any binding of it ran is the program's error.
void Controller::check_reads(const ir::HostFunction& fn, const std::vector<Value>& slots,
                             const HostInstr& in) {
  for (const auto& read : in.reads)
    if (slots[static_cast<std::size_t>(read.slot)].kind == Value::Kind::unbound)
      fail(diag::Code::E1508, read.span,
           "`" + fn.slots[static_cast<std::size_t>(read.slot)] +
               "` is read before any binding of it ran",
           "not bound yet", "bind it on every path that reaches here (a loop's body may not run)");
}

}  // namespace ss::runtime::control
