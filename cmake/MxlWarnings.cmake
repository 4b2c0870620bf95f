# One place for compiler flags: warnings, optional warnings-as-errors, optional sanitizers.
add_library(mxl-warnings INTERFACE)
target_compile_options(mxl-warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(MXL_WARNINGS_AS_ERRORS)
    target_compile_options(mxl-warnings INTERFACE -Werror)
endif()

if(MXL_SANITIZE)
    add_compile_options(-fsanitize=${MXL_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${MXL_SANITIZE})
endif()

# libFuzzer ships with clang only; the replay tests of tests/fuzz build with any compiler and need no option.
if(MXL_WITH_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MXL_WITH_FUZZERS needs clang for libFuzzer, but the C++ compiler is ${CMAKE_CXX_COMPILER_ID}; "
                        "configure with CC=clang CXX=clang++ or without -DMXL_WITH_FUZZERS=ON")
endif()
