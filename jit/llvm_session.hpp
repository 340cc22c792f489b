// LLVM set-up shared by everything the JIT compiles: the native target, a
// TargetMachine for the host CPU, and the O3 pipeline built with it (loops
// vectorise only when the PassBuilder is given the host TargetMachine).
// Only jit/ includes LLVM headers; no exception is ever thrown through here.
#pragma once

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

namespace ss::jit {

// Registers the native target, its assembly printer and parser, once.
void initialise_native_target();

// A builder for the host: its CPU and features, aggressive code generation.
llvm::Expected<llvm::orc::JITTargetMachineBuilder> host_machine_builder();

// Gives every function the machine's CPU and features, sets the module's
// data layout and triple, and runs the O3 pipeline with that machine.
void optimise_for(llvm::Module& module, llvm::TargetMachine& machine);

// The widest vector of floats in a module: 1 when nothing was vectorised.
int widest_float_vector(const llvm::Module& module);

std::string host_cpu_name();

}  // namespace ss::jit
