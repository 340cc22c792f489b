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
#include <cstdlib>
#include <mutex>
#include <string>

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

// SHAPESCRIPT_ISA=avx2 or scalar narrows the host's features as the core's
// kernels narrow (src/runtime/core/cpu_isa.hpp): no AVX-512 (nor AMX), or
// no AVX at all (so no FMA: SSE, and fmaf's library calls). Read here, not
// from the core: this module includes nothing of it.
void narrow_to_requested_isa(llvm::SubtargetFeatures& features) {
  const char* asked = std::getenv("SHAPESCRIPT_ISA");
  if (!asked) return;
  const std::string isa = asked;
  if (isa != "avx2" && isa != "scalar" && isa != "baseline") return;
  const auto dropped = [&](const std::string& f) {
    const auto starts = [&f](const char* p) { return f.rfind(p, 0) == 0; };
    if (starts("+avx512") || starts("+amx") || starts("+avx10") || starts("+evex512")) return true;
    return isa != "avx2" && (starts("+avx") || starts("+fma") || starts("+f16c") ||
                             starts("+vaes") || starts("+vpclmulqdq") || starts("+xop"));
  };
  llvm::SubtargetFeatures narrowed;
  for (const std::string& f : features.getFeatures())
    if (!dropped(f)) narrowed.AddFeature(f);
  // Off explicitly too, against what the CPU's name implies; turning a
  // feature off turns off every feature that implies it.
  narrowed.AddFeature("avx512f", false);
  narrowed.AddFeature("amx-tile", false);
  if (isa != "avx2") {
    narrowed.AddFeature("avx", false);
    narrowed.AddFeature("fma", false);
  }
  features = narrowed;
}

llvm::Expected<llvm::orc::JITTargetMachineBuilder> host_machine_builder() {
  initialise_native_target();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return builder.takeError();
  narrow_to_requested_isa(builder->getFeatures());
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
