# Runs the example: it must either succeed and print its table, or, where there
# is no CUDA device, print the library's message and exit with status 3.
#   cmake -DMONO=... -DEXAMPLE=StrideCopyExample.exe -P check_example.cmake
execute_process(COMMAND "${MONO}" "${EXAMPLE}"
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(status EQUAL 0)
  if(NOT out MATCHES "stride +GB/s")
    message(FATAL_ERROR "the example succeeded without printing its table")
  endif()
elseif(status EQUAL 3)
  if(NOT err MATCHES "no CUDA device")
    message(FATAL_ERROR "exit status 3 without the no-device message")
  endif()
else()
  message(FATAL_ERROR "the example failed with status ${status}")
endif()
