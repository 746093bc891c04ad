include(CMakePackageConfigHelpers)

install(TARGETS cuckoo_engine EXPORT cuckooTargets)
install(DIRECTORY engine/include/cuckoo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cuckooTargets NAMESPACE cuckoo:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cuckoo)

configure_package_config_file(cmake/cuckooConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cuckooConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cuckoo)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cuckooConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cuckooConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cuckooConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cuckoo)
