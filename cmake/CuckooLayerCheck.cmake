# The layering check (ci/check-layers) as CTest cases: the tree passes it, and a tree with
# one planted forbidden include per rule fails it (so the check itself can fail).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME layers_check
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/ci/check-layers --root ${PROJECT_SOURCE_DIR})
set_tests_properties(layers_check PROPERTIES LABELS "unit")

# folder:header pairs, each forbidden by one rule.
set(cuckoo_forbidden_includes
  "engine/include/cuckoo/x.hpp:cuckoo/model/trace.hpp"
  "model/src/x.cpp:cuckoo/cuckoo_filter.hpp"
  "subjects/include/cuckoo/subjects/x.hpp:cuckoo/audit/audit.hpp"
  "properties/x_test.cpp:cuckoo/stress/x.hpp"
  "fuzz/x.cpp:cuckoo/properties/generators.hpp"
  "stress/tests/x_test.cpp:cuckoo/audit/adapter.hpp"
  "audit/src/x.cpp:cuckoo/properties/rc_support.hpp")
foreach(pair IN LISTS cuckoo_forbidden_includes)
  string(REPLACE ":" ";" parts "${pair}")
  list(GET parts 0 file)
  list(GET parts 1 header)
  string(MAKE_C_IDENTIFIER "${file}" id)
  add_test(NAME layers_check_rejects_${id}
    COMMAND ${CMAKE_COMMAND} -DCHECK=${PROJECT_SOURCE_DIR}/ci/check-layers
            -DPYTHON=${Python3_EXECUTABLE} -DFILE=${file} -DHEADER=${header}
            -DDIR=${CMAKE_CURRENT_BINARY_DIR}/layers_check/${id}
            -P ${PROJECT_SOURCE_DIR}/cmake/CuckooLayerCheckPlanted.cmake)
  set_tests_properties(layers_check_rejects_${id} PROPERTIES LABELS "unit")
endforeach()
