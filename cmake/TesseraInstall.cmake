# `cmake --install`: besides the programs, the backtester's headers, static libraries and the
# CMake package config, so strategies build outside the project (find_package(Tessera)).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tessera_core tessera_store tessera_settlement tessera_options tessera_backtest ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development)
foreach(dir core/domain core/engine core/store core/settlement core/options backtest)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera/${dir}
          COMPONENT Development FILES_MATCHING PATTERN "*.h" PATTERN "live" EXCLUDE PATTERN "strategies" EXCLUDE)
endforeach()

set(_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
configure_file(${PROJECT_SOURCE_DIR}/cmake/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/cmake/TesseraConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/TesseraConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/cmake/TesseraConfigVersion.cmake
        DESTINATION ${_config_dir} COMPONENT Development)
