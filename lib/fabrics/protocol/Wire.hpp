// Everything of the fabrics protocol that crosses the wire, in one place: which ring slot a grain occupies, the remote
// CQ data of a commit, the in-flight mark, and the header of a bounce-buffer entry. An MXL SDK peer reads and writes
// the same bytes (its lib/fabrics/ofi/src/internal/ProtocolEgressRMA.cpp and ProtocolIngressRMA.cpp); changing
// anything here breaks interoperability with it.
#pragma once

#include <mxl/flow.h>

#include <cstddef>
#include <cstdint>

namespace mxl::fabrics::wire
{
    // The slot of grain `index` in a ring of `slots` grains, at both ends: the target's ring need not be the
    // initiator's length, so each side takes the other's count from the ticket.
    [[nodiscard]] constexpr std::uint32_t slotOf(std::uint64_t index, std::size_t slots) noexcept
    {
        return static_cast<std::uint32_t>(index % slots);
    }

    // The remote CQ data of a grain commit: the ring slot in the low 16 bits, the end of the committed slice range
    // [0, endSlice) in the high 16. endSlice 0 with MXL_GRAIN_FLAG_INVALID in the header is a lost grain.
    struct GrainCommit
    {
        std::uint32_t slot = 0;
        std::uint16_t endSlice = 0;

        [[nodiscard]] constexpr std::uint32_t encode() const noexcept
        {
            return (slot & 0xFFFFu) | (std::uint32_t{endSlice} << 16);
        }

        [[nodiscard]] static constexpr GrainCommit decode(std::uint32_t immediate) noexcept
        {
            return {immediate & 0xFFFFu, static_cast<std::uint16_t>(immediate >> 16)};
        }
    };

    // The in-flight mark: the first bytes of a target slot's grain header, rewritten before a grain's first payload
    // write with the new index, MXL_GRAIN_FLAG_INVALID and no valid slices, so that a reader never takes new bytes
    // under an old header. Every field before `reserved`.
    inline constexpr std::size_t inFlightMarkBytes = 32;
    static_assert(offsetof(mxlGrainInfo, reserved) <= inFlightMarkBytes);

    // With split grain regions (a device flow's target registered directly), slot s has its header in region 2s and its
    // payload in region 2s + 1; otherwise region s holds both.
    [[nodiscard]] constexpr std::uint32_t headerRegionOf(std::uint32_t slot, bool split) noexcept
    {
        return split ? 2 * slot : slot;
    }

    [[nodiscard]] constexpr std::uint32_t payloadRegionOf(std::uint32_t slot, bool split) noexcept
    {
        return split ? 2 * slot + 1 : slot;
    }

    // The header at the start of every bounce-buffer entry of a continuous flow: host byte order, which is little-endian
    // at both ends. The remote CQ data of a sample commit is the entry's index; an entry of count 0 is the in-flight
    // mark of the sample protocol.
    struct SampleEntryHeader
    {
        std::uint64_t headIndex = 0;
        std::uint64_t count = 0;
    };

    static_assert(sizeof(SampleEntryHeader) == 16, "the SDK's AudioEntryHeader is two u64");
}
