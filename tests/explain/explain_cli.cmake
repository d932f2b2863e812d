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
# Kernels by their short names: no parameter list.
run_gmlab("\n#1 scale_strided\n" report ${WORK}/before.json)
run_gmlab("\nscale_strided\n   time: " compare ${WORK}/before.json ${WORK}/after.json)

# --html: the finding beside its experiment's chart, the kernel's point marked
# (a build without Chart.js says so instead).
execute_process(COMMAND ${GMLAB} explain --from-records ${FIXTURES}/bank_conflicts-planted --lab-run ${LAB}
                        --html ${WORK}/explain.html OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(err MATCHES "no Chart.js")
  message(STATUS "no Chart.js in this build: --html not checked")
else()
  file(READ ${WORK}/explain.html page)
  if(NOT rc EQUAL 0 OR NOT page MATCHES "<canvas" OR NOT page MATCHES "this kernel: transpose_tiled")
    message(FATAL_ERROR "--html: exit ${rc}, ${err}; the page has no chart with the kernel's point")
  endif()
endif()
message(STATUS "explain, report, compare and --html agree")
