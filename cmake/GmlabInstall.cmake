# Install rules: library, header, CLI, a CMake package (find_package(gmlab))
# and a pkg-config file. Everything is relocatable (the release tarball unpacks
# anywhere): the tools find libgmlab through $ORIGIN, the CMake package through
# its own location, the pkg-config file through ${pcfiledir}.
# Components: "runtime" (library, tools, schemas) and "development" (header,
# CMake and pkg-config files); cmake/GmlabPackage.cmake packs both.
include(CMakePackageConfigHelpers)

install(TARGETS gmlab EXPORT gmlabTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)

# bin/ -> lib/ of the same prefix, wherever it was unpacked.
file(RELATIVE_PATH GM_BIN_TO_LIB "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
foreach(tool gmlab-cli gmlab-upload)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH "$ORIGIN/${GM_BIN_TO_LIB}")
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  endif()
endforeach()

set(GM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gmlab)
install(EXPORT gmlabTargets NAMESPACE gmlab:: DESTINATION ${GM_CMAKE_DIR} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gmlabConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gmlabConfig.cmake INSTALL_DESTINATION ${GM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gmlabConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gmlabConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/gmlabConfigVersion.cmake
  DESTINATION ${GM_CMAKE_DIR} COMPONENT development)

# ${pcfiledir} is lib/pkgconfig of the prefix: the prefix is that many levels up.
file(RELATIVE_PATH GM_PC_PREFIX_FROM_PCDIR "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gmlab.pc.in ${CMAKE_CURRENT_BINARY_DIR}/gmlab.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gmlab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
install(FILES ${PROJECT_SOURCE_DIR}/docs/schema/gmlab.result-1.schema.json
              ${PROJECT_SOURCE_DIR}/docs/schema/gmlab.run-1.schema.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/gmlab/schema COMPONENT runtime)
