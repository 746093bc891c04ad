# The installed package: find_package(cuckoo CONFIG) gives
#   cuckoo::engine        the header-only engines (always)
#   cuckoo::model         the reference models, op language, trace format and checker
#   cuckoo::subjects      the subject layer: engine adapters, trace replay, statistics,
#                         histories and the linearizability checker
#   cuckoo::audit         the claim runners, report writers and adapter API, with the
#                         driver that makes an adapter a command (cuckoo/audit/audit_main.hpp,
#                         installed with the other audit headers)
#   cuckoo::cuckoo-audit  the command (imported executable)
# cuckoo::model exists unless CUCKOO_ENGINE_ONLY; the last three when the audit was built
# (CUCKOO_BUILD_AUDIT or the tests). pkg-config users get the engine as `cuckoo`
# (lib/pkgconfig/cuckoo.pc: its include directory, xxhash.h's when that is not a default
# one, and the threads flag).
# Build-only dependencies (the warnings target) are linked as $<BUILD_INTERFACE:...> and
# do not appear in the export.
include(CMakePackageConfigHelpers)

install(TARGETS cuckoo_engine EXPORT cuckooTargets)
install(DIRECTORY engine/include/cuckoo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET cuckoo_model)
  install(TARGETS cuckoo_model EXPORT cuckooTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY model/include/cuckoo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
if(TARGET cuckoo_audit)
  install(TARGETS cuckoo_subjects cuckoo_audit EXPORT cuckooTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY subjects/include/cuckoo audit/include/cuckoo
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
if(TARGET cuckoo-audit)
  install(TARGETS cuckoo-audit EXPORT cuckooTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT cuckooTargets NAMESPACE cuckoo:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cuckoo)

configure_package_config_file(cmake/cuckooConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cuckooConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cuckoo)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cuckooConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cuckooConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cuckooConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cuckoo)

# cuckoo.pc: paths relative to the installed prefix (${pcfiledir}), so the installed tree
# can be moved. xxhash.h's directory is named only when the compiler does not search it
# anyway.
set(cuckoo_pc_cflags "-I\${includedir}")
if(NOT CUCKOO_XXHASH_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  string(APPEND cuckoo_pc_cflags " -I${CUCKOO_XXHASH_INCLUDE_DIR}")
endif()
file(RELATIVE_PATH cuckoo_pc_to_prefix
  "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" cuckoo_pc_to_prefix "${cuckoo_pc_to_prefix}")
configure_file(cmake/cuckoo.pc.in ${CMAKE_CURRENT_BINARY_DIR}/cuckoo.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cuckoo.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
