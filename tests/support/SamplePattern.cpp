#include "SamplePattern.hpp"

#include <cstring>

namespace mxl::test
{
    std::uint32_t sampleWord(std::uint32_t seed, std::uint32_t channel, std::uint64_t index) noexcept
    {
        // splitmix64 finaliser: neighbouring indices and channels give unrelated words.
        auto value = index * 0x9E3779B97F4A7C15ULL + (std::uint64_t{channel} << 40) + seed;
        value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
        value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
        return static_cast<std::uint32_t>(value ^ (value >> 31));
    }

    bool writePatternSamples(mxlFlowWriter writer, std::uint64_t headIndex, std::size_t count, std::uint32_t seed)
    {
        mxlMutableWrappedMultiBufferSlice slices{};
        if (mxlFlowWriterOpenSamples(writer, headIndex, count, &slices) != MXL_STATUS_OK)
        {
            return false;
        }
        for (std::size_t channel = 0; channel < slices.count; ++channel)
        {
            auto index = headIndex - count + 1;
            for (auto const& fragment : slices.base.fragments)
            {
                auto* words = static_cast<std::uint8_t*>(fragment.pointer) + channel * slices.stride;
                for (std::size_t i = 0; i < fragment.size / sizeof(std::uint32_t); ++i, ++index)
                {
                    auto const word = sampleWord(seed, static_cast<std::uint32_t>(channel), index);
                    std::memcpy(words + i * sizeof(word), &word, sizeof(word));
                }
            }
        }
        return mxlFlowWriterCommitSamples(writer) == MXL_STATUS_OK;
    }

    namespace
    {
        // How many of the range's words (all channels) `differs(channel, index, word)` counts; nullopt when unreadable.
        template <typename Differs>
        std::optional<std::size_t> countDifferingWords(mxlFlowReader reader, std::uint64_t headIndex, std::size_t count, Differs differs)
        {
            mxlWrappedMultiBufferSlice slices{};
            if (mxlFlowReaderGetSamplesNonBlocking(reader, headIndex, count, &slices) != MXL_STATUS_OK)
            {
                return std::nullopt;
            }
            std::size_t mismatches = 0;
            for (std::size_t channel = 0; channel < slices.count; ++channel)
            {
                auto index = headIndex - count + 1;
                for (auto const& fragment : slices.base.fragments)
                {
                    auto const* words = static_cast<std::uint8_t const*>(fragment.pointer) + channel * slices.stride;
                    for (std::size_t i = 0; i < fragment.size / sizeof(std::uint32_t); ++i, ++index)
                    {
                        std::uint32_t word = 0;
                        std::memcpy(&word, words + i * sizeof(word), sizeof(word));
                        mismatches += differs(static_cast<std::uint32_t>(channel), index, word) ? 1 : 0;
                    }
                }
            }
            return mismatches;
        }
    }

    std::optional<std::size_t> patternMismatches(mxlFlowReader reader, std::uint64_t headIndex, std::size_t count, std::uint32_t seed)
    {
        return countDifferingWords(reader, headIndex, count,
                                   [seed](std::uint32_t channel, std::uint64_t index, std::uint32_t word)
                                   { return word != sampleWord(seed, channel, index); });
    }

    std::optional<std::size_t> nonSilentWords(mxlFlowReader reader, std::uint64_t headIndex, std::size_t count)
    {
        return countDifferingWords(reader, headIndex, count, [](std::uint32_t, std::uint64_t, std::uint32_t word) { return word != 0; });
    }
}
