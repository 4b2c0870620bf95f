// What the soak bench writes into each grain and how its checker judges what arrived: every 64-bit word of grain i's
// payload is (i << 32 | word number), so any grain is verified from its index alone, and a word of another grain is
// told from a merely wrong one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl::bench
{
    enum class Verdict
    {
        Intact,
        // Every word has the right place but some carry another grain's index: two grains mixed, or the wrong grain.
        Torn,
        // Words that are no grain's.
        Bad,
    };

    void signGrain(std::uint8_t* payload, std::size_t bytes, std::uint64_t index) noexcept;

    [[nodiscard]] Verdict judgeGrain(std::uint8_t const* payload, std::size_t bytes, std::uint64_t index) noexcept;
}
