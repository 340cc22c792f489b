# SS_SANITIZE="address;undefined" instruments every target of the build.
if(SS_SANITIZE)
  list(JOIN SS_SANITIZE "," _ss_sanitizers)
  add_compile_options(-fsanitize=${_ss_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_ss_sanitizers})
  # clang's -fsanitize=function (part of its "undefined"; gcc has none)
  # refuses a call through a pointer whose type isn't the callee's own, as
  # C++ spells it. The CUDA libraries' C functions are opened with dlsym and
  # called through types declared by hand (kernels/cuda_api.hpp: an opaque
  # handle as a struct pointer); the stand-ins (tests/fakes), instrumented
  # too, declare them as void*: the same ABI, a different C++ type.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND "undefined" IN_LIST SS_SANITIZE)
    add_compile_options(-fno-sanitize=function)
  endif()
  # Compressed debug sections: a sanitizer build's objects and binaries are
  # a third of their size, and CI builds three such presets on one disk.
  add_compile_options(-gz)
  add_link_options(-gz)
  message(STATUS "shapescript: sanitizers ${_ss_sanitizers}")
endif()

# SS_FUZZ (the sanitize preset) instruments every target for coverage, not only the fuzz
# target itself, so libFuzzer sees the lexer, parser and checker.
if(SS_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
