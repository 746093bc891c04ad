# Warnings for the project's own translation units. Not exported: consumers of the
# installed package choose their own flags.
add_library(cuckoo_warnings INTERFACE)
target_compile_options(cuckoo_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough -Wmissing-declarations
  $<$<BOOL:${CUCKOO_WERROR}>:-Werror>)
# GCC 12 at -O2/-O3 reports -Wrestrict inside std::string's char_traits for ordinary
# "literal" + std::string chains (GCC bug 105329, fixed in GCC 13): a false positive in
# the standard library's code, not ours, so it is kept a warning there but not an error.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(cuckoo_warnings INTERFACE -Wno-error=restrict)
endif()

# cuckoo_add_gtests(GLOB PREFIX LABEL LIBS...): every file matching GLOB is one GoogleTest
# executable, named PREFIX<file name>, linked with LIBS, its cases registered with CTest
# under LABEL.
function(cuckoo_add_gtests glob prefix label)
  file(GLOB sources CONFIGURE_DEPENDS ${glob})
  foreach(src IN LISTS sources)
    get_filename_component(name ${src} NAME_WE)
    add_executable(${prefix}${name} ${src})
    target_link_libraries(${prefix}${name} PRIVATE ${ARGN} cuckoo_warnings GTest::gtest_main)
    gtest_discover_tests(${prefix}${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "${label}")
  endforeach()
endfunction()
