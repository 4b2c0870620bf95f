// A test that cannot run on this machine says why and is reported by CTest as skipped (SKIP_REGULAR_EXPRESSION).
#pragma once

#include <cstdio>

#define MXL_SKIP(reason)                                                                                                                   \
    do                                                                                                                                     \
    {                                                                                                                                      \
        std::printf("MXL-SKIP: %s\n", (reason));                                                                                           \
        std::fflush(stdout);                                                                                                               \
        return;                                                                                                                            \
    } while (false)
