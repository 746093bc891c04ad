# The ways README.md ("Install") tells a user to get the engine, each run as written:
#   MODE=readme            copies the source tree to WORK_DIR/src (as a fresh checkout),
#                          runs the README's install commands (the ```sh block after the
#                          marker <!-- ctest: install-commands -->) there with /opt/cuckoo
#                          replaced by a scratch prefix, then builds examples/consumer
#                          against that prefix with find_package, and compiles and runs the
#                          same program with the README's pkg-config command (the block after
#                          <!-- ctest: pkg-config-commands -->)
#   MODE=fetchcontent      configures and builds examples/fetchcontent (FetchContent of the
#   MODE=add_subdirectory  source tree) or examples/subdirectory (add_subdirectory) and runs
#                          its program
# For the last two, every line of the README's cmake block after the marker
# <!-- ctest: lines-in examples/<dir>/CMakeLists.txt --> must be a line of that file, so
# the README shows what is tested.
# Inputs: SOURCE_DIR, WORK_DIR, MODE; optional CXX (the compiler for the example builds).
cmake_minimum_required(VERSION 3.25)
foreach(var SOURCE_DIR WORK_DIR MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_install_paths.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(READ "${SOURCE_DIR}/README.md" readme)

# readme_block(marker lang out_var): the fenced block of language `lang` that follows the
# line `<!-- ctest: marker -->` in README.md.
function(readme_block marker lang out_var)
  string(FIND "${readme}" "<!-- ctest: ${marker} -->" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md has no <!-- ctest: ${marker} --> marker")
  endif()
  string(SUBSTRING "${readme}" ${at} -1 rest)
  string(FIND "${rest}" "\n```${lang}\n" open)
  if(open EQUAL -1)
    message(FATAL_ERROR "README.md: no ```${lang} block after <!-- ctest: ${marker} -->")
  endif()
  string(LENGTH "${lang}" lang_length)
  math(EXPR body_at "${open} + 5 + ${lang_length}")
  string(SUBSTRING "${rest}" ${body_at} -1 rest)
  string(FIND "${rest}" "\n```" close)
  string(SUBSTRING "${rest}" 0 ${close} body)
  set(${out_var} "${body}\n" PARENT_SCOPE)
endfunction()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MODE} check: ${what} failed (${rc})")
  endif()
endfunction()

# Runs a shell block (each command echoed; the first failing one stops it).
function(run_shell what dir script)
  message(STATUS "${MODE} check: ${what}, in ${dir}:\n${script}")
  run_step("${what}" sh -e -x -c "${script}" WORKING_DIRECTORY "${dir}")
endfunction()

function(run_app program)
  execute_process(COMMAND "${program}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "${program} exited with ${rc}:\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MODE} check: ${program} exited with ${rc}")
  endif()
endfunction()

set(compiler)
if(DEFINED CXX AND NOT CXX STREQUAL "")
  set(compiler -DCMAKE_CXX_COMPILER=${CXX})
endif()

if(MODE STREQUAL "readme")
  # A fresh checkout: the tree without build directories.
  set(src "${WORK_DIR}/src")
  file(MAKE_DIRECTORY "${src}")
  file(GLOB children LIST_DIRECTORIES true "${SOURCE_DIR}/*")
  foreach(child IN LISTS children)
    get_filename_component(name "${child}" NAME)
    if(NOT name MATCHES "^(build|out|cmake-build.*)$")
      file(COPY "${child}" DESTINATION "${src}")
    endif()
  endforeach()
  set(prefix "${WORK_DIR}/prefix")

  readme_block(install-commands sh commands)
  string(REPLACE "/opt/cuckoo" "${prefix}" commands "${commands}")
  run_shell("the README's install commands" "${src}" "${commands}")
  foreach(f include/cuckoo/cuckoo_filter.hpp include/cuckoo/sync/kcas.hpp
            lib/cmake/cuckoo/cuckooConfig.cmake lib/cmake/cuckoo/cuckooConfigVersion.cmake
            lib/pkgconfig/cuckoo.pc)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "readme check: the install commands did not put ${f} in place")
    endif()
  endforeach()

  # find_package(cuckoo) against the prefix alone.
  run_step("configure examples/consumer" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer"
    -B "${WORK_DIR}/consumer" -G Ninja ${compiler} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
  run_step("build examples/consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
  run_app("${WORK_DIR}/consumer/consumer")

  # pkg-config: the README's commands on the same program, saved as app.cpp.
  set(pc_dir "${WORK_DIR}/pkg-config")
  file(MAKE_DIRECTORY "${pc_dir}")
  configure_file("${SOURCE_DIR}/examples/consumer/main.cpp" "${pc_dir}/app.cpp" COPYONLY)
  readme_block(pkg-config-commands sh commands)
  string(REPLACE "/opt/cuckoo" "${prefix}" commands "${commands}")
  run_shell("the README's pkg-config commands" "${pc_dir}" "${commands}")
  run_app("${pc_dir}/app")
elseif(MODE STREQUAL "fetchcontent" OR MODE STREQUAL "add_subdirectory")
  if(MODE STREQUAL "fetchcontent")
    set(example fetchcontent)
  else()
    set(example subdirectory)
  endif()
  set(listfile "${SOURCE_DIR}/examples/${example}/CMakeLists.txt")
  readme_block("lines-in examples/${example}/CMakeLists.txt" cmake block)
  file(STRINGS "${listfile}" file_lines)
  list(TRANSFORM file_lines STRIP)
  string(REPLACE "\n" ";" block_lines "${block}")
  set(compared 0)
  foreach(line IN LISTS block_lines)
    string(REGEX REPLACE "#.*$" "" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    if(NOT line IN_LIST file_lines)
      message(FATAL_ERROR "${MODE} check: the README's line '${line}' is not in ${listfile}")
    endif()
    math(EXPR compared "${compared} + 1")
  endforeach()
  if(compared EQUAL 0)
    message(FATAL_ERROR "${MODE} check: the README's ${example} block has no line")
  endif()
  run_step("configure examples/${example}" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/${example}"
    -B "${WORK_DIR}/build" -G Ninja ${compiler} -DCUCKOO_SOURCE_DIR=${SOURCE_DIR}
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
  run_step("build examples/${example}" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
  run_app("${WORK_DIR}/build/app")
else()
  message(FATAL_ERROR "check_install_paths.cmake: unknown MODE '${MODE}'")
endif()
message(STATUS "${MODE} check: passed")
