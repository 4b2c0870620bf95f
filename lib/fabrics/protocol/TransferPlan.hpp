// One transfer to one target under the read-safe protocol (docs/fabrics.md, "Read safety"): the payload writes go
// first and carry no immediate data; the commit write (a staged copy of the grain header, or the bounce-buffer entry
// header) carries it, and is posted only after every payload write completed and the source still holds what they
// read. A transfer whose source changed while it was in flight is never committed as valid.
#pragma once

#include "fabrics/protocol/RemoteWrite.hpp"

#include <cstdint>

namespace mxl::fabrics
{
    // What the payload writes of a transfer read from the source flow.
    struct SourceRange
    {
        // Grains: the grain index. Samples: the head index of the range (its last sample).
        std::uint64_t index = 0;
        // Samples per channel; 0 for a grain.
        std::size_t count = 0;
        // Grains: the end of the slice range the target holds once the transfer commits.
        std::uint16_t endSlice = 0;

        [[nodiscard]] bool isGrain() const noexcept
        {
            return count == 0;
        }
    };

    // A transfer's payload writes: a grain's (its in-flight mark and a write per message-size piece) or a batch's. Held
    // inline up to three.
    using RemoteWrites = boost::container::small_vector<RemoteWrite, 3>;

    struct TransferPlan
    {
        RemoteWrites payload;
        RemoteWrite commit;
        // The target's ring slot (grains) or bounce-buffer entry (samples) that the transfer fills: two transfers of
        // different data must never be in flight to one unit.
        std::uint32_t unit = 0;
        SourceRange source;
        // The source no longer held the range when the transfer was planned: nothing is read, the loss is announced.
        bool sourceGone = false;
        // Samples asked for before the source's first write: the payload is silence from memory nobody writes, so nothing
        // the source's writer does can tear it.
        bool sourceUnwritten = false;

        // A plan with no payload yet whose commit writes `header` (`headerBytes`, registered in `memory`) to the start of the
        // target's region `remoteRegion`, carrying `immediate`.
        static TransferPlan committing(std::uint32_t unit, SourceRange const& source, void const* header, std::size_t headerBytes,
                                       TransportMemory const& memory, std::uint32_t remoteRegion, std::uint32_t immediate);
    };
}
