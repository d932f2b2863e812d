# The one place that decides which GPUs the device code is built for.
#
# Included twice from the top-level CMakeLists.txt: before project(), where it
# notes whether the user chose CMAKE_CUDA_ARCHITECTURES, and after it, where
# gm_choose_cuda_architectures() asks the CUDA compiler in use which
# architectures it can build (nvcc --list-gpu-code) and, unless the user chose,
# sets:
#
#   real code (SASS) for each family's first architecture that the toolkit can
#   build, from Volta/Turing up:  70 75 80 86 89 90 100 120
#   (a cubin also runs on the later minor revisions of its major: 8.6 code on
#   8.7/8.8, 10.0 on 10.3, 12.0 on 12.1), plus 87 and 110 (Jetson Orin, Thor) on
#   aarch64 hosts;
#   PTX of the newest of those, which the driver compiles at load time for GPUs
#   newer than anything listed.
#
# CUDA 13 lists no Volta (7.0); CUDA 12.8 and newer list Blackwell (10.0, 12.0).
# A release package built with this default runs on every GPU from the oldest
# listed architecture up. For day-to-day work pass one architecture, e.g.
# -DCMAKE_CUDA_ARCHITECTURES=native or =90.

set(GM_CUDA_FAMILIES 70 75 80 86 89 90 100 120)
set(GM_CUDA_FAMILIES_AARCH64 87 110)

if(NOT COMMAND gm_choose_cuda_architectures)
  # Before project(): the user's choice is a defined CMAKE_CUDA_ARCHITECTURES
  # that is not the value this module wrote on an earlier configure.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES
     OR (DEFINED GM_CUDA_ARCHITECTURES_CHOSEN AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${GM_CUDA_ARCHITECTURES_CHOSEN}"))
    set(GM_CUDA_ARCHITECTURES_DEFAULT TRUE)
  else()
    set(GM_CUDA_ARCHITECTURES_DEFAULT FALSE)
  endif()

  # The list for the compiler `nvcc`, from the architectures it can build
  # ("sm_75;sm_80;..."); empty if it cannot be asked.
  function(gm_default_cuda_architectures out nvcc)
    execute_process(COMMAND "${nvcc}" --list-gpu-code OUTPUT_VARIABLE codes ERROR_QUIET RESULT_VARIABLE rc)
    set(result "")
    if(rc EQUAL 0)
      string(REGEX MATCHALL "sm_[0-9]+" codes "${codes}")
      set(families ${GM_CUDA_FAMILIES})
      if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
        list(APPEND families ${GM_CUDA_FAMILIES_AARCH64})
        list(SORT families COMPARE NATURAL)
      endif()
      set(newest "")
      foreach(arch IN LISTS families)
        if("sm_${arch}" IN_LIST codes)
          list(APPEND result "${arch}-real")
          set(newest ${arch})
        endif()
      endforeach()
      if(newest)
        list(APPEND result "${newest}-virtual")
      endif()
    endif()
    set(${out} "${result}" PARENT_SCOPE)
  endfunction()

  # After project(): sets CMAKE_CUDA_ARCHITECTURES (cache) unless the user chose.
  function(gm_choose_cuda_architectures)
    if(GM_CUDA_ARCHITECTURES_DEFAULT)
      gm_default_cuda_architectures(archs "${CMAKE_CUDA_COMPILER}")
      if(NOT archs)
        message(FATAL_ERROR "gmlab: cannot list the architectures of ${CMAKE_CUDA_COMPILER} "
                            "(nvcc --list-gpu-code); set CMAKE_CUDA_ARCHITECTURES")
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${archs}" CACHE STRING "CUDA architectures (gmlab's default: every family the toolkit builds)" FORCE)
      set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)
      set(GM_CUDA_ARCHITECTURES_CHOSEN "${archs}" CACHE INTERNAL "the default this module chose")
      message(STATUS "gmlab: CUDA architectures ${archs} (the default for CUDA ${CMAKE_CUDA_COMPILER_VERSION})")
    else()
      unset(GM_CUDA_ARCHITECTURES_CHOSEN CACHE)
      message(STATUS "gmlab: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
    endif()
  endfunction()
endif()
