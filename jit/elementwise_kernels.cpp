#include "jit/elementwise_kernels.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <vector>

#include "ir/ops.hpp"  // ir::Unary
#include "jit/llvm_session.hpp"
#include "jit/object_session.hpp"

namespace ss::jit {
namespace {

using ir::Unary;

struct Builder {
  llvm::Module& module;
  llvm::IRBuilder<>& b;

  llvm::Type* f32() const { return b.getFloatTy(); }
  llvm::Type* f64() const { return b.getDoubleTy(); }

  llvm::Value* wide(llvm::Value* x) { return b.CreateFPExt(x, f64()); }
  llvm::Value* narrow(llvm::Value* x) { return b.CreateFPTrunc(x, f32()); }

  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
    return b.CreateUnaryIntrinsic(id, x);
  }
  // A libm function of one double, resolved in the process at link time.
  llvm::Value* libm(const char* name, llvm::Value* x) {
    auto callee = module.getOrInsertFunction(name, llvm::FunctionType::get(f64(), {f64()}, false));
    return b.CreateCall(callee, {x});
  }
  // libm's float function of one float, which the loop vectoriser maps to
  // SLEEF's where it is present (jit/vector_math.hpp): it touches no
  // memory the kernel sees (errno aside), so it may run as a vector.
  llvm::Value* libm_float(const char* name, llvm::Value* x) {
    auto callee = module.getOrInsertFunction(name, llvm::FunctionType::get(f32(), {f32()}, false));
    if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
      fn->setDoesNotAccessMemory();
      fn->setDoesNotThrow();
      fn->setWillReturn();
    }
    auto* call = b.CreateCall(callee, {x});
    call->setDoesNotAccessMemory();
    return call;
  }

  // A portable float function (jit/portable_functions): of a double, the
  // value narrowed, the function's, then widened back.
  llvm::Value* portable_float(const char* name, llvm::Value* x) {
    if (!x->getType()->isDoubleTy()) return libm_float(name, x);
    return b.CreateFPExt(libm_float(name, narrow(x)), f64());
  }

  // neg and logical_not; every other function of one value comes as its
  // formula's steps (types/unary.def, expanded by the core).
  llvm::Value* unary(int kind, llvm::Value* x) {
    switch (static_cast<Unary>(kind)) {
      case Unary::neg:
        return b.CreateFNeg(x);
      case Unary::logical_not:
        return b.CreateNot(x);
      default:
        return nullptr;
    }
  }

