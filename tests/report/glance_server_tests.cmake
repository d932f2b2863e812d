# gmlab report --server on a real gmlab-server: the crowd's medians in "This
# GPU at a glance" (tools/report/glance.hpp, tools/cli/report_commands.cpp).
# Included from tools/server, where gmlab-server is a target.
if(TARGET gmlab-cli)
  add_test(NAME report_glance_server
    COMMAND ${GM_SERVER_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/report/glance_server_test.py --gmlab $<TARGET_FILE:gmlab-cli>
            --server $<TARGET_FILE:gmlab-server>
            --document ${PROJECT_SOURCE_DIR}/results/nvidia-h100-80gb-hbm3-standard-suite-a983714.json
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-report-glance)
  set_tests_properties(report_glance_server PROPERTIES LABELS "report;server" TIMEOUT 180)
endif()
