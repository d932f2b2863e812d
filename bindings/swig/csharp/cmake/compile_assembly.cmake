# Compiles Gmlab.dll from SWIG's generated C# (whatever files SWIG wrote, found
# at build time) and the hand-written sources.
#   cmake -DMCS=... -DGENERATED_DIR=... -DSOURCES=a.cs;b.cs -DOUTPUT=Gmlab.dll -P compile_assembly.cmake
file(GLOB generated "${GENERATED_DIR}/*.cs")
if(NOT generated)
  message(FATAL_ERROR "no generated C# in ${GENERATED_DIR}: did SWIG run?")
endif()
list(SORT generated)
execute_process(
  COMMAND "${MCS}" -nologo -target:library -optimize+ -warnaserror+ "-out:${OUTPUT}" ${generated} ${SOURCES}
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "mcs failed building ${OUTPUT}")
endif()
