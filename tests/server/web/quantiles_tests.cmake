# GET /api/v1/gpus/{model}/quantiles on a real server, and gmlab check judging
# by it (tools/server/web/quantiles_api.cpp). Included from tools/server.
set(_gm_quantiles_gmlab "")
if(TARGET gmlab-cli)
  set(_gm_quantiles_gmlab --gmlab $<TARGET_FILE:gmlab-cli>)
endif()
add_test(NAME server_quantiles
  COMMAND ${GM_SERVER_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/server/web/quantiles_test.py --server $<TARGET_FILE:gmlab-server>
          --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200-standard-suite.json
          --other ${PROJECT_SOURCE_DIR}/results/nvidia-h100-80gb-hbm3-standard-suite.json
          ${_gm_quantiles_gmlab} --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-quantiles)
set_tests_properties(server_quantiles PROPERTIES LABELS server TIMEOUT 120)
