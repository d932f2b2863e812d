# Installs the build tree's project (build/bindings/python) with pip into a
# scratch folder, and with a wheel built by its own backend, then imports gmlab
# from each place alone (a fresh interpreter, elsewhere, no PYTHONPATH to the
# build tree): the package must carry its extension and libgmlab.
#   cmake -DPYTHON=python3 -DPROJECT_DIR=build/bindings/python -DWORK_DIR=DIR -P check_install.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/target ${WORK_DIR}/wheel)

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK_DIR})
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGV}\n${out}${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

set(check [=[
import os, sys, pathlib
import gmlab
where = pathlib.Path(gmlab.__file__).parent
assert str(where).startswith(sys.argv[1]), (where, sys.argv[1])
assert list(where.glob("libgmlab.so.*")), "no libgmlab in " + str(where)
assert list(where.glob("_swiggmlab*.so")), "no extension in " + str(where)
assert (where / "__init__.pyi").is_file() and (where / "py.typed").is_file()
assert "stride_copy" in gmlab.experiments()
print("gmlab", gmlab.version(), "from", where)
]=])

# pip straight from the project folder: no network, no setuptools (requires = []).
run(${CMAKE_COMMAND} -E env PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
    ${PYTHON} -m pip install --no-deps --no-build-isolation --target ${WORK_DIR}/target ${PROJECT_DIR})
run(${CMAKE_COMMAND} -E env --unset=PYTHONPATH PYTHONPATH=${WORK_DIR}/target ${PYTHON} -c "${check}" ${WORK_DIR}/target)
message("${run_out}")

# A wheel through the backend (what python3 -m build --wheel calls), unpacked by pip.
# (No semicolons in the code: run() passes its arguments on as a CMake list.)
set(build_wheel [=[
import sys
sys.path.insert(0, sys.argv[1])
import gmlab_build_backend
print(gmlab_build_backend.build_wheel(sys.argv[2]))
]=])
run(${PYTHON} -c "${build_wheel}" ${PROJECT_DIR} ${WORK_DIR}/wheel)
string(STRIP "${run_out}" wheel)
if(NOT wheel MATCHES "^gmlab-[0-9.]+-cp[0-9]+(\\.cp[0-9]+)*-cp[0-9]+(\\.cp[0-9]+)*-linux_[a-z0-9_]+\\.whl$")
  message(FATAL_ERROR "unexpected wheel name ${wheel}")
endif()
run(${CMAKE_COMMAND} -E env PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
    ${PYTHON} -m pip install --no-deps --target ${WORK_DIR}/from-wheel ${WORK_DIR}/wheel/${wheel})
run(${CMAKE_COMMAND} -E env --unset=PYTHONPATH PYTHONPATH=${WORK_DIR}/from-wheel ${PYTHON} -c "${check}" ${WORK_DIR}/from-wheel)
message("${wheel}: ${run_out}")
