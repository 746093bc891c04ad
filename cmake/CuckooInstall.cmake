# The installed package: find_package(cuckoo CONFIG) gives
#   cuckoo::engine        the header-only engines (always)
#   cuckoo::model         the reference models, op language, trace format and checker
#   cuckoo::subjects      the subject layer: engine adapters, trace replay, statistics,
#                         histories and the linearizability checker
#   cuckoo::audit         the claim runners, report writers and adapter API, with the
#                         driver that makes an adapter a command (cuckoo/audit/audit_main.hpp,
#                         installed with the other audit headers)
#   cuckoo::cuckoo-audit  the command (imported executable)
# The last three exist when the audit was built (CUCKOO_BUILD_AUDIT or the tests).
# Build-only dependencies (the warnings target) are linked as $<BUILD_INTERFACE:...> and
# do not appear in the export.
include(CMakePackageConfigHelpers)

install(TARGETS cuckoo_engine cuckoo_model EXPORT cuckooTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY engine/include/cuckoo model/include/cuckoo
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
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
