#include "jit/controller_code.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <vector>

#include "jit/object_session.hpp"

namespace ss::jit {
namespace {

// i32 f(ptr frame, ptr callbacks): the callbacks are {exec, test}.
std::string build(llvm::Module& module, const SsJitHostStep* steps, int count,
                  const std::string& name) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* i32 = b.getInt32Ty();
  auto* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(i32, {ptr, ptr}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value *frame = fn->getArg(0), *callbacks = fn->getArg(1);
  auto* callback_type = llvm::FunctionType::get(i32, {ptr, i32}, false);

  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  std::vector<llvm::BasicBlock*> at;
  for (int i = 0; i <= count; ++i)  // at[count]: off the end
    at.push_back(llvm::BasicBlock::Create(ctx, "i" + std::to_string(i), fn));
  auto* failed = llvm::BasicBlock::Create(ctx, "failed", fn);
  b.SetInsertPoint(entry);
  // The callbacks, loaded once: exec is the table's first pointer, test its second.
  llvm::Value* exec = b.CreateLoad(ptr, callbacks, "exec");
  llvm::Value* test = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, callbacks, 1), "test");
  b.CreateBr(at[0]);

  const auto target = [&](const SsJitHostStep& s) -> llvm::BasicBlock* {
    return s.target >= 0 && s.target <= count ? at[static_cast<std::size_t>(s.target)] : nullptr;
  };
  for (int i = 0; i < count; ++i) {
    const SsJitHostStep& s = steps[i];
    b.SetInsertPoint(at[static_cast<std::size_t>(i)]);
    llvm::BasicBlock* next = at[static_cast<std::size_t>(i) + 1];
    switch (s.kind) {
      case SS_JIT_HOST_EXEC:
      case SS_JIT_HOST_RETURN: {
        llvm::Value* status = b.CreateCall(callback_type, exec, {frame, b.getInt32(i)});
        llvm::Value* ok = b.CreateICmpEQ(status, b.getInt32(0));
        if (s.kind == SS_JIT_HOST_EXEC) {
          b.CreateCondBr(ok, next, failed);
        } else {
          auto* returned = llvm::BasicBlock::Create(ctx, "ret" + std::to_string(i), fn);
          b.CreateCondBr(ok, returned, failed);
          b.SetInsertPoint(returned);
          b.CreateRet(b.getInt32(2));
        }
        break;
      }
      case SS_JIT_HOST_BRANCH:
      case SS_JIT_HOST_LOOP: {
        llvm::BasicBlock* jump = target(s);
        if (!jump) return "step " + std::to_string(i) + " jumps out of the function";
        llvm::Value* answer = b.CreateCall(callback_type, test, {frame, b.getInt32(i)});
        auto* decided = llvm::BasicBlock::Create(ctx, "t" + std::to_string(i), fn);
        b.CreateCondBr(b.CreateICmpSLT(answer, b.getInt32(0)), failed, decided);
        b.SetInsertPoint(decided);
        b.CreateCondBr(b.CreateICmpNE(answer, b.getInt32(0)), next, jump);
        break;
      }
      case SS_JIT_HOST_JUMP: {
        llvm::BasicBlock* jump = target(s);
        if (!jump) return "step " + std::to_string(i) + " jumps out of the function";
        b.CreateBr(jump);
        break;
      }
      default:
        return "step " + std::to_string(i) + " has an unknown kind";
    }
  }
  b.SetInsertPoint(at[static_cast<std::size_t>(count)]);
  b.CreateRet(b.getInt32(0));
  b.SetInsertPoint(failed);
  b.CreateRet(b.getInt32(1));
  return {};
}

}  // namespace

std::string compile_controller(const SsJitHostStep* steps, int count, const std::string& prefix,
                               std::string* object) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>(prefix, *context);
  if (std::string why = build(*module, steps, count, prefix + "0"); !why.empty()) return why;
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(*module, &broken_stream)) return "invalid IR: " + broken;
  // Calls and branches: nothing O3 would improve, so only code generation.
  return emit_object(*module, object, false);
}

}  // namespace ss::jit
