# Installs the build tree's package into a scratch prefix, then configures, builds and
# runs examples/consumer against that prefix only.
# Inputs: SOURCE_DIR, BUILD_DIR, WORK_DIR, CXX.
foreach(var SOURCE_DIR BUILD_DIR WORK_DIR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_installed.cmake: ${var} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer check: ${what} failed (${rc})")
  endif()
endfunction()

run_step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/cuckoo/cuckoo_filter.hpp lib/cmake/cuckoo/cuckooConfig.cmake
          lib/cmake/cuckoo/cuckooConfigVersion.cmake)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "consumer check: install did not put ${f} in place")
  endif()
endforeach()
run_step("configure consumer" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer"
  -B "${WORK_DIR}/build" -G Ninja -DCMAKE_CXX_COMPILER=${CXX}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
run_step("build consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run_step("run consumer" "${WORK_DIR}/build/consumer")
