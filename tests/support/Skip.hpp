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

// For the checks that answer "why this machine cannot run it" as a std::optional<std::string>: empty means run.
#define MXL_SKIP_IF(optionalReason)                                                                                                        \
    do                                                                                                                                     \
    {                                                                                                                                      \
        if (auto const mxlSkipReason = (optionalReason))                                                                                   \
        {                                                                                                                                  \
            MXL_SKIP(mxlSkipReason->c_str());                                                                                              \
        }                                                                                                                                  \
    } while (false)
