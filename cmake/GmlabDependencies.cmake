# Third-party pieces, all header-only or system libraries. On a machine without
# a package manager the header-only ones can be pointed at with
# GM_THIRD_PARTY_INCLUDE (a folder holding nlohmann/ and CLI/), and GoogleTest
# with GM_GTEST_SOURCE_DIR (a copy of /usr/src/googletest).

find_package(CUDAToolkit REQUIRED)

set(GM_THIRD_PARTY_INCLUDE "" CACHE PATH "Extra folder with header-only libraries (nlohmann/, CLI/)")

find_package(nlohmann_json 3.9 QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(GM_NLOHMANN_INCLUDE nlohmann/json.hpp HINTS ${GM_THIRD_PARTY_INCLUDE} REQUIRED)
  add_library(nlohmann_json INTERFACE)
  target_include_directories(nlohmann_json SYSTEM INTERFACE ${GM_NLOHMANN_INCLUDE})
  add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)
endif()

if(GM_BUILD_CLI)
  find_package(CLI11 2.0 QUIET CONFIG)
  if(NOT CLI11_FOUND)
    find_path(GM_CLI11_INCLUDE CLI/CLI.hpp HINTS ${GM_THIRD_PARTY_INCLUDE} REQUIRED)
    add_library(gm_cli11 INTERFACE)
    target_include_directories(gm_cli11 SYSTEM INTERFACE ${GM_CLI11_INCLUDE})
    add_library(CLI11::CLI11 ALIAS gm_cli11)
  endif()
endif()

if(GM_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    set(GM_GTEST_SOURCE_DIR "/usr/src/googletest" CACHE PATH "GoogleTest sources")
    if(NOT EXISTS "${GM_GTEST_SOURCE_DIR}/CMakeLists.txt")
      message(FATAL_ERROR "GoogleTest not found: install libgtest-dev or set GM_GTEST_SOURCE_DIR")
    endif()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory(${GM_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_deps/googletest EXCLUDE_FROM_ALL)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()
