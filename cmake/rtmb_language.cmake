# SPDX-License-Identifier: MIT
# The language settings of every rtmb CMake project (the top level, and fuzz/ when configured on its
# own): C++20 without compiler extensions, compile_commands.json for the tools, and RelWithDebInfo
# unless a build type is given.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
