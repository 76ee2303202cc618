# CMake toolchain for cross-building llama.cpp (inside llama-cpp-sys-2) for aarch64 Linux with
# Debian's gcc-aarch64-linux-gnu. Used by .ci/aarch64 and scripts/package-aarch64 through
# CMAKE_TOOLCHAIN_FILE_aarch64_unknown_linux_gnu.
#
# Why a toolchain file: llama-cpp-sys-2 pins GGML_CPU_ARM_ARCH=armv8-a for every non-native
# aarch64 Linux build, which leaves out the dot-product and fp16 kernels a Cortex-A76 (Pi 5) has.
# A cache entry set here with FORCE replaces that pin; SQALE_ARM_ARCH (from the environment)
# chooses the architecture.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
if(DEFINED ENV{SQALE_ARM_ARCH})
  set(GGML_CPU_ARM_ARCH "$ENV{SQALE_ARM_ARCH}" CACHE STRING "ggml-cpu -march for aarch64" FORCE)
endif()
