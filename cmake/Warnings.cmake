# ss_warnings(target): the warning set every project target compiles with.
function(ss_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wimplicit-fallthrough
                                           # designated initialisers are the API's idiom
                                           -Wno-missing-field-initializers)
endfunction()
