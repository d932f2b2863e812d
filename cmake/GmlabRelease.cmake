# The release: `cmake --build build --target release` makes, in build/release/,
#   gmlab-<version>-Linux-<arch>.tar.gz and gmlab_<version>-1_<arch>.deb (CPack,
#     cmake/GmlabPackage.cmake)
#   maven/org/gmlab/gmlab/...   the Java jar (native libraries inside), its
#     sources, javadoc and POM, as a Maven repository folder
#   Gmlab.<version>.nupkg       the C# assembly with its native libraries
#   go/gmlab.invalid/gmlab/@v/  the Go module (SWIG's output inside) as a
#     module proxy folder
#   gmlab-<version>-cp3XX...-manylinux_2_N_<arch>.whl   the Python package
#   SHA256SUMS                  of every file above
# all of one version (PROJECT_VERSION), assembled by cmake/release/assemble.py
# from what the build made. It needs every binding (GM_BUILD_JAVA, _CSHARP, _GO
# and _PYTHON) and the CLI; scripts/test.sh configures them all, and the tests
# labelled `release` (tests/release/) check the folder it makes.
#
# GM_LICENSE is the SPDX licence expression the language packages declare
# (the POM, the .nuspec).

set(GM_LICENSE "MIT" CACHE STRING "SPDX licence expression of the language packages")

if(GM_BUILD_JAVA AND GM_BUILD_CSHARP AND GM_BUILD_GO AND GM_BUILD_PYTHON AND TARGET gmlab-cli)
  set(GM_RELEASE_DIR ${CMAKE_BINARY_DIR}/release)
  find_program(GM_STRIP NAMES ${CMAKE_STRIP} strip REQUIRED)
  set(GM_RELEASE_INPUTS ${CMAKE_BINARY_DIR}/release-inputs.json)
  file(GENERATE OUTPUT ${GM_RELEASE_INPUTS} CONTENT "{
  \"version\": \"${PROJECT_VERSION}\",
  \"license\": \"${GM_LICENSE}\",
  \"build_dir\": \"${CMAKE_BINARY_DIR}\",
  \"release_dir\": \"${GM_RELEASE_DIR}\",
  \"work_dir\": \"${CMAKE_BINARY_DIR}/release-work\",
  \"cpack\": \"${CMAKE_CPACK_COMMAND}\",
  \"strip\": \"${GM_STRIP}\",
  \"python_executable\": \"${GM_PYTHON_FOR_RELEASE}\",
  \"java\": ${GM_RELEASE_JAVA},
  \"csharp\": ${GM_RELEASE_CSHARP},
  \"go\": ${GM_RELEASE_GO},
  \"python\": ${GM_RELEASE_PYTHON}
}
")
  add_custom_target(release
    COMMAND ${GM_PYTHON_FOR_RELEASE} ${PROJECT_SOURCE_DIR}/cmake/release/assemble.py ${GM_RELEASE_INPUTS}
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
    COMMENT "Release: the packages and one artifact per language in ${GM_RELEASE_DIR}"
    VERBATIM)
  add_dependencies(release gmlab gmlab-cli ${GM_RELEASE_JAVA_TARGETS} ${GM_RELEASE_CSHARP_TARGETS}
                   ${GM_RELEASE_GO_TARGETS} ${GM_RELEASE_PYTHON_TARGETS})
  if(TARGET gmlab-upload)
    add_dependencies(release gmlab-upload)
  endif()
  if(GM_BUILD_TESTS)
    add_subdirectory(tests/release)
  endif()
endif()
