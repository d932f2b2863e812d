# Compiles every .java file under SOURCES (folders or files) into OUTPUT_DIR,
# then touches STAMP. Run with cmake -P: the generated sources are only known
# once SWIG has run, so they are listed here rather than at configure time.
# OUTPUT_DIR is emptied first so that classes of removed sources do not linger.
#   -DJAVAC=... -DSOURCES=a;b -DOUTPUT_DIR=... -DSTAMP=... [-DCLASSPATH=x:y]
foreach(var JAVAC SOURCES OUTPUT_DIR STAMP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "javac.cmake: ${var} is not set")
  endif()
endforeach()

set(files)
foreach(source IN LISTS SOURCES)
  if(IS_DIRECTORY "${source}")
    file(GLOB_RECURSE found "${source}/*.java")
    list(APPEND files ${found})
  else()
    list(APPEND files "${source}")
  endif()
endforeach()
if(NOT files)
  message(FATAL_ERROR "javac.cmake: no Java sources in ${SOURCES}")
endif()
list(SORT files)

set(classpath_args)
if(CLASSPATH)
  set(classpath_args --class-path "${CLASSPATH}")
endif()

file(REMOVE_RECURSE "${OUTPUT_DIR}")
file(MAKE_DIRECTORY "${OUTPUT_DIR}")
# --release 17: the classes run on Java 17 whichever newer javac compiles them.
# Warnings are shown, not fatal: newer JDKs add lints that SWIG's output may trip.
execute_process(
  COMMAND "${JAVAC}" --release 17 -encoding UTF-8 -Xlint:all ${classpath_args} -d "${OUTPUT_DIR}" ${files}
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "javac failed (${status})")
endif()
file(TOUCH "${STAMP}")
