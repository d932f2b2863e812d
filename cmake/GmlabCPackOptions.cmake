# Read by CPack for each generator (CPACK_PROJECT_CONFIG_FILE): the tarball
# unpacks into one gmlab-<version>-Linux-<arch>/ folder, the .deb installs
# straight under /usr.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY OFF)
else()
  set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY ON)
endif()
