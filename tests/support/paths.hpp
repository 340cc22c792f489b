// Where the build put what the tests run (set by tests/CMakeLists.txt). The
// source folder may be moved: SS_TEST_SOURCE_DIR names it where a bundle of
// the tests runs from another checkout (tests/gpu/run.sh).
#pragma once

#include <cstdlib>

namespace ss::test {

inline const char* const kSourceDir =
    std::getenv("SS_TEST_SOURCE_DIR") ? std::getenv("SS_TEST_SOURCE_DIR") : SS_TEST_SOURCE_DIR;
inline constexpr const char* kCliPath = SS_TEST_CLI_PATH;
// Empty when the build has no JIT (SS_WITH_JIT=OFF).
inline constexpr const char* kJitPath = SS_TEST_JIT_PATH;

}  // namespace ss::test
