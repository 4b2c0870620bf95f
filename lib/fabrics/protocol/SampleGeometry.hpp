// Where the samples of a continuous-flow transfer are. Channel c of a flow's planar ring
// occupies [c × L × w, (c + 1) × L × w); absolute sample s sits at ring position (s − 1) mod L, so the range
// (headIndex, count) ends at, and includes, headIndex. A bounce-buffer entry is [16-byte header][count samples of
// channel 0][count samples of channel 1]...: channel-major, `count` from the header.
#pragma once

#include "common/FlowMemory.hpp"
#include "fabrics/protocol/Wire.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace mxl::fabrics
{
    // Consecutive ring positions, in samples.
    struct RingRun
    {
        std::size_t offset = 0;
        std::size_t count = 0;

        bool operator==(RingRun const&) const = default;
    };

    // The runs of range (headIndex, count) in a ring of `ringLength` samples: the first up to the ring's end, the second
    // from position 0 (empty unless the range wraps). count ≤ ringLength.
    [[nodiscard]] std::array<RingRun, 2> ringRuns(std::uint64_t headIndex, std::size_t count, std::size_t ringLength) noexcept;

    // Whether a mapped flow is continuous (audio): its transfers are sample batches, not grains.
    [[nodiscard]] bool carriesSamples(FlowMemory const& memory) noexcept;

    class SampleGeometry
    {
    public:
        SampleGeometry(std::uint32_t channels, std::uint32_t wordBytes, std::size_t ringLength) noexcept;

        // The geometry of a continuous flow's mapping; rejects discrete flows, device memory and empty mappings.
        static SampleGeometry of(FlowMemory const& memory, char const* role);

        [[nodiscard]] std::uint32_t channels() const noexcept
        {
            return _channels;
        }

        [[nodiscard]] std::uint32_t wordBytes() const noexcept
        {
            return _wordBytes;
        }

        [[nodiscard]] std::size_t ringLength() const noexcept
        {
            return _ringLength;
        }

        // One sample of every channel.
        [[nodiscard]] std::size_t frameBytes() const noexcept
        {
            return std::size_t{_channels} * _wordBytes;
        }

        // From one channel's ring to the next.
        [[nodiscard]] std::size_t channelStrideBytes() const noexcept
        {
            return _ringLength * _wordBytes;
        }

    private:
        std::uint32_t _channels;
        std::uint32_t _wordBytes;
        std::size_t _ringLength;
    };

    // A target's bounce buffer as its ticket publishes it (bounceBufferInfo).
    struct BounceLayout
    {
        std::size_t entryCount = 0;
        // With the 16-byte header.
        std::size_t entryBytes = 0;

        bool operator==(BounceLayout const&) const = default;
    };

    // The reference's sizing: entries of `batchSamples` (the flow's sync hint) samples of every channel, as many as it
    // takes to hold a whole ring, so an initiator is a whole ring ahead before it overwrites an entry not yet read.
    [[nodiscard]] BounceLayout bounceLayout(SampleGeometry const& geometry, std::size_t batchSamples) noexcept;

    // How many samples of every channel fit in an entry of `entryBytes` (0 when not even the header fits).
    [[nodiscard]] std::size_t entryCapacity(std::size_t entryBytes, std::size_t frameBytes) noexcept;

    // Copies the channel-major payload of an entry (`count` samples per channel) into the runs of a ring whose channels
    // are `strideBytes` apart, each run given as a byte pointer into channel 0 and its length in samples.
    void unpackEntry(std::uint8_t const* payload, std::size_t count, std::uint32_t channels, std::uint32_t wordBytes,
                     std::array<std::uint8_t*, 2> const& runStarts, std::array<std::size_t, 2> const& runCounts,
                     std::size_t strideBytes) noexcept;
}
