# Install rules: library, header, CLI, a CMake package (find_package(gmlab))
# and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS gmlab EXPORT gmlabTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET gmlab-cli)
  install(TARGETS gmlab-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(GM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gmlab)
install(EXPORT gmlabTargets NAMESPACE gmlab:: DESTINATION ${GM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gmlabConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gmlabConfig.cmake INSTALL_DESTINATION ${GM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gmlabConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gmlabConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/gmlabConfigVersion.cmake
  DESTINATION ${GM_CMAKE_DIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/gmlab.pc.in ${CMAKE_CURRENT_BINARY_DIR}/gmlab.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gmlab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${PROJECT_SOURCE_DIR}/docs/schema/gmlab.result-1.schema.json
              ${PROJECT_SOURCE_DIR}/docs/schema/gmlab.run-1.schema.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/gmlab/schema)
