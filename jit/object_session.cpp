#include "jit/object_session.hpp"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
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
  // Each linked object in its own JITDylib (its link order reaches the
  // main one: libm, SLEEF), so removing it gives back its memory and
  // mappings, and two links of the same object never clash.
  std::map<std::uint64_t, llvm::orc::JITDylib*> objects;
  std::uint64_t last_handle = 0;
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
  // Never destroyed: code a host still holds at exit is unloaded into a
  // session that is still there.
  static Session* s = new Session;
  return *s;
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
                        std::int32_t count, void** fns, std::uint64_t* handle) {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  if (std::string why = start(s); !why.empty()) return why;
  const std::uint64_t h = ++s.last_handle;
  auto dylib = s.jit->createJITDylib("ss_object_" + std::to_string(h));
  if (!dylib) return "a JITDylib: " + llvm::toString(dylib.takeError());
  llvm::orc::JITDylib& jd = *dylib;
  jd.addToLinkOrder(s.jit->getMainJITDylib());
  // Whatever fails below leaves nothing linked.
  const auto fail = [&](std::string why) {
    if (auto err = s.jit->getExecutionSession().removeJITDylib(jd))
      why += "; removing it: " + llvm::toString(std::move(err));
    return why;
  };
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(static_cast<const char*>(data), size), prefix + "object");
  if (auto err = s.jit->addObjectFile(jd, std::move(buffer)))
    return fail("adding the object: " + llvm::toString(std::move(err)));
  for (std::int32_t k = 0; k < count; ++k) {
    auto symbol = s.jit->lookup(jd, prefix + std::to_string(k));
    if (!symbol) return fail("lookup: " + llvm::toString(symbol.takeError()));
    fns[k] = symbol->toPtr<void*>();
  }
  s.objects.emplace(h, &jd);
  *handle = h;
  return {};
}

std::string unload_object(std::uint64_t handle) {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  const auto it = s.objects.find(handle);
  if (it == s.objects.end()) return "no object is linked as " + std::to_string(handle);
  llvm::orc::JITDylib& jd = *it->second;
  s.objects.erase(it);
  auto& session = s.jit->getExecutionSession();
  if (auto err = session.removeJITDylib(jd))
    return "removing the object: " + llvm::toString(std::move(err));
  // The pool keeps each name ever interned (the object's symbols, its
  // JITDylib's) until asked to drop the unused ones.
  session.getSymbolStringPool()->clearDeadEntries();
  return {};
}

std::size_t linked_objects() {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  return s.objects.size();
}

}  // namespace ss::jit
