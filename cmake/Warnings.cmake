# ss_warnings(target): the warning set every project target compiles with.
function(ss_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wimplicit-fallthrough
                                           # a switch over ir::Op (or any enum) that
                                           # misses a row of its table doesn't build
                                           -Werror=switch
                                           # designated initialisers are the API's idiom
                                           -Wno-missing-field-initializers)
  # GCC 12 warns falsely about memcpy overlap inside std::string's operator+
  # (GCC bug 105329).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()
