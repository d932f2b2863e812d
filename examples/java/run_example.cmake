# Runs StrideCopyExample and accepts its two good endings: the table (exit 0),
# or, on a machine without a CUDA device, the no-device message with exit 3.
#   cmake -DJAVA=... -DCLASSPATH=... -P run_example.cmake
execute_process(
  COMMAND "${JAVA}" -cp "${CLASSPATH}" StrideCopyExample
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(status EQUAL 0)
  if(NOT out MATCHES "stride +GB/s +sectors/request\n +1 +[0-9.]+ +4\n")
    message(FATAL_ERROR "StrideCopyExample succeeded but printed no table starting at stride 1")
  endif()
elseif(status EQUAL 3)
  if(NOT err MATCHES "^gmlab: no CUDA device")
    message(FATAL_ERROR "StrideCopyExample exited 3 without the no-device message")
  endif()
else()
  message(FATAL_ERROR "StrideCopyExample failed with exit status ${status}")
endif()
