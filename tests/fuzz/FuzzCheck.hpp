// Harness invariants. A broken invariant aborts, so that libFuzzer records the input as a crash and the replay test
// of a corpus fails on it, with the same message in both.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace mxl::fuzz
{
    inline void check(bool holds, std::string_view invariant)
    {
        if (!holds)
        {
            std::fprintf(stderr, "fuzz invariant broken: %.*s\n", static_cast<int>(invariant.size()), invariant.data());
            std::abort();
        }
    }
}
