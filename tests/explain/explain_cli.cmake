# gmlab explain, report and compare through the CLI, on records captured on a
# GPU: the strided example before (planted) and after (fixed) its fix.
#   cmake -DGMLAB=... -DFIXTURES=... -DLAB=... -DWORK=... -P explain_cli.cmake
file(MAKE_DIRECTORY ${WORK})
function(run_gmlab expect_regex)
  execute_process(COMMAND ${GMLAB} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gmlab ${ARGN}: exit ${rc}\n${out}${err}")
  endif()
  if(NOT out MATCHES "${expect_regex}")
    message(FATAL_ERROR "gmlab ${ARGN}: output does not match ${expect_regex}:\n${out}")
  endif()
endfunction()
run_gmlab("uncoalesced or strided global access" explain --from-records ${FIXTURES}/strided_access-planted
          --lab-run ${LAB} --json ${WORK}/before.json)
run_gmlab("no finding" explain --from-records ${FIXTURES}/strided_access-fixed --lab-run ${LAB} --json ${WORK}/after.json)
run_gmlab("stride 4 reaches" report ${WORK}/before.json)
run_gmlab("findings: uncoalesced_global -> none" compare ${WORK}/before.json ${WORK}/after.json)
message(STATUS "explain, report and compare agree")
