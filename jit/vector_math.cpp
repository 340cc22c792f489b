#include "jit/vector_math.hpp"

#include "jit/portable_functions.hpp"

#include <dlfcn.h>
#include <llvm/ExecutionEngine/Orc/Core.h>

#include <deque>
#include <mutex>

namespace ss::jit {
namespace {

bool has(const llvm::TargetMachine& machine, const char* feature) {
  const std::string features = "," + machine.getTargetFeatureString().str() + ",";
  return features.find(std::string(",+") + feature + ",") != std::string::npos;
}

// The scalar names a kernel calls (elementwise_kernels.cpp) and their SLEEF
// stems and accuracies: Sleef_<stem><width>_<accuracy><isa>. tanh's 3.5-ulp
// build: its 1-ulp one takes 2.7 times as long (a GRU's step is mostly
// tanh), and 3.5 ulps from the exact value is within the 4 of the
// `fast-function` row from the reference's rounding of it.
struct Function {
  const char* scalar;
  const char* stem;
  const char* accuracy;
};
constexpr Function kFunctions[] = {
    {"expf", "expf", "u10"}, {"logf", "logf", "u10"},         {"tanhf", "tanhf", "u35"},
    {"erff", "erff", "u10"}, {"llvm.exp.f32", "expf", "u10"}, {"llvm.log.f32", "logf", "u10"}};

// VecDesc keeps StringRefs: the names live here for the process (a deque
// never moves what it holds).
std::deque<std::string>& names() {
  static std::deque<std::string> n;
  return n;
}

// The portable functions (always here: they are this module's own), the
// widths the machine runs.
void add_portable(const llvm::TargetMachine& machine, VectorMath& math) {
  std::deque<std::string>& kept = names();
  for (const PortableFunction& f : portable_functions()) {
    if (!f.vector) {
      math.addresses[f.scalar] = f.address;
      continue;
    }
    if (!has(machine, f.needs)) continue;
    math.addresses[f.vector] = f.address;
    kept.push_back("_ZGV_LLVM_N" + std::to_string(f.lanes) + "v");
    math.functions.emplace_back(f.scalar, f.vector, llvm::ElementCount::getFixed(f.lanes), false,
                                kept.back());
  }
}

VectorMath open_sleef(const llvm::TargetMachine& machine);

VectorMath open(const llvm::TargetMachine& machine) {
  VectorMath math = open_sleef(machine);
  add_portable(machine, math);
  return math;
}

VectorMath open_sleef(const llvm::TargetMachine& machine) {
  VectorMath math;
  math.id = "libm";
  const char* file = "libsleef.so.3";
  // Never closed: compiled kernels call into it for the process's life.
  void* library = ::dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = ::dlerror();
    math.library = "no SLEEF (" + std::string(why ? why : file) + ")";
    return math;
  }
  math.library = file;
  // Widths the host runs, each with SLEEF's build for it.
  struct Width {
    unsigned lanes;
    const char* isa;
  };
  std::vector<Width> widths;
  if (has(machine, "avx512f")) widths.push_back({16, "avx512f"});
  if (has(machine, "avx2") && has(machine, "fma")) {
    widths.push_back({8, "avx2"});
    widths.push_back({4, "avx2128"});
  } else if (has(machine, "sse4.1")) {
    widths.push_back({4, "sse4"});
  } else {
    widths.push_back({4, "sse2"});
  }
  std::deque<std::string>& kept = names();
  for (const Width& w : widths)
    for (const Function& f : kFunctions) {
      std::string vector =
          "Sleef_" + std::string(f.stem) + std::to_string(w.lanes) + "_" + f.accuracy + w.isa;
      void* address = ::dlsym(library, vector.c_str());
      if (!address) continue;
      math.addresses[vector] = address;
      kept.push_back(std::move(vector));
      const std::string& v = kept.back();
      kept.push_back("_ZGV_LLVM_N" + std::to_string(w.lanes) + "v");
      const std::string& abi = kept.back();
      math.functions.emplace_back(f.scalar, v, llvm::ElementCount::getFixed(w.lanes), false, abi);
    }
  if (math.functions.empty()) {
    math.library = "no SLEEF functions for this CPU in " + std::string(file);
    return math;
  }
  math.present = true;
  math.id = std::string("sleef 3 ") + widths.front().isa + " tanh u35";
  return math;
}

}  // namespace

const VectorMath& vector_math(const llvm::TargetMachine& machine) {
  static std::once_flag once;
  static VectorMath math;
  std::call_once(once, [&] { math = open(machine); });
  return math;
}

bool add_vector_math_symbols(llvm::orc::LLJIT& jit, const VectorMath& math) {
  llvm::orc::SymbolMap symbols;
  for (const auto& [name, address] : math.addresses)
    symbols[jit.mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    llvm::consumeError(std::move(err));
    return false;
  }
  return true;
}

}  // namespace ss::jit
