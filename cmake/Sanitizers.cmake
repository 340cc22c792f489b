# SS_SANITIZE="address;undefined" instruments every target of the build.
if(SS_SANITIZE)
  list(JOIN SS_SANITIZE "," _ss_sanitizers)
  add_compile_options(-fsanitize=${_ss_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_ss_sanitizers})
  # Compressed debug sections: a sanitizer build's objects and binaries are
  # a third of their size, and CI builds three such presets on one disk.
  add_compile_options(-gz)
  add_link_options(-gz)
  message(STATUS "shapescript: sanitizers ${_ss_sanitizers}")
endif()

# The fuzz preset instruments every target for coverage, not only the fuzz
# target itself, so libFuzzer sees the lexer, parser and checker.
if(SS_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
