// Where the build put what the tests run (set by tests/CMakeLists.txt).
#pragma once

namespace ss::test {

inline constexpr const char* kSourceDir = SS_TEST_SOURCE_DIR;
inline constexpr const char* kCliPath = SS_TEST_CLI_PATH;
// Empty when the build has no JIT (SS_WITH_JIT=OFF).
inline constexpr const char* kJitPath = SS_TEST_JIT_PATH;

}  // namespace ss::test
