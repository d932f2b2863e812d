# The server's web pages without a server: render_pages builds stored runs from
# results/nvidia-h200.json (plus modified copies, one a GPU model whose name,
# notes and a series name carry HTML injections), renders every page into
# pages-artifacts/ and checks structure and escaping; check_pages.py then opens
# each page in headless Chromium and checks that every chart drew and painted.
# Included from tests/server/tests.cmake; needs the report's Chart.js.
# Screenshots and pages stay in pages-artifacts/ (live server: its pages in pages-artifacts/live/).
if(GM_CHARTJS)
  add_executable(gm_render_pages ${PROJECT_SOURCE_DIR}/tests/server/web/pages/render_pages.cpp
                                 ${PROJECT_SOURCE_DIR}/tools/server/storage/aggregate.cpp
                                 ${PROJECT_SOURCE_DIR}/tools/server/web/pages.cpp
                                 ${PROJECT_SOURCE_DIR}/tools/server/http/guards/request_deadline.cpp)
  target_include_directories(gm_render_pages PRIVATE ${PROJECT_SOURCE_DIR}/tools/server)
  target_link_libraries(gm_render_pages PRIVATE gmlab_report nlohmann_json::nlohmann_json)
  target_compile_options(gm_render_pages PRIVATE -Wall -Wextra)

  set(GM_PAGES_OUT ${CMAKE_BINARY_DIR}/pages-artifacts)
  add_test(NAME server_pages_render
    COMMAND gm_render_pages ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json ${GM_PAGES_OUT})
  set_tests_properties(server_pages_render PROPERTIES LABELS server FIXTURES_SETUP server_pages)

  find_program(GM_PAGES_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  find_program(GM_PAGES_CHROMIUM chromium)
  if(GM_PAGES_PYTHON3 AND GM_PAGES_CHROMIUM)
    add_test(NAME server_pages_in_chromium
      COMMAND ${GM_PAGES_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/server/web/pages/check_pages.py
              --manifest ${GM_PAGES_OUT}/manifest.json --out ${GM_PAGES_OUT} --chromium ${GM_PAGES_CHROMIUM})
    set_tests_properties(server_pages_in_chromium PROPERTIES LABELS server FIXTURES_REQUIRED server_pages TIMEOUT 900 PROCESSORS 2)
  endif()
endif()

# The same pages served by a real gmlab-server with five uploads (SQLite file).
if(GM_CHARTJS AND GM_PAGES_PYTHON3 AND GM_PAGES_CHROMIUM AND TARGET gmlab-server)
  add_test(NAME server_pages_live
    COMMAND ${GM_PAGES_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/server/web/pages/check_pages.py
            --server $<TARGET_FILE:gmlab-server> --document ${PROJECT_SOURCE_DIR}/results/nvidia-h200.json
            --out ${CMAKE_BINARY_DIR}/pages-artifacts/live --chromium ${GM_PAGES_CHROMIUM})
  set_tests_properties(server_pages_live PROPERTIES LABELS server TIMEOUT 900)
endif()
