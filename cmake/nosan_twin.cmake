# andweorc_nosan_twin(TARGET): TARGET_nosan, the same static library for code
# that is never sanitized (libandweorc.so: runtime, coordinator, Runner; a
# sanitizer runtime cannot be preloaded behind another library).
# Without sanitizers the twin is TARGET itself, so nothing is compiled twice;
# with them it is a copy of TARGET's sources built with -fno-sanitize=all,
# linked to the twins of TARGET's dependencies (make the dependencies' twins
# first).
function(andweorc_nosan_twin target)
  set(twin ${target}_nosan)
  if(NOT ANDWEORC_SANITIZE AND NOT ANDWEORC_BUILD_FUZZERS)
    add_library(${twin} INTERFACE)
    target_link_libraries(${twin} INTERFACE ${target})
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(paths "")
  foreach(s ${sources})
    if(IS_ABSOLUTE "${s}")
      list(APPEND paths "${s}")
    else()
      list(APPEND paths "${dir}/${s}")
    endif()
  endforeach()
  add_library(${twin} STATIC ${paths})
  get_target_property(includes ${target} INCLUDE_DIRECTORIES)
  target_include_directories(${twin} PUBLIC ${includes})
  target_compile_options(${twin} PRIVATE -fno-sanitize=all)
  get_target_property(deps ${target} LINK_LIBRARIES)
  set(twin_deps "")
  foreach(dep ${deps})
    if(TARGET ${dep}_nosan)
      list(APPEND twin_deps ${dep}_nosan)
    else()
      list(APPEND twin_deps ${dep})
    endif()
  endforeach()
  target_link_libraries(${twin} PUBLIC ${twin_deps})
endfunction()
