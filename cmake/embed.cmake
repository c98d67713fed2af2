# andweorc_embed_files(OUT_VAR HEADER h NAMESPACE ns COMMENT text
#                      ENTRIES kName=path ...)
# Generates ${CMAKE_CURRENT_BINARY_DIR}/<header's stem>.cc defining one
# string constant per entry (cmake/embed_files.cmake does the writing), so a
# page the tool serves or writes needs no file next to it. OUT_VAR receives
# the generated source, to add to a library.
function(andweorc_embed_files out_var)
  cmake_parse_arguments(E "" "HEADER;NAMESPACE;COMMENT" "ENTRIES" ${ARGN})
  set(files "")
  foreach(entry IN LISTS E_ENTRIES)
    string(REGEX REPLACE "^[^=]*=" "" path "${entry}")
    list(APPEND files ${path})
  endforeach()
  get_filename_component(stem ${E_HEADER} NAME_WE)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${stem}.cc)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DHEADER=${E_HEADER}
            -DNAMESPACE=${E_NAMESPACE} "-DENTRIES=${E_ENTRIES}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
    COMMENT "${E_COMMENT}"
    VERBATIM)
  set(${out_var} ${output} PARENT_SCOPE)
endfunction()
