# Install step: writes Gmlab.dll.config beside the installed Gmlab.dll, mapping
# the P/Invoke name gmlab_csharp to the installed native library. Runs with the
# GM_CS_* variables set by the install(CODE) just before it.
foreach(dir GM_CS_LIBDIR GM_CS_INSTALL_DIR)
  if(NOT IS_ABSOLUTE "${${dir}}")
    set(${dir} "${CMAKE_INSTALL_PREFIX}/${${dir}}")
  endif()
endforeach()
set(GM_CS_NATIVE_LIBRARY "${GM_CS_LIBDIR}/${GM_CS_NATIVE_NAME}")
set(config "$ENV{DESTDIR}${GM_CS_INSTALL_DIR}/Gmlab.dll.config")
message(STATUS "Installing: ${config}")
configure_file("${GM_CS_CONFIG_TEMPLATE}" "${config}" @ONLY)
