# The two ways a tool-side room's code is built, in one place (the shape of
# Abseil's absl_cc_library).
#
# andweorc_sanitizers: an interface target carrying the sanitizer flags of
# ANDWEORC_SANITIZE (empty without). Sanitized code links it; code that must
# never be sanitized (the runtime, what is linked into libandweorc.so, the
# programs the runtime is preloaded into) does not, so which code is
# sanitized depends on what a target links, not on the order of
# add_subdirectory calls.
add_library(andweorc_sanitizers INTERFACE)
if(ANDWEORC_SANITIZE)
  # -Wno-maybe-uninitialized: g++ 12 with ASan at -O1 warns inside
  # libstdc++'s own std::function/std::regex (false positives; seen in CI
  # with -Werror); the unsanitized build keeps the warning.
  target_compile_options(andweorc_sanitizers INTERFACE
    -fsanitize=${ANDWEORC_SANITIZE} -fno-sanitize-recover=all
    -Wno-maybe-uninitialized)
  target_link_options(andweorc_sanitizers INTERFACE
    -fsanitize=${ANDWEORC_SANITIZE})
endif()
# CI's sanitized pass compiles the sanitized libraries at -O0 (it only runs
# tests, and -O0 compiles in about half the CPU of -O1/-O2 on this
# template-heavy code); test binaries set their own level
# (tests/CMakeLists.txt).
set(ANDWEORC_SANITIZED_OPT "" CACHE STRING
    "Optimization flag for the sanitized libraries, e.g. -O0 (default: build type's)")

# andweorc_library(NAME SOURCES ... [DEPS ...] [PRIVATE_DEPS ...]
#                  [NEVER_SANITIZED] [NOSAN_TWIN])
# A static library whose headers are included as "room/file.h" (PUBLIC
# src/), linked to DEPS (PUBLIC) and PRIVATE_DEPS.
#  NEVER_SANITIZED  code that also runs inside libandweorc.so (statistics,
#                   planner, coordinator): built with -fno-sanitize=all.
#  NOSAN_TWIN       also make NAME_nosan, the same code unsanitized for
#                   libandweorc.so (cmake/nosan_twin.cmake).
function(andweorc_library name)
  cmake_parse_arguments(L "NEVER_SANITIZED;NOSAN_TWIN" ""
                        "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${L_DEPS} PRIVATE ${L_PRIVATE_DEPS})
  # Code linked into libandweorc.so keeps absolute paths
  # (cmake/relocatable.cmake): the never-sanitized libraries, unless this
  # build takes the runtime prebuilt, and those whose unsanitized twin is
  # the library itself (cmake/nosan_twin.cmake).
  if(NOT L_NEVER_SANITIZED OR ANDWEORC_PREBUILT_RUNTIME)
    andweorc_relocatable(${name})
  endif()
  if(L_NEVER_SANITIZED)
    target_compile_options(${name} PRIVATE -fno-sanitize=all)
  else()
    target_link_libraries(${name} PUBLIC andweorc_sanitizers)
    if(ANDWEORC_SANITIZE AND ANDWEORC_SANITIZED_OPT)
      target_compile_options(${name} PRIVATE ${ANDWEORC_SANITIZED_OPT})
    endif()
  endif()
  # CI's sanitized pass compiles the libraries in batches of files (its
  # build directory is its own, so a developer's rebuild stays file by file).
  if(ANDWEORC_UNITY_LIBS)
    andweorc_unity(${name} 8)  # cmake/unity.cmake
  endif()
  if(L_NOSAN_TWIN)
    andweorc_nosan_twin(${name})
  endif()
endfunction()
