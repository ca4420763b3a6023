# find_package(Tessera): the backtester's headers and libraries as installed by
# `cmake --install` (docs/strategy-libraries.md).
#   Tessera::strategy   headers only, for a strategy library that tessera-backtest loads with
#                       --strategy-lib: the program provides the symbols it uses.
#   Tessera::backtest   the static libraries (replay, histories, sweeps, registry, engine,
#                       store, settlement, options), for a program of your own.
#   tessera_add_strategy_library(NAME sources...)   a strategy library (a MODULE) in one line.
include(CMakeFindDependencyMacro)
find_dependency(nlohmann_json 3)
find_dependency(SQLite3)
find_dependency(Threads)

get_filename_component(_tessera_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(TESSERA_INCLUDE_DIR "${_tessera_prefix}/include/tessera")

if(NOT TARGET Tessera::strategy)
  add_library(Tessera::strategy INTERFACE IMPORTED)
  set_target_properties(Tessera::strategy PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${TESSERA_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES nlohmann_json::nlohmann_json
    INTERFACE_COMPILE_FEATURES cxx_std_20)

  foreach(_lib core store settlement options backtest)
    add_library(Tessera::${_lib}_archive STATIC IMPORTED)
    set_target_properties(Tessera::${_lib}_archive PROPERTIES
      IMPORTED_LOCATION "${_tessera_prefix}/@CMAKE_INSTALL_LIBDIR@/libtessera_${_lib}.a")
  endforeach()
  add_library(Tessera::backtest INTERFACE IMPORTED)
  set_target_properties(Tessera::backtest PROPERTIES
    INTERFACE_LINK_LIBRARIES
      "Tessera::strategy;Tessera::backtest_archive;Tessera::options_archive;Tessera::settlement_archive;Tessera::store_archive;Tessera::core_archive;SQLite::SQLite3;Threads::Threads;${CMAKE_DL_LIBS}")
endif()

function(tessera_add_strategy_library name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE Tessera::strategy)
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET default)
endfunction()
