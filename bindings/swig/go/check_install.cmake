# Installs the build (BUILD_DIR) under PREFIX, then builds the stridecopy
# example (EXAMPLE_SOURCE) as a module of its own that takes MODULE_PATH from
# the installed package (PREFIX/PACKAGE_DIR), cgo reading the installed
# gmlab.pc, and runs it through CHECK_EXAMPLE. The go tool's environment comes
# from the caller.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PREFIX})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})

set(module ${PREFIX}-example)
file(REMOVE_RECURSE ${module})
file(WRITE ${module}/go.mod
  "module installed-example\n\ngo 1.19\n\nrequire ${MODULE_PATH} v0.0.0\n\nreplace ${MODULE_PATH} => ${PREFIX}/${PACKAGE_DIR}\n")
set(ENV{PKG_CONFIG_PATH} ${PREFIX}/lib/pkgconfig)
file(COPY ${EXAMPLE_SOURCE} DESTINATION ${module}/stridecopy)
execute_process(COMMAND ${GO} build -o ${module}/stridecopy-bin ./stridecopy
  WORKING_DIRECTORY ${module} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "go build against the installed package: exit ${rc}\n${out}\n${err}")
endif()

# Only the rpath from the installed gmlab.pc may lead to the library.
unset(ENV{LD_LIBRARY_PATH})
set(EXAMPLE ${module}/stridecopy-bin)
include(${CHECK_EXAMPLE})
