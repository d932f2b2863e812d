# The binary release: `cmake --build build --target package` makes
#   gmlab-<version>-Linux-<arch>.tar.gz  (unpacks anywhere: bin/ lib/ include/ share/)
#   gmlab_<version>-1_<arch>.deb         (installs under /usr)
# holding libgmlab.so, gmlab, gmlab-upload (when built), the header, the CMake
# package and the pkg-config file: the install components "runtime" and
# "development" (cmake/GmlabInstall.cmake). The server and the bindings are not
# in it. The CUDA runtime is inside libgmlab.so (static cudart): a machine needs
# only the NVIDIA driver. Device code: cmake/GmlabCudaArchitectures.cmake.
#
# The .deb's dependencies come from dpkg-shlibdeps where it is installed
# (Debian's dpkg-dev): libc, libstdc++, zlib and libzstd for reading compressed
# documents in gmlab (tools/report/CMakeLists.txt: the system's shared
# libraries, which every Debian system has and libcurl loads anyway), and
# libcurl/zlib/libzstd for the upload code in gmlab and gmlab-upload; never
# for libgmlab.so itself.

set(CPACK_PACKAGE_NAME gmlab)
set(CPACK_PACKAGE_VENDOR "gmlab")
set(CPACK_PACKAGE_CONTACT "gmlab maintainers <gmlab@users.noreply.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU memory laboratory: the CUDA guides' memory experiments, measured on your GPU")
set(CPACK_PACKAGE_DESCRIPTION
  "gmlab measures what the CUDA C++ Best Practices Guide says about memory (coalescing, strides, shared memory banks, L2 persistence, host transfers) on the local GPU, and shares the results with a gmlab-server. Contains the gmlab command, gmlab-upload, libgmlab with its C header, CMake package and pkg-config file. Needs the NVIDIA driver; the CUDA runtime is built in.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_PACKAGE_FILE_NAME "gmlab-${PROJECT_VERSION}-Linux-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_COMPONENTS_ALL runtime development)
# One package each holding both components, and only those: a build tree with
# the server or the bindings installs them too, under other components.
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/GmlabCPackOptions.cmake)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://gmlab.invalid")
find_program(GM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # Without dpkg-shlibdeps: the libraries gmlab links, by their Debian names.
  set(_gm_deps "libc6, libstdc++6, libgcc-s1")
  if(TARGET gmlab-upload)
    string(APPEND _gm_deps ", libcurl4")
  endif()
  if(TARGET gmlab-upload OR GM_REPORT_ZSTD)
    string(APPEND _gm_deps ", libzstd1")
  endif()
  if(TARGET gmlab-upload OR GM_REPORT_ZLIB)
    string(APPEND _gm_deps ", zlib1g")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_gm_deps}")
endif()
# The driver's CUDA library is not a Debian dependency: NVIDIA's own installer
# provides it outside dpkg as often as Debian's packages do.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-driver | libcuda1")

include(CPack)
