# Use ccache when it is installed: rebuilds on the 2-core machines stay cheap,
# and a clone in another folder (CI's) hits what an earlier one compiled:
# - ccache rewrites absolute paths below the checkout (CCACHE_BASEDIR) as
#   relative ones, and no compile line carries another absolute path (the
#   tests' paths are generated files: tests/cmake/TestTargets.cmake);
# - -ffile-prefix-map writes the checkout as "." into debug information
#   and __FILE__, so a -g build's objects don't depend on the folder either;
# - precompiled headers are cached too (sloppiness pch_defines,time_macros).
#   CMake names clang's after -Xclang, by absolute path, which ccache doesn't
#   rewrite: under clang, cmake/clang-pch-launcher makes those paths
#   relative first, and ss_pch_relocatable keeps a header made in another
#   folder loadable.
# The launcher sets these for ccache itself, so a plain `cmake --build` gets
# them as scripts/build does.
find_program(SS_CCACHE ccache)
if(SS_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(_ss_launcher env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                   CCACHE_SLOPPINESS=pch_defines,time_macros ${SS_CCACHE})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    list(PREPEND _ss_launcher ${PROJECT_SOURCE_DIR}/cmake/clang-pch-launcher)
  endif()
  set(CMAKE_C_COMPILER_LAUNCHER ${_ss_launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_ss_launcher})
  message(STATUS "shapescript: compiling through ${SS_CCACHE}")
endif()
add_compile_options(-ffile-prefix-map=${PROJECT_SOURCE_DIR}=.)

# ss_pch_relocatable(target): clang's precompiled header stamps its time and
# names its inputs by absolute path; one ccache kept from another folder
# would be refused. Without the stamp and with its inputs inside, it moves.
function(ss_pch_relocatable target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE "SHELL:-Xclang -fno-pch-timestamp"
                                             "SHELL:-Xclang -fmodules-embed-all-files")
  endif()
endfunction()

# ss_precompile_for_clang(target HEADER...): the library's, the JIT's and the
# importer's heavy headers, parsed once a build, with clang (the sanitize
# preset) only: gcc 12, through a precompiled header, warns falsely inside
# std::string's inlined operator+ at -O3 (-Warray-bounds,
# -Wstringop-overflow) at twenty-odd places. Third-party headers only: a
# precompiled header is a system header, where warnings are silent. Units
# with flags of their own (the kernels' instruction sets) go without.
function(ss_precompile_for_clang target)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${ARGN})
  ss_pch_relocatable(${target})
  get_target_property(_sources ${target} SOURCES)
  foreach(_source IN LISTS _sources)
    get_source_file_property(_options ${_source} COMPILE_OPTIONS)
    if(_options)
      set_source_files_properties(${_source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()
