# SPDX-License-Identifier: MIT
# SuiteSparseQR (Debian's libsuitesparse-dev): the rank-revealing sparse QR of the redundancy
# check at load time (engine/constraints/sparse_row_basis.cpp, issue 16). Found by path: Debian 12
# ships no CMake package for SuiteSparse 5. Defines the interface target rtmb_spqr; included by the
# engine and by the fuzz tree's model-loader target.
if(NOT TARGET rtmb_spqr)
  find_path(RTMB_SPQR_INCLUDE_DIR SuiteSparseQR.hpp PATH_SUFFIXES suitesparse)
  find_library(RTMB_SPQR_LIBRARY spqr)
  find_library(RTMB_CHOLMOD_LIBRARY cholmod)
  find_library(RTMB_SUITESPARSECONFIG_LIBRARY suitesparseconfig)
  if(NOT RTMB_SPQR_INCLUDE_DIR OR NOT RTMB_SPQR_LIBRARY OR NOT RTMB_CHOLMOD_LIBRARY
     OR NOT RTMB_SUITESPARSECONFIG_LIBRARY)
    message(FATAL_ERROR
      "SuiteSparseQR not found: install libsuitesparse-dev (scripts/install-deps.sh)")
  endif()
  add_library(rtmb_spqr INTERFACE)
  # SYSTEM: SuiteSparse's headers are not held to our warning flags
  target_include_directories(rtmb_spqr SYSTEM INTERFACE ${RTMB_SPQR_INCLUDE_DIR})
  target_link_libraries(rtmb_spqr INTERFACE ${RTMB_SPQR_LIBRARY} ${RTMB_CHOLMOD_LIBRARY}
    ${RTMB_SUITESPARSECONFIG_LIBRARY})
endif()
