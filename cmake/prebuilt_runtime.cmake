# ANDWEORC_PREBUILT_RUNTIME=<dir>/libandweorc.so: use a libandweorc.so built
# from this same tree in another build directory instead of compiling it
# again. CI's sanitized pass uses the first pass's library: the runtime, the
# coordinator, the Runner and the unsanitized twins of the tool-side rooms
# are never sanitized, so the sanitized pass would compile them byte for
# byte as the first pass did (about 150 s of CPU on the CI machine).
#
# The library and its SONAME links are copied into this build's lib/ at
# configure time (scripts/build.sh configures before every build, so a
# rebuilt library is picked up), where `andweorc run` looks for it.
# Targets that compile runtime objects into a test (tests/runtime) cannot
# use it and are left out of such a build.
get_filename_component(andweorc_prebuilt_real "${ANDWEORC_PREBUILT_RUNTIME}"
                       REALPATH)
if(NOT EXISTS "${andweorc_prebuilt_real}")
  message(FATAL_ERROR "ANDWEORC_PREBUILT_RUNTIME: no such file: "
                      "${ANDWEORC_PREBUILT_RUNTIME} (build andweorc_runtime in "
                      "the other build directory first)")
endif()
file(COPY "${ANDWEORC_PREBUILT_RUNTIME}" DESTINATION
     "${PROJECT_BINARY_DIR}/lib" FOLLOW_SYMLINK_CHAIN)
get_filename_component(andweorc_prebuilt_name "${andweorc_prebuilt_real}" NAME)

add_library(andweorc_runtime SHARED IMPORTED GLOBAL)
set_target_properties(andweorc_runtime PROPERTIES
  IMPORTED_LOCATION "${PROJECT_BINARY_DIR}/lib/${andweorc_prebuilt_name}"
  IMPORTED_SONAME "libandweorc.so.${PROJECT_VERSION_MAJOR}"
  INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include")
