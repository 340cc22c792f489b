// Where the build put what the tests run (tests/support/build_paths.hpp).
// The source folder may be moved: SS_TEST_SOURCE_DIR names it where a bundle
// of the tests runs from another checkout (tests/gpu/run.sh).
#pragma once

#include <cstdlib>

#include "support/build_paths.hpp"

namespace ss::test {

inline const char* const kSourceDir =
    std::getenv("SS_TEST_SOURCE_DIR") ? std::getenv("SS_TEST_SOURCE_DIR") : built::source_dir;
inline const char* const kCliPath = built::cli;
// Empty when the build has no JIT (SS_WITH_JIT=OFF).
inline const char* const kJitPath = built::jit;

}  // namespace ss::test
