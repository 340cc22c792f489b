#include "jit/llvm_session.hpp"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <mutex>

#include "jit/vector_math.hpp"

namespace ss::jit {

void initialise_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

llvm::Expected<llvm::orc::JITTargetMachineBuilder> host_machine_builder() {
  initialise_native_target();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return builder;
}

void optimise_for(llvm::Module& module, llvm::TargetMachine& machine) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple().str());
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    f.addFnAttr("target-features", machine.getTargetFeatureString());
    // LLVM keeps to 256-bit vectors on Intel's AVX-512 CPUs unless told
    // otherwise; a kernel's SLEEF calls are 16 lanes a call at 512.
    if (machine.getTargetFeatureString().contains("+avx512f"))
      f.addFnAttr("prefer-vector-width", "512");
  }

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  llvm::PassBuilder builder(&machine, tuning);
  // The loop vectoriser finds SLEEF's vector functions through the library
  // info (jit/vector_math.hpp); registered before the defaults, it wins.
  llvm::TargetLibraryInfoImpl library(llvm::Triple(module.getTargetTriple()));
  library.addVectorizableFunctions(vector_math(machine).functions);
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

int widest_float_vector(const llvm::Module& module) {
  int widest = 1;
  for (const llvm::Function& f : module)
    for (const llvm::Instruction& inst : llvm::instructions(f))
      if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(inst.getType()))
        if (vector->getElementType()->isFloatTy())
          widest = std::max(widest, static_cast<int>(vector->getNumElements()));
  return widest;
}

std::string host_cpu_name() {
  return llvm::sys::getHostCPUName().str();
}

}  // namespace ss::jit
