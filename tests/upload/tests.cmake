# Uploader tests (label "upload"), included from tools/upload/CMakeLists.txt:
# gmlab-upload against a fake server on 127.0.0.1, in Python's standard library.
find_program(GM_UPLOAD_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT GM_UPLOAD_PYTHON3)
  find_program(GM_UPLOAD_PYTHON3 NAMES python3)
endif()
if(GM_UPLOAD_PYTHON3)
  set(_gm_upload_cli "")
  if(TARGET gmlab-cli)
    set(_gm_upload_cli $<TARGET_FILE:gmlab-cli>)
  endif()
  add_test(NAME upload_fake_server
    COMMAND ${GM_UPLOAD_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_upload.py
            $<TARGET_FILE:gmlab-upload> ${PROJECT_SOURCE_DIR} ${_gm_upload_cli})
  set_tests_properties(upload_fake_server PROPERTIES LABELS upload TIMEOUT 300)
  if(TARGET gmlab-cli)
    # gmlab contribute with a run from results/: no GPU needed.
    add_test(NAME upload_contribute
      COMMAND ${GM_UPLOAD_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_contribute.py $<TARGET_FILE:gmlab-cli> ${PROJECT_SOURCE_DIR})
    set_tests_properties(upload_contribute PROPERTIES LABELS upload TIMEOUT 300)
  endif()
endif()

# Against the real gmlab-server, when it is built too. tools/server is added
# after this folder, so the check runs at the end of the top-level directory.
set(GM_UPLOAD_TEST_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "")
set(GM_UPLOAD_TEST_PYTHON3 ${GM_UPLOAD_PYTHON3} CACHE INTERNAL "")
function(gm_upload_add_real_server_test)
  if(TARGET gmlab-server AND GM_UPLOAD_TEST_PYTHON3)
    add_test(NAME upload_real_server
      COMMAND ${GM_UPLOAD_TEST_PYTHON3} ${GM_UPLOAD_TEST_DIR}/test_real_server.py
              $<TARGET_FILE:gmlab-upload> $<TARGET_FILE:gmlab-server> ${PROJECT_SOURCE_DIR})
    set_tests_properties(upload_real_server PROPERTIES LABELS upload TIMEOUT 300)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL gm_upload_add_real_server_test)
