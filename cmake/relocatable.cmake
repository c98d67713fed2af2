# ANDWEORC_RELOCATABLE_OBJECTS (scripts/build.sh turns it on with ccache):
# objects that ccache can reuse in a clone at another path. CI clones main
# into a new folder each run; ccache hashes the working directory of every
# -g compile and sees the clone's absolute paths in the command line, so
# without this nothing hits there.
#
# andweorc_relocatable(TARGET) compiles TARGET with the source tree's paths
# made relative (ccache's base_dir, which rewrites the command line, and
# -ffile-prefix-map, which maps the DWARF paths and __FILE__ the same way):
# its DWARF names ./build/../src/... instead of /clone/src/... . Only for
# code whose source paths no tool reads: the tool-side libraries, the tool
# and the test binaries. Everything andweorc profiles or symbolizes (the
# runtime, the examples, the tests' programs and fixtures, the benchmarks'
# workloads) and the libraries linked into libandweorc.so keep absolute
# paths, so their reports and source views point at this clone
# (andweorc_relocatable(TARGET OFF) takes a library back).
option(ANDWEORC_RELOCATABLE_OBJECTS
       "Relative source paths in the tool-side and test objects, for ccache across clone paths"
       OFF)

function(andweorc_relocatable target)
  if(NOT ANDWEORC_RELOCATABLE_OBJECTS)
    return()
  endif()
  set(on TRUE)
  if(ARGC GREATER 1 AND NOT ARGV1)
    set(on FALSE)
  endif()
  foreach(lang C CXX)
    get_target_property(launcher ${target} ${lang}_COMPILER_LAUNCHER)
    if(NOT launcher)
      set(on FALSE)  # no ccache: nothing to share, keep the paths
      continue()
    endif()
    list(FILTER launcher EXCLUDE REGEX "^(env|CCACHE_BASEDIR=.*)$")
    if(on)
      list(PREPEND launcher env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR})
    endif()
    set_target_properties(${target} PROPERTIES ${lang}_COMPILER_LAUNCHER
                                               "${launcher}")
  endforeach()
  # The prefix map follows the property, so taking a target back also
  # takes its map back.
  get_target_property(before ${target} ANDWEORC_RELOCATED)
  set_target_properties(${target} PROPERTIES ANDWEORC_RELOCATED ${on})
  if(before MATCHES "NOTFOUND$")
    target_compile_options(${target} PRIVATE
      "$<$<BOOL:$<TARGET_PROPERTY:ANDWEORC_RELOCATED>>:-ffile-prefix-map=${PROJECT_SOURCE_DIR}=.>")
  endif()
endfunction()