  // A formula's call: sqrt, fabs and floor, fmod and copysign
  // (exact, or one correctly rounded operation, in either width); exp,
  // log, tanh and erf of a double through libm's double functions, of a
  // float through float vector math (exp and log as LLVM's intrinsics,
  // which lower to expf and logf); pow through libm's pow or powf.
  llvm::Value* call(int function, llvm::Value* x, llvm::Value* y) {
    const bool wide_value = x->getType()->isDoubleTy();
    switch (function) {
      case SS_JIT_SQRT:
        return intrinsic(llvm::Intrinsic::sqrt, x);
      case SS_JIT_FABS:
        return intrinsic(llvm::Intrinsic::fabs, x);
      case SS_JIT_FLOOR:
        return intrinsic(llvm::Intrinsic::floor, x);
      case SS_JIT_EXP:
        return wide_value ? libm("exp", x) : intrinsic(llvm::Intrinsic::exp, x);
      case SS_JIT_LOG:
        return wide_value ? libm("log", x) : intrinsic(llvm::Intrinsic::log, x);
      case SS_JIT_TANH:
        return wide_value ? libm("tanh", x) : libm_float("tanhf", x);
      case SS_JIT_ERF:
        return wide_value ? libm("erf", x) : libm_float("erff", x);
      case SS_JIT_SIN:
        return wide_value ? libm("sin", x) : libm_float("sinf", x);
      case SS_JIT_COS:
        return wide_value ? libm("cos", x) : libm_float("cosf", x);
      case SS_JIT_TAN:
        return wide_value ? libm("tan", x) : libm_float("tanf", x);
      case SS_JIT_ASIN:
        return wide_value ? libm("asin", x) : libm_float("asinf", x);
      case SS_JIT_ACOS:
        return wide_value ? libm("acos", x) : libm_float("acosf", x);
      case SS_JIT_ATAN:
        return wide_value ? libm("atan", x) : libm_float("atanf", x);
      // (jit/portable_functions: each a vector function for the vectoriser;
      // of a double, the value narrowed: no libm under portable)
      case SS_JIT_PORTABLE_EXP:
        return portable_float("ss_portable_expf", x);
      case SS_JIT_PORTABLE_LOG:
        return portable_float("ss_portable_logf", x);
      case SS_JIT_PORTABLE_TANH:
        return portable_float("ss_portable_tanhf", x);
      case SS_JIT_PORTABLE_ERF:
        return portable_float("ss_portable_erff", x);
      // (a lane at a time through double)
      case SS_JIT_PORTABLE_SIN:
        return portable_float("ss_portable_sinf", x);
      case SS_JIT_PORTABLE_COS:
        return portable_float("ss_portable_cosf", x);
      case SS_JIT_PORTABLE_TAN:
        return portable_float("ss_portable_tanf", x);
      case SS_JIT_PORTABLE_ASIN:
        return portable_float("ss_portable_asinf", x);
      case SS_JIT_PORTABLE_ACOS:
        return portable_float("ss_portable_acosf", x);
      case SS_JIT_PORTABLE_ATAN:
        return portable_float("ss_portable_atanf", x);
      default:
        break;
    }
    if (!y) return nullptr;
    y = number(y, x->getType());
    switch (function) {
      case SS_JIT_POW: {  // libm's, as the reference's (no vector pow of other bits)
        llvm::Type* t = x->getType();
        auto callee = module.getOrInsertFunction(t->isDoubleTy() ? "pow" : "powf",
                                                 llvm::FunctionType::get(t, {t, t}, false));
        return b.CreateCall(callee, {x, y});
      }
      case SS_JIT_PORTABLE_POW: {  // in double, as the formula widens it
        llvm::Value* wx = wide_value ? x : wide(x);
        llvm::Value* wy = wide_value ? y : wide(y);
        auto callee = module.getOrInsertFunction(
            "ss_portable_pow", llvm::FunctionType::get(f64(), {f64(), f64()}, false));
        if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
          fn->setDoesNotAccessMemory();
          fn->setDoesNotThrow();
          fn->setWillReturn();
        }
        auto* call = b.CreateCall(callee, {wx, wy});
        call->setDoesNotAccessMemory();
        return wide_value ? static_cast<llvm::Value*>(call) : narrow(call);
      }
      case SS_JIT_FMOD:
        return b.CreateFRem(x, y);
      case SS_JIT_COPYSIGN:
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x, y);
      default:
        return nullptr;
    }
  }

  // A bool as a number of `type` (1 or 0); a number as it is.
  llvm::Value* number(llvm::Value* x, llvm::Type* type) {
    return x->getType()->isIntegerTy(1) ? b.CreateUIToFP(x, type) : x;
  }
  // Two operands in one type: a bool beside a number becomes that number's
  // type, two bools stay bools.
  std::pair<llvm::Value*, llvm::Value*> same_type(llvm::Value* x, llvm::Value* y) {
    if (x->getType() == y->getType()) return {x, y};
    const bool x_bool = x->getType()->isIntegerTy(1);
    llvm::Type* type = x_bool ? y->getType() : x->getType();
    return {number(x, type), number(y, type)};
  }

  llvm::Value* truth(llvm::Value* x) {  // a != 0, for logic on numbers
    return x->getType()->isIntegerTy(1)
               ? x
               : b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
  }

  llvm::Value* binary(int kind, llvm::Value* x, llvm::Value* y) {
    const auto [l, r] = same_type(x, y);
    if (l->getType()->isIntegerTy(1)) return nullptr;  // arithmetic on two bools
    switch (kind) {
      case SS_JIT_ADD:
        return b.CreateFAdd(l, r);
      case SS_JIT_SUB:
        return b.CreateFSub(l, r);
      case SS_JIT_MUL:
        return b.CreateFMul(l, r);
      case SS_JIT_DIV:
        return b.CreateFDiv(l, r);
      default:
        return nullptr;
    }
  }

  llvm::Value* compare(int kind, llvm::Value* x, llvm::Value* y) {
    const auto [l, r] = same_type(x, y);
    if (l->getType()->isIntegerTy(1)) {
      switch (kind) {
        case SS_JIT_EQ:
          return b.CreateICmpEQ(l, r);
        case SS_JIT_NE:
          return b.CreateICmpNE(l, r);
        default:
          return nullptr;
      }
    }
    switch (kind) {
      case SS_JIT_LT:
        return b.CreateFCmpOLT(l, r);
      case SS_JIT_LE:
        return b.CreateFCmpOLE(l, r);
      case SS_JIT_GT:
        return b.CreateFCmpOGT(l, r);
      case SS_JIT_GE:
        return b.CreateFCmpOGE(l, r);
      case SS_JIT_EQ:
        return b.CreateFCmpOEQ(l, r);
      case SS_JIT_NE:
        return b.CreateFCmpUNE(l, r);
      default:
        return nullptr;
    }
  }

  llvm::Value* logic(int kind, llvm::Value* x, llvm::Value* y) {
    if (kind == SS_JIT_AND) return b.CreateAnd(truth(x), truth(y));
    if (kind == SS_JIT_OR) return b.CreateOr(truth(x), truth(y));
    return nullptr;
  }
};

