# The documentation's checks, in the default lane (label docs):
#   doc_snippets                     every ```cpp block of README.md, and the blocks of
#                                    docs/*.md marked <!-- snippet: compile -->, compiled with
#                                    -Wall -Wextra -Wpedantic -Werror and run (ci/check-snippets
#                                    states the convention)
#   doc_snippets_reject_planted      the same check on a planted snippet with an unused
#                                    variable must fail and name the snippet's line
#   api_reference                    ci/docs: Doxygen over the public headers, failing on any
#                                    warning (an undocumented public member included)
#   api_reference_rejects_undocumented  ci/docs with a planted header holding an undocumented
#                                    class must fail naming it
# The last two exist when doxygen is installed (ci/test installs it; a configure without
# it says so).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(cuckoo_snippet_args --cxx ${CMAKE_CXX_COMPILER} --root ${PROJECT_SOURCE_DIR}
    --include ${CUCKOO_XXHASH_INCLUDE_DIR})
add_test(NAME doc_snippets
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/ci/check-snippets ${cuckoo_snippet_args}
          --work ${CMAKE_CURRENT_BINARY_DIR}/doc_snippets)
set(cuckoo_planted_snippet ${CMAKE_CURRENT_BINARY_DIR}/doc_snippets_planted.md)
file(WRITE ${cuckoo_planted_snippet}
  "# A planted snippet\n\n```cpp\nint unused = 1;\n```\n")
add_test(NAME doc_snippets_reject_planted
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/ci/check-snippets ${cuckoo_snippet_args}
          --work ${CMAKE_CURRENT_BINARY_DIR}/doc_snippets_planted
          --expect-failure-at ${cuckoo_planted_snippet}:4 ${cuckoo_planted_snippet})
set_tests_properties(doc_snippets doc_snippets_reject_planted PROPERTIES LABELS "docs" TIMEOUT 600)

find_program(CUCKOO_DOXYGEN doxygen)
if(CUCKOO_DOXYGEN)
  add_test(NAME api_reference COMMAND ${CMAKE_COMMAND} -E env
           CUCKOO_DOCS_OUT=${CMAKE_CURRENT_BINARY_DIR}/api_reference
           ${PROJECT_SOURCE_DIR}/ci/docs --no-install
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set(cuckoo_planted_header ${CMAKE_CURRENT_BINARY_DIR}/api_reference_planted/planted.hpp)
  file(WRITE ${cuckoo_planted_header}
    "#pragma once\nnamespace cuckoo {\nstruct PlantedUndocumented {\n  int member = 0;\n};\n}\n")
  add_test(NAME api_reference_rejects_undocumented COMMAND ${CMAKE_COMMAND} -E env
           CUCKOO_DOCS_OUT=${CMAKE_CURRENT_BINARY_DIR}/api_reference_planted/out
           CUCKOO_DOCS_EXTRA_INPUT=${cuckoo_planted_header}
           ${PROJECT_SOURCE_DIR}/ci/docs --no-install
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(api_reference_rejects_undocumented PROPERTIES
    PASS_REGULAR_EXPRESSION "PlantedUndocumented is not documented.*ci/docs: FAILED")
  set_tests_properties(api_reference api_reference_rejects_undocumented PROPERTIES
    LABELS "docs" TIMEOUT 300 RESOURCE_LOCK doxygen)
else()
  message(STATUS "doxygen not found: the API reference tests (ci/docs) are not registered")
endif()
