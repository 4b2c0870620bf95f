#include "GrainSignature.hpp"

#include <cstring>

namespace mxl::bench
{
    namespace
    {
        constexpr std::uint64_t wordOf(std::uint64_t index, std::uint64_t word) noexcept
        {
            return index << 32 | (word & 0xFFFFFFFFu);
        }
    }

    void signGrain(std::uint8_t* payload, std::size_t bytes, std::uint64_t index) noexcept
    {
        auto const words = bytes / sizeof(std::uint64_t);
        for (std::size_t word = 0; word < words; ++word)
        {
            auto const value = wordOf(index, word);
            std::memcpy(payload + word * sizeof value, &value, sizeof value);
        }
    }

    Verdict judgeGrain(std::uint8_t const* payload, std::size_t bytes, std::uint64_t index) noexcept
    {
        auto const words = bytes / sizeof(std::uint64_t);
        auto verdict = Verdict::Intact;
        for (std::size_t word = 0; word < words; ++word)
        {
            std::uint64_t value = 0;
            std::memcpy(&value, payload + word * sizeof value, sizeof value);
            if (value == wordOf(index, word))
            {
                continue;
            }
            if ((value & 0xFFFFFFFFu) != (word & 0xFFFFFFFFu))
            {
                return Verdict::Bad;
            }
            verdict = Verdict::Torn;
        }
        return verdict;
    }
}
