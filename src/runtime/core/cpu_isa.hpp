// Which instruction set the CPU kernels (GEMM, attention, the row loops,
// the JIT's target) are built for: the widest this CPU has, or narrower
// where SHAPESCRIPT_ISA asks (avx512, avx2, scalar, or baseline: the
// scalar path as on a CPU without FMA), so that one machine runs every
// path (docs/numerics.md, portable). A name this CPU can't run gives the
// widest it can below it; an unknown name is ignored.
#pragma once

namespace ss::runtime {

enum class Isa { scalar, avx2, avx512 };

// Read once per process: SHAPESCRIPT_ISA capped at what the CPU has
// (AVX-512 needs avx512f; AVX2 needs avx2 and fma).
Isa kernel_isa();

// The widest the CPU has, whatever SHAPESCRIPT_ISA says.
Isa cpu_isa();

// Whether the kernels may use fused multiply-adds: the CPU has FMA and
// SHAPESCRIPT_ISA isn't `baseline`. The portable numerics need them
// (E1911 without).
bool kernel_fma();
// Whether the CPU has FMA, whatever SHAPESCRIPT_ISA says.
bool cpu_fma();

// "avx512", "avx2", "scalar".
const char* isa_name(Isa isa);

}  // namespace ss::runtime
