# One place for compiler flags: warnings, optional warnings-as-errors, optional sanitizers.
add_library(mxl-warnings INTERFACE)
target_compile_options(mxl-warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
# GCC 12 at -O3 (the Release build) reports -Wrestrict inside std::string's own code for `"text" + std::string{...}`,
# a false positive (GCC bug 105651) fixed in GCC 13.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(mxl-warnings INTERFACE -Wno-restrict)
endif()
if(MXL_WARNINGS_AS_ERRORS)
    target_compile_options(mxl-warnings INTERFACE -Werror)
endif()

if(MXL_SANITIZE)
    add_compile_options(-fsanitize=${MXL_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${MXL_SANITIZE})
    # Programs link without PIE here. UndefinedBehaviorSanitizer keeps a record of pointers for each of its checks, about
    # a million in a program at -O0, and a position-independent program relocates every one, writing most of its data
    # pages, at each start: mxl-fabrics-service --help took 0.29 CPU s with PIE and 0.20 without, and the sanitizer suite
    # starts about two thousand instrumented processes.
    add_link_options("$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>")
endif()

if(MXL_LINKER)
    add_link_options(-fuse-ld=${MXL_LINKER})
endif()

# libFuzzer ships with clang only; the replay tests of tests/fuzz build with any compiler and need no option.
if(MXL_WITH_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MXL_WITH_FUZZERS needs clang for libFuzzer, but the C++ compiler is ${CMAKE_CXX_COMPILER_ID}; "
                        "configure with CC=clang CXX=clang++ or without -DMXL_WITH_FUZZERS=ON")
endif()
