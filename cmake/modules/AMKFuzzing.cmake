#===- AMKFuzzing.cmake - The libFuzzer build of amk-fuzz --------------------===#
#
# With AMK_ENABLE_FUZZING=ON every target of this build tree (so every AMK
# library amk-fuzz links) is compiled with -fsanitize=fuzzer-no-link (edge
# coverage, comparison tracing) plus the sanitizers of AMK_FUZZ_SANITIZERS,
# and tools/amk-fuzz links libFuzzer (-fsanitize=fuzzer). The prebuilt
# LLVM/MLIR libraries are not instrumented: coverage is AMK's own code.
# Only amk-fuzz is meant to be built in such a tree (scripts/build.sh builds
# build/fuzz that way); the other tools would need libFuzzer's runtime too.
#
#===------------------------------------------------------------------------===#

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR
    "AMK_ENABLE_FUZZING=ON needs clang (libFuzzer, -fsanitize=fuzzer); "
    "CMAKE_CXX_COMPILER is ${CMAKE_CXX_COMPILER} "
    "(${CMAKE_CXX_COMPILER_ID}): configure with "
    "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
endif()

set(amk_fuzz_flags -fsanitize=fuzzer-no-link -gline-tables-only)
set(amk_fuzz_link_flags)
if(AMK_FUZZ_SANITIZERS)
  list(APPEND amk_fuzz_flags -fsanitize=${AMK_FUZZ_SANITIZERS})
  list(APPEND amk_fuzz_link_flags -fsanitize=${AMK_FUZZ_SANITIZERS})
  if(AMK_FUZZ_SANITIZERS MATCHES "undefined")
    # A UBSan report is a finding only when it stops the run.
    list(APPEND amk_fuzz_flags -fno-sanitize-recover=all)
    list(APPEND amk_fuzz_link_flags -fno-sanitize-recover=all)
  endif()
endif()

# Does this compiler link a fuzz target with these sanitizers?
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer ${amk_fuzz_link_flags})
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }
]] AMK_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT AMK_HAVE_LIBFUZZER)
  message(FATAL_ERROR
    "AMK_ENABLE_FUZZING=ON: ${CMAKE_CXX_COMPILER} cannot link a libFuzzer "
    "target (-fsanitize=fuzzer ${amk_fuzz_link_flags}); on Debian install "
    "libclang-rt-<version>-dev (clang 14: libclang-rt-14-dev, or "
    "libclang-common-14-dev); see CMakeFiles/CMakeError.log")
endif()

add_compile_options(${amk_fuzz_flags})
add_link_options(${amk_fuzz_link_flags})
if(AMK_FUZZ_ASSERTIONS)
  # AMK's asserts and those of the LLVM/MLIR headers it instantiates (cast<>,
  # ArrayRef bounds, ...) turn silent misbehaviour into findings; the ABI of
  # the headers does not depend on NDEBUG (LLVM_ENABLE_ABI_BREAKING_CHECKS is
  # fixed by the installed llvm/Config/abi-breaking.h).
  add_compile_options(-UNDEBUG)
endif()
message(STATUS "AMK fuzzing build: ${amk_fuzz_flags} "
               "(assertions ${AMK_FUZZ_ASSERTIONS}); amk-fuzz links libFuzzer")
