# Installs the build tree's package into a scratch prefix, then configures and builds one
# example project (examples/<EXAMPLE>) against that prefix only, and runs its programs:
#   EXAMPLE=consumer  the engines as a library user sees them; `consumer` must exit 0
#   EXAMPLE=audit     cuckoo::audit through find_package: `unordered_set_audit` (a correct
#                     subject) must exit 0, `broken_filter_audit` (a planted bug) must exit 1
#                     and print its shrunk counterexample trace
# Inputs: SOURCE_DIR, BUILD_DIR, WORK_DIR, CXX, EXAMPLE; optional CXX_FLAGS and BUILD_TYPE,
# which must match the package's build (a sanitizer build installs instrumented
# libraries, so its consumer links the same runtimes).
foreach(var SOURCE_DIR BUILD_DIR WORK_DIR CXX EXAMPLE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_installed.cmake: ${var} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXAMPLE} check: ${what} failed (${rc})")
  endif()
endfunction()

# Runs a program of the example (with the arguments after `pattern`); fails unless it
# exits with `expected_rc` and, when `pattern` is not empty, prints something matching it
# (stdout and stderr together).
function(run_program program expected_rc pattern)
  execute_process(COMMAND "${WORK_DIR}/build/${program}" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "${program} ${shown} exited with ${rc}:\n${out}")
  if(NOT rc STREQUAL "${expected_rc}")
    message(FATAL_ERROR "${EXAMPLE} check: ${program} exited with ${rc}, expected ${expected_rc}")
  endif()
  if(NOT pattern STREQUAL "" AND NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "${EXAMPLE} check: ${program} printed nothing matching '${pattern}'")
  endif()
endfunction()

run_step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
set(expected_files include/cuckoo/cuckoo_filter.hpp lib/cmake/cuckoo/cuckooConfig.cmake
    lib/cmake/cuckoo/cuckooConfigVersion.cmake)
if(EXAMPLE STREQUAL "audit")
  # audit_main.hpp: the driver the examples' main() is (cuckoo::audit::audit_main).
  list(APPEND expected_files include/cuckoo/model/trace.hpp include/cuckoo/audit/audit.hpp
       include/cuckoo/audit/audit_main.hpp bin/cuckoo-audit)
endif()
foreach(f IN LISTS expected_files)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "${EXAMPLE} check: install did not put ${f} in place")
  endif()
endforeach()

set(flags)
if(DEFINED CXX_FLAGS)
  list(APPEND flags "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
endif()
if(DEFINED BUILD_TYPE AND NOT BUILD_TYPE STREQUAL "")
  list(APPEND flags "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
run_step("configure ${EXAMPLE}" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/${EXAMPLE}"
  -B "${WORK_DIR}/build" -G Ninja -DCMAKE_CXX_COMPILER=${CXX} ${flags}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
run_step("build ${EXAMPLE}" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")

if(EXAMPLE STREQUAL "consumer")
  run_program(consumer 0 "")
elseif(EXAMPLE STREQUAL "audit")
  run_program(unordered_set_audit 0 "")
  run_program(broken_filter_audit 1 "([Cc]ounterexample|engine [A-Za-z_.-]+)")
  # The installed driver's command line: claim ids in either case, bad usage is exit 2,
  # --out writes the reports and a counterexample that --replay reproduces.
  run_program(unordered_set_audit 0 "C7 +std\\.unordered_set +PASS" --claims c1,C7 --seed 3)
  run_program(unordered_set_audit 2 "unknown argument '--bogus'" --bogus)
  run_program(broken_filter_audit 1 "wrote .*report\\.json" --out "${WORK_DIR}/reports")
  file(GLOB counterexamples "${WORK_DIR}/reports/counterexamples/*.trace")
  list(GET counterexamples 0 counterexample)
  run_program(broken_filter_audit 1 "" --replay "${counterexample}")
  # The installed command runs too.
  run_step("cuckoo-audit list" "${prefix}/bin/cuckoo-audit" list)
else()
  message(FATAL_ERROR "check_installed.cmake: unknown EXAMPLE '${EXAMPLE}'")
endif()