// void f(ptr inputs, ptr outer_strides, ptr noalias out, i64 outer, i64 inner)
std::string build_kernel(llvm::Module& module, const SsJitKernelDesc& k, const std::string& name) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* i64 = b.getInt64Ty();
  auto* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, i64, i64}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addParamAttr(2, llvm::Attribute::NoAlias);
  llvm::Value *inputs = fn->getArg(0), *strides = fn->getArg(1), *out = fn->getArg(2);
  llvm::Value *outer = fn->getArg(3), *inner = fn->getArg(4);

  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* rows = llvm::BasicBlock::Create(ctx, "rows", fn);
  auto* body = llvm::BasicBlock::Create(ctx, "body", fn);
  auto* next_row = llvm::BasicBlock::Create(ctx, "next_row", fn);
  auto* done = llvm::BasicBlock::Create(ctx, "done", fn);

  b.SetInsertPoint(entry);
  llvm::Value* empty =
      b.CreateOr(b.CreateICmpSLE(outer, b.getInt64(0)), b.CreateICmpSLE(inner, b.getInt64(0)));
  b.CreateCondBr(empty, done, rows);

  // Each input's row, and the output's, for this o.
  b.SetInsertPoint(rows);
  auto* o = b.CreatePHI(i64, 2, "o");
  std::vector<bool> is_bool(static_cast<std::size_t>(k.input_count), false);
  for (int s = 0; s < k.step_count; ++s)
    if (k.steps[s].op == SS_JIT_LOAD_BOOL) is_bool[static_cast<std::size_t>(k.steps[s].a)] = true;
  std::vector<llvm::Value*> row(static_cast<std::size_t>(k.input_count));
  for (int in = 0; in < k.input_count; ++in) {
    llvm::Value* base = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, inputs, in));
    llvm::Value* stride = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, strides, in));
    llvm::Type* element = is_bool[static_cast<std::size_t>(in)] ? b.getInt8Ty() : b.getFloatTy();
    row[static_cast<std::size_t>(in)] = b.CreateGEP(element, base, b.CreateMul(o, stride));
  }
  llvm::Value* out_row = b.CreateGEP(b.getFloatTy(), out, b.CreateMul(o, inner));
  b.CreateBr(body);

  b.SetInsertPoint(body);
  auto* i = b.CreatePHI(i64, 2, "i");
  Builder ops{module, b};
  std::vector<llvm::Value*> v(static_cast<std::size_t>(k.step_count));
  const auto at = [&](int index) -> llvm::Value* {
    return index >= 0 && index < static_cast<int>(v.size()) ? v[static_cast<std::size_t>(index)]
                                                            : nullptr;
  };
  for (int s = 0; s < k.step_count; ++s) {
    const SsJitStep& st = k.steps[s];
    llvm::Value* value = nullptr;
    switch (st.op) {
      case SS_JIT_LOAD:
      case SS_JIT_LOAD_BOOL: {
        if (st.a < 0 || st.a >= k.input_count) return "a load of input " + std::to_string(st.a);
        const bool bool_input = st.op == SS_JIT_LOAD_BOOL;
        llvm::Type* element = bool_input ? b.getInt8Ty() : b.getFloatTy();
        llvm::Value* index = k.inner_broadcast[st.a] ? b.getInt64(0) : static_cast<llvm::Value*>(i);
        value =
            b.CreateLoad(element, b.CreateGEP(element, row[static_cast<std::size_t>(st.a)], index));
        if (bool_input) value = b.CreateICmpNE(value, b.getInt8(0));
        break;
      }
      case SS_JIT_CONSTANT:
        value = llvm::ConstantFP::get(b.getFloatTy(), st.value);
        break;
      case SS_JIT_UNARY:
        if (at(st.a)) value = ops.unary(st.kind, at(st.a));
        break;
      case SS_JIT_BINARY:
        if (at(st.a) && at(st.b)) value = ops.binary(st.kind, at(st.a), at(st.b));
        break;
      case SS_JIT_COMPARE:
        if (at(st.a) && at(st.b)) value = ops.compare(st.kind, at(st.a), at(st.b));
        break;
      case SS_JIT_LOGIC:
        if (at(st.a) && at(st.b)) value = ops.logic(st.kind, at(st.a), at(st.b));
        break;
      case SS_JIT_WHERE:
        if (at(st.a) && at(st.b) && at(st.c)) {
          const auto [then, otherwise] = ops.same_type(at(st.b), at(st.c));
          value = b.CreateSelect(ops.truth(at(st.a)), then, otherwise);
        }
        break;
      case SS_JIT_WIDEN:
        if (at(st.a) && at(st.a)->getType()->isFloatTy()) value = ops.wide(at(st.a));
        break;
      case SS_JIT_NARROW:
        if (at(st.a) && at(st.a)->getType()->isDoubleTy()) value = ops.narrow(at(st.a));
        break;
      case SS_JIT_WIDE_CONSTANT:
        value = llvm::ConstantFP::get(b.getDoubleTy(), st.wide_value);
        break;
      case SS_JIT_CALL:
        if (at(st.a)) value = ops.call(st.kind, ops.number(at(st.a), b.getFloatTy()), at(st.b));
        break;
    }
    if (!value) return "step " + std::to_string(s) + " can't be built";
    v[static_cast<std::size_t>(s)] = value;
  }
  if (k.step_count == 0 || !v.back()->getType()->isFloatTy()) return "the result isn't a float";
  b.CreateStore(v.back(), b.CreateGEP(b.getFloatTy(), out_row, i));
  llvm::Value* i_next = b.CreateAdd(i, b.getInt64(1), "", true, true);
  b.CreateCondBr(b.CreateICmpEQ(i_next, inner), next_row, body);
  i->addIncoming(b.getInt64(0), rows);
  i->addIncoming(i_next, body);

  b.SetInsertPoint(next_row);
  llvm::Value* o_next = b.CreateAdd(o, b.getInt64(1), "", true, true);
  b.CreateCondBr(b.CreateICmpEQ(o_next, outer), done, rows);
  o->addIncoming(b.getInt64(0), entry);
  o->addIncoming(o_next, next_row);

  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return {};
}

}  // namespace

std::string compile_elementwise(const SsJitKernelDesc* kernels, int count,
                                const std::string& prefix, std::string* object) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>(prefix, *context);
  for (int k = 0; k < count; ++k)
    if (std::string why = build_kernel(*module, kernels[k], prefix + std::to_string(k));
        !why.empty())
      return "kernel " + std::to_string(k) + ": " + why;
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(*module, &broken_stream)) return "invalid IR: " + broken;
  return emit_object(*module, object);
}

}  // namespace ss::jit
