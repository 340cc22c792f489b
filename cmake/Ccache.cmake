# Use ccache when it is installed: rebuilds on the 2-core machines stay cheap.
find_program(SS_CCACHE ccache)
if(SS_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${SS_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${SS_CCACHE})
  message(STATUS "shapescript: compiling through ${SS_CCACHE}")
endif()
