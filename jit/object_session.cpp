#include "jit/object_session.hpp"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <mutex>

#include "jit/llvm_session.hpp"
#include "jit/vector_math.hpp"

namespace ss::jit {
namespace {

struct Session {
  std::mutex mutex;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> machine;
  // The same target with the fastest code generation, for code with
  // nothing to optimise (controller functions: calls and branches).
  std::unique_ptr<llvm::TargetMachine> quick;
  std::string error;  // why the session couldn't start, once and for all
};

// Made on first use; the caller holds s.mutex.
std::string start(Session& s) {
  if (s.jit || !s.error.empty()) return s.error;
  auto builder = host_machine_builder();
  if (!builder) return s.error = "host target: " + llvm::toString(builder.takeError());
  auto machine = builder->createTargetMachine();
  if (!machine) return s.error = "target machine: " + llvm::toString(machine.takeError());
  auto quick_builder = *builder;
  quick_builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  auto quick = quick_builder.createTargetMachine();
  if (!quick) return s.error = "target machine: " + llvm::toString(quick.takeError());
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*builder)).create();
  if (!jit) return s.error = "LLJIT: " + llvm::toString(jit.takeError());
  // libm's exp, log, erf, ... from the process.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return s.error = "process symbols: " + llvm::toString(process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  if (!add_vector_math_symbols(**jit, vector_math(**machine)))
    return s.error = "SLEEF's symbols couldn't be defined in the JIT";
  s.jit = std::move(*jit);
  s.machine = std::move(*machine);
  s.quick = std::move(*quick);
  return {};
}

Session& session() {
  static Session s;
  return s;
}

}  // namespace

const std::string& target_id() {
  static const std::string id = [] {
    Session& s = session();
    std::lock_guard lock(s.mutex);
    if (!start(s).empty()) return std::string();
    return s.machine->getTargetTriple().str() + " " + s.machine->getTargetCPU().str() + " " +
           s.machine->getTargetFeatureString().str() + " LLVM " LLVM_VERSION_STRING + " " +
           vector_math(*s.machine).id;
  }();
  return id;
}

std::string emit_object(llvm::Module& module, std::string* object, bool optimise) {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  if (std::string why = start(s); !why.empty()) return why;
  if (optimise) {
    optimise_for(module, *s.machine);
  } else {
    module.setDataLayout(s.machine->createDataLayout());
    module.setTargetTriple(s.machine->getTargetTriple().str());
  }
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  llvm::legacy::PassManager passes;
  llvm::TargetMachine& target = optimise ? *s.machine : *s.quick;
  if (target.addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::ObjectFile))
    return "the target can't emit an object file";
  passes.run(module);
  object->assign(bytes.begin(), bytes.end());
  return {};
}

std::string load_object(const void* data, std::size_t size, const std::string& prefix,
                        std::int32_t count, void** fns) {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  if (std::string why = start(s); !why.empty()) return why;
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(static_cast<const char*>(data), size), prefix + "object");
  if (auto err = s.jit->addObjectFile(std::move(buffer)))
    return "adding the object: " + llvm::toString(std::move(err));
  for (std::int32_t k = 0; k < count; ++k) {
    auto symbol = s.jit->lookup(prefix + std::to_string(k));
    if (!symbol) return "lookup: " + llvm::toString(symbol.takeError());
    fns[k] = symbol->toPtr<void*>();
  }
  return {};
}

}  // namespace ss::jit
