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

# SS_FUZZ (the sanitize preset): libFuzzer's coverage in the code the
# fuzzers reach (the front end from the lexer to the graph's verifier, the
# safetensors reader, the ONNX importer), not only in the fuzz targets
# themselves. Nowhere else: the suite runs in the same build, and coverage
# puts a counter in every block and a call at every comparison, the
# kernels' and interpreter's loops included, which no fuzzer runs.
set(SS_FUZZ_REACHES "^(src/(api|check|diag|ir|lower|support|syntax|types|runtime/data)|onnx)/")
set(SS_FUZZ_COVERAGE -fsanitize=fuzzer-no-link)

# ss_fuzz_reaches(PATH OUT): OUT is true when SS_FUZZ is on and the source
# at PATH (absolute) is code the fuzzers reach.
function(ss_fuzz_reaches path out)
  file(RELATIVE_PATH _relative ${PROJECT_SOURCE_DIR} ${path})
  if(SS_FUZZ AND _relative MATCHES "${SS_FUZZ_REACHES}")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# ss_fuzz_coverage(target): the coverage flags on the target's own sources
# that the fuzzers reach (those a unity batch includes get them from their
# batch: cmake/Unity.cmake). clang refuses a precompiled header made
# without them: a target reached whole gets them target-wide, header too;
# otherwise a source that gets them goes without the header.
function(ss_fuzz_coverage target)
  if(NOT SS_FUZZ)
    return()
  endif()
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  set(_reached "")
  set(_whole TRUE)
  foreach(_source IN LISTS _sources)
    get_filename_component(_path ${_source} ABSOLUTE BASE_DIR ${_dir})
    get_source_file_property(_batched ${_source} HEADER_FILE_ONLY)
    if(_batched OR NOT _path MATCHES "\\.(c|cpp)$")
      continue()
    endif()
    ss_fuzz_reaches(${_path} _fuzzed)
    if(_fuzzed)
      list(APPEND _reached ${_source})
    else()
      set(_whole FALSE)
    endif()
  endforeach()
  if(_whole)
    target_compile_options(${target} PRIVATE ${SS_FUZZ_COVERAGE})
    return()
  endif()
  foreach(_source IN LISTS _reached)
    set_property(SOURCE ${_source} APPEND PROPERTY COMPILE_OPTIONS ${SS_FUZZ_COVERAGE})
    set_property(SOURCE ${_source} PROPERTY SKIP_PRECOMPILE_HEADERS ON)
  endforeach()
endfunction()
