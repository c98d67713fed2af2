# cmake --install: headers, libandweorc.so, the `andweorc` tool, a CMake
# package (find_package(andweorc) -> andweorc::andweorc, andweorc::header)
# and a pkg-config file (andweorc.pc). The tool finds the runtime at
# <bin>/../<libdir>/libandweorc.so, so the tree can be installed anywhere.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(andweorc_runtime PROPERTIES
  EXPORT_NAME andweorc
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR})
set_target_properties(andweorc_header PROPERTIES EXPORT_NAME header)
target_include_directories(andweorc_runtime INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS andweorc_runtime andweorc_header EXPORT andweorcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS andweorc_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/andweorc
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/andweorc)
install(EXPORT andweorcTargets NAMESPACE andweorc:: DESTINATION ${config_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/andweorcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/andweorcConfig.cmake
  INSTALL_DESTINATION ${config_dir}
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/andweorcConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/andweorcConfig.cmake
              ${PROJECT_BINARY_DIR}/andweorcConfigVersion.cmake
  DESTINATION ${config_dir})

# Relocatable: the prefix is found from where the .pc file lies, so the
# tree works wherever it is installed (cmake --install --prefix).
file(RELATIVE_PATH pc_to_prefix
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/andweorc.pc.in
  ${PROJECT_BINARY_DIR}/andweorc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/andweorc.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
