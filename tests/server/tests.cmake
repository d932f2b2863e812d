# The tests of gmlab-server, in folders that mirror tools/server: http/,
# storage/, upload/, crowd/, web/ and ops/ hold the tests of that layer; this folder
# those of the whole server (security, crash, replicas, proxy, the
# configuration file) and what the tests share (harness.py, zstd_codec.py,
# gzip_for_tests.hpp, fixtures/). Included from tools/server/CMakeLists.txt
# after the server's targets are defined.
find_program(GM_SERVER_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(GM_SERVER_TESTS ${PROJECT_SOURCE_DIR}/tests/server)
# counters_pages: a GPU model's page with the model against the hardware
# counters across uploads (and tests/server/fixtures/counted_h200.json).
# body_limits: bodies that stall, the budget of bodies being received, uploads
# whose clients hang up. trust: what the server trusts of an upload (its own
# facts of GPU models, one name per model, one row per run, CSV cells, headers).
# They upload what the current library writes (a gmlab.run/1.3 standard run),
# which the server stores as received; older documents lose on ingest the
# figures their quantities do not have (upload/committed_runs_test.py).
# counters_pages counts the counter charts of the 24-experiment run it was
# written for (results/nvidia-h200.json, gmlab.run/1.2).
foreach(t web/api security trust crash http/slow_client http/body_limits web/counters_pages)
  get_filename_component(n ${t} NAME)
  set(document ${PROJECT_SOURCE_DIR}/results/nvidia-h200-standard-suite.json)
  if(n STREQUAL "counters_pages")
    set(document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json)
  endif()
  add_test(NAME server_${n}
    COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/${t}_test.py --server $<TARGET_FILE:gmlab-server>
            --document ${document} --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-${n})
  set_tests_properties(server_${n} PROPERTIES LABELS server TIMEOUT 300)
endforeach()
# What operators run the server with (ops/): health and readiness, metrics
# parsed by the Prometheus client, the access log and SIGHUP, the drain on
# SIGTERM, slow readers, backups and restores, upgrades from the last
# release's databases. Each also runs on PostgreSQL (postgres/CMakeLists.txt).
foreach(t ops drain slow_reader backup upgrade)
  add_test(NAME server_${t}
    COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/ops/${t}_test.py --server $<TARGET_FILE:gmlab-server>
            --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-${t})
  set_tests_properties(server_${t} PROPERTIES LABELS server TIMEOUT 300)
endforeach()
# The view across models on SYNTHETIC fixtures of several GPU models (made
# from the H200 run at test time); with Chromium, an experiment page and a
# comparison are drawn and their screenshots kept in crowd-artifacts/.
find_program(GM_CROWD_CHROMIUM chromium)
set(GM_CROWD_BROWSER)
if(GM_CROWD_CHROMIUM AND TARGET gmlab_report)
  set(GM_CROWD_BROWSER --chromium ${GM_CROWD_CHROMIUM} --artifacts ${CMAKE_BINARY_DIR}/crowd-artifacts)
endif()
add_test(NAME server_crowd
  COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/crowd/crowd_test.py --server $<TARGET_FILE:gmlab-server>
          --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-crowd ${GM_CROWD_BROWSER})
set_tests_properties(server_crowd PROPERTIES LABELS server TIMEOUT 600)
# 10,000 uploads over 8 models, then the export: rows, rate and resident memory.
add_test(NAME server_crowd_export_10k
  COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/crowd/crowd_export_test.py --server $<TARGET_FILE:gmlab-server>
          --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-crowd-export)
set_tests_properties(server_crowd_export_10k PROPERTIES LABELS server TIMEOUT 600)
# The deployment behind nginx with TLS (deploy/nginx): needs nginx and openssl.
find_program(GM_NGINX nginx PATHS /usr/sbin NO_DEFAULT_PATH)
find_program(GM_OPENSSL openssl)
if(GM_NGINX AND GM_OPENSSL)
  add_test(NAME server_proxy
    COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/proxy_test.py --server $<TARGET_FILE:gmlab-server> --nginx ${GM_NGINX}
            --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-proxy)
  set_tests_properties(server_proxy PROPERTIES LABELS server TIMEOUT 120)
  # Two replicas on one SQLite file behind that nginx site, restarted in turn
  # under uploads and page requests: 0 failed, 0 lost, 0 duplicated.
  add_test(NAME server_rolling_restart
    COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/ops/rolling_restart_test.py --server $<TARGET_FILE:gmlab-server>
            --nginx ${GM_NGINX} --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-rolling-restart)
  set_tests_properties(server_rolling_restart PROPERTIES LABELS server TIMEOUT 180)
else()
  message(WARNING "gmlab-server: nginx or openssl not found; the proxy and rolling-restart tests are not registered")
endif()
# The pieces that need no server, each layer's in its folder; one binary.
add_executable(gm_server_unit_tests
  ${GM_SERVER_TESTS}/http/http_test.cpp ${GM_SERVER_TESTS}/http/observe_test.cpp
  ${GM_SERVER_TESTS}/storage/storage_test.cpp ${GM_SERVER_TESTS}/storage/aggregate_test.cpp
  ${GM_SERVER_TESTS}/storage/counter_rows_test.cpp ${GM_SERVER_TESTS}/storage/rate_limit_test.cpp
  ${GM_SERVER_TESTS}/upload/validate_test.cpp ${GM_SERVER_TESTS}/upload/counter_rows_validation_test.cpp
  ${GM_SERVER_TESTS}/upload/quantity_validation_test.cpp ${GM_SERVER_TESTS}/upload/shape_limits_test.cpp ${GM_SERVER_TESTS}/upload/trust_rules_test.cpp
  ${GM_SERVER_TESTS}/crowd/crowd_test.cpp ${GM_SERVER_TESTS}/web/client_address_test.cpp
  ${GM_SERVER_TESTS}/web/number_text_test.cpp
  ${GM_SERVER_TESTS}/web/url_test.cpp
  ${GM_SERVER_TESTS}/config_file_test.cpp ${GM_SERVER_DIR}/config_file.cpp)
target_include_directories(gm_server_unit_tests PRIVATE ${GM_SERVER_TESTS})  # gzip_for_tests.hpp, temp_files.hpp
# Compiled in batches (8 files a batch): GoogleTest's, nlohmann-json's and
# Beast's headers parsed once per batch, not once per file.
set_target_properties(gm_server_unit_tests PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
target_link_libraries(gm_server_unit_tests PRIVATE gmlab_server_web SQLite::SQLite3 GTest::gtest_main Threads::Threads)
add_test(NAME server_unit COMMAND gm_server_unit_tests)
set_tests_properties(server_unit PROPERTIES LABELS server)
if(GM_FUZZ_OK)
  add_test(NAME server_fuzz_validate
    COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/upload/run_fuzz.py --fuzzer ${GM_FUZZ_BIN} --seconds 20
            --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-fuzz)
  set_tests_properties(server_fuzz_validate PROPERTIES LABELS server TIMEOUT 120 PROCESSORS 2)
endif()
# Uploads cannot multiply a page's size: 20 uploads with shifted x (the
# canonical axis) and 5 with series of their own leave a GPU model's page and
# /compare the size they had after one upload.
# What a request may cost (issue 47): shapes, a linear comparison, the
# request deadline and SIGTERM, memory after hostile bodies, the body
# budget's share per network, clients sharing an address, page bounds.
add_test(NAME server_costs
  COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/costs_test.py --server $<TARGET_FILE:gmlab-server>
          --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-costs)
set_tests_properties(server_costs PROPERTIES LABELS server TIMEOUT 300)
add_test(NAME server_page_growth
  COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/web/page_growth_test.py --server $<TARGET_FILE:gmlab-server>
          --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-page-growth)
set_tests_properties(server_page_growth PROPERTIES LABELS server TIMEOUT 120)
# Pages drawn from aggregates with extreme values print short numbers.
if(GM_CHARTJS AND TARGET gmlab_report AND EXISTS ${GM_SERVER_DIR}/web/pages.cpp)
  add_executable(gm_server_page_numbers_test ${GM_SERVER_TESTS}/web/page_numbers_test.cpp)
  target_link_libraries(gm_server_page_numbers_test PRIVATE gmlab_server_web GTest::gtest_main)
  add_test(NAME server_page_numbers COMMAND gm_server_page_numbers_test)
  set_tests_properties(server_page_numbers PROPERTIES LABELS server)
endif()
# The pages' and PostgreSQL parts register their own tests.
if(EXISTS ${GM_SERVER_TESTS}/web/pages/tests.cmake AND TARGET gmlab_report)
  include(${GM_SERVER_TESTS}/web/pages/tests.cmake)
endif()
if(EXISTS ${GM_SERVER_TESTS}/postgres/CMakeLists.txt)
  add_subdirectory(${GM_SERVER_TESTS}/postgres ${CMAKE_CURRENT_BINARY_DIR}/postgres-tests)
endif()
# Every run document the project holds (results/ and the older runs in
# tests/report/data) uploads as a contributor's would, and shows on its pages.
add_test(NAME server_committed_runs
  COMMAND ${GM_SERVER_PYTHON3} ${GM_SERVER_TESTS}/upload/committed_runs_test.py --server $<TARGET_FILE:gmlab-server>
          --documents ${PROJECT_SOURCE_DIR}/results ${PROJECT_SOURCE_DIR}/tests/report/data
          --workdir ${CMAKE_CURRENT_BINARY_DIR}/test-committed-runs)
set_tests_properties(server_committed_runs PROPERTIES LABELS server TIMEOUT 300)
