# `cmake --install`: the headers, the shared library (and the JIT, MPI and
# ONNX modules beside it, where it finds them at run time), the CLI, a CMake package
# (find_package(shapescript) gives shapescript::shapescript) and a
# pkg-config file (shapescript.pc). The static library stays in the build
# tree: it would need spdlog at the host's link.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS shapescript EXPORT shapescriptTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/shapescript
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/shapescript/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/shapescript)
install(TARGETS shapescript_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET shapescript_jit)
  install(TARGETS shapescript_jit LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET shapescript_mpi)
  install(TARGETS shapescript_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET shapescript_onnx)
  install(TARGETS shapescript_onnx LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

set(_ss_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/shapescript)
install(EXPORT shapescriptTargets NAMESPACE shapescript:: DESTINATION ${_ss_cmake_dir})
# The build tree's own targets file, which its shapescriptConfig.cmake
# includes: find_package(shapescript) against a build works too.
export(EXPORT shapescriptTargets NAMESPACE shapescript::
       FILE ${PROJECT_BINARY_DIR}/shapescriptTargets.cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/shapescriptConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/shapescriptConfig.cmake
                              INSTALL_DESTINATION ${_ss_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/shapescriptConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/shapescriptConfig.cmake
              ${PROJECT_BINARY_DIR}/shapescriptConfigVersion.cmake
        DESTINATION ${_ss_cmake_dir})

# The installed file finds its prefix from where it lies, so it is written
# aside (install/) and copied in; the build tree's own shapescript.pc names
# the build tree's folders, for a host built against a build.
configure_file(${PROJECT_SOURCE_DIR}/cmake/shapescript.pc.in
               ${PROJECT_BINARY_DIR}/install/shapescript.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/install/shapescript.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
configure_file(${PROJECT_SOURCE_DIR}/cmake/shapescript-build-tree.pc.in
               ${PROJECT_BINARY_DIR}/shapescript.pc @ONLY)
