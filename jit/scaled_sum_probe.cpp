// The toolchain probe: one small kernel taken through every step the real
// code generator uses (IR building, O3 for the host, ORC LLJIT), so a broken
// LLVM install or a pipeline that stops vectorising shows up as a failing test.
#include "jit/scaled_sum_probe.hpp"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

#include "jit/llvm_session.hpp"

namespace ss::jit {
namespace {

constexpr const char* kName = "ss_probe_scaled_sum";

// float f(const float* noalias x, i64 n, float a): sum of a * x[i], with
// `reassoc contract` on the arithmetic so the reduction may be vectorised.
void build_scaled_sum(llvm::Module& module) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* f32 = b.getFloatTy();
  auto* i64 = b.getInt64Ty();
  auto* type = llvm::FunctionType::get(f32, {b.getPtrTy(), i64, f32}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kName, module);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* x = fn->getArg(0);
  llvm::Value* n = fn->getArg(1);
  llvm::Value* a = fn->getArg(2);

  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);

  llvm::FastMathFlags fmf;
  fmf.setAllowReassoc();
  fmf.setAllowContract();

  b.SetInsertPoint(entry);
  auto* zero = llvm::ConstantFP::get(f32, 0.0);
  b.CreateCondBr(b.CreateICmpSLE(n, b.getInt64(0)), exit, loop);

  b.SetInsertPoint(loop);
  b.setFastMathFlags(fmf);
  auto* i = b.CreatePHI(i64, 2, "i");
  auto* acc = b.CreatePHI(f32, 2, "acc");
  auto* value = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, x, i));
  auto* next_acc = b.CreateFAdd(acc, b.CreateFMul(value, a));
  auto* next_i = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(b.getInt64(0), entry);
  i->addIncoming(next_i, loop);
  acc->addIncoming(zero, entry);
  acc->addIncoming(next_acc, loop);
  b.CreateCondBr(b.CreateICmpEQ(next_i, n), exit, loop);

  b.SetInsertPoint(exit);
  auto* result = b.CreatePHI(f32, 2);
  result->addIncoming(zero, entry);
  result->addIncoming(next_acc, loop);
  b.CreateRet(result);
}

}  // namespace

ProbeOutcome probe_scaled_sum(const float* x, std::int64_t n, float a) {
  const auto start = std::chrono::steady_clock::now();
  ProbeOutcome out;

  auto builder = host_machine_builder();
  if (!builder) return {false, {}, "host target: " + llvm::toString(builder.takeError())};
  auto machine = builder->createTargetMachine();
  if (!machine) return {false, {}, "target machine: " + llvm::toString(machine.takeError())};

  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("ss_probe", *context);
  build_scaled_sum(*module);
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(*module, &broken_stream)) return {false, {}, "invalid IR: " + broken};

  optimise_for(*module, **machine);
  out.result.vector_width = widest_float_vector(*module);

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*builder)).create();
  if (!jit) return {false, {}, "LLJIT: " + llvm::toString(jit.takeError())};
  if (auto err =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    return {false, {}, "adding the module: " + llvm::toString(std::move(err))};
  auto symbol = (*jit)->lookup(kName);
  if (!symbol) return {false, {}, "lookup: " + llvm::toString(symbol.takeError())};

  auto* fn = symbol->toPtr<float (*)(const float*, std::int64_t, float)>();
  out.result.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.result.value = fn(x, n, a);
  out.ok = true;
  return out;
}

}  // namespace ss::jit
