# Runs an example program and accepts its two good endings: the stride table
# (exit 0), or, on a machine without a CUDA device, the library's no-device
# message with exit 3. Shared by the Java, C# and Go examples.
#   cmake -DEXAMPLE=PROGRAM [-DEXAMPLE_ARGS=ARG|ARG|...] -P check_example.cmake
# (also include()d with EXAMPLE set, by bindings/swig/go/check_install.cmake)
set(args "")
if(DEFINED EXAMPLE_ARGS AND NOT EXAMPLE_ARGS STREQUAL "")
  string(REPLACE "|" ";" args "${EXAMPLE_ARGS}")
endif()
execute_process(COMMAND ${EXAMPLE} ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(status EQUAL 0)
  if(NOT out MATCHES "stride +GB/s +sectors/request\n +1 +[0-9.]+ +4\n")
    message(FATAL_ERROR "the example exited 0 without its table starting at stride 1")
  endif()
elseif(status EQUAL 3)
  if(NOT err MATCHES "gmlab: no CUDA device")
    message(FATAL_ERROR "the example exited 3 without the no-device message")
  endif()
else()
  message(FATAL_ERROR "the example failed with exit status ${status}")
endif()
