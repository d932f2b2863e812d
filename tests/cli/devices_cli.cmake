# gmlab run --devices on the machine's GPUs (label "gpu"): one document per
# device, a missing device refused with exit 4, and a launcher's local rank
# choosing the device. Prints "SKIPPED" without a device.
#   cmake -DGMLAB=path/to/gmlab -DWORK=dir -P devices_cli.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(small stream --set array_bytes=16MiB --min-time-ms 1 --min-repetitions 3)

execute_process(COMMAND ${GMLAB} run ${small} --devices all --json "run-{device}.json"
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 3)
  message("SKIPPED: no CUDA device")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--devices all: exit ${rc}\n${out}\n${err}")
endif()
file(GLOB docs ${WORK}/run-*.json)
list(LENGTH docs count)
string(REGEX MATCHALL "gmlab [0-9.]+ on [^\n]*\\(device [0-9]+" headers "${out}")
list(LENGTH headers runs)
if(count EQUAL 0 OR NOT count EQUAL runs)
  message(FATAL_ERROR "--devices all: ${runs} runs but ${count} documents: ${docs}\n${out}")
endif()
math(EXPR last "${count} - 1")
foreach(d RANGE ${last})
  file(READ ${WORK}/run-${d}.json doc)
  string(JSON ordinal GET "${doc}" device ordinal)
  if(NOT ordinal EQUAL d)
    message(FATAL_ERROR "run-${d}.json holds device ${ordinal}")
  endif()
endforeach()
message(STATUS "--devices all: ${count} device(s), one document each")

# Several devices and a file name without {device}: refused before measuring.
if(count GREATER 1)
  execute_process(COMMAND ${GMLAB} run ${small} --devices all --json one.json
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "put \\{device\\} in it" OR EXISTS ${WORK}/one.json)
    message(FATAL_ERROR "--devices all --json one.json: exit ${rc}: ${err}")
  endif()
endif()

# A device that does not exist: exit 4, one line, nothing measured.
execute_process(COMMAND ${GMLAB} run ${small} --devices 0,${count} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 4 OR NOT err MATCHES "there is no device ${count}" OR out MATCHES "gmlab [0-9.]+ on")
  message(FATAL_ERROR "--devices 0,${count}: exit ${rc}\n${out}\n${err}")
endif()

# The launcher's way: the last local rank takes the last GPU (device 0 where
# there is only one); one past it is an error.
set(ENV{SLURM_LOCALID} ${last})
execute_process(COMMAND ${GMLAB} run ${small} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\\(device ${last},")
  message(FATAL_ERROR "SLURM_LOCALID=${last}: exit ${rc}\n${out}\n${err}")
endif()
if(count GREATER 1)
  set(ENV{SLURM_LOCALID} ${count})
  execute_process(COMMAND ${GMLAB} run ${small} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 4 OR NOT err MATCHES "SLURM_LOCALID=${count}")
    message(FATAL_ERROR "SLURM_LOCALID=${count} with ${count} GPUs: exit ${rc}: ${err}")
  endif()
else()
  message(STATUS "one GPU: the several-device cases need a machine with two or more")
endif()
