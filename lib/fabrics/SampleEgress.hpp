// The initiator half of the sample protocol (spec §3.4): one transfer moves the range (headIndex, count) of every
// channel into the next entry of a target's bounce buffer as a scatter-gather write of [header][channel 0 runs]
// [channel 1 runs]..., split into writes of at most the provider's iov_limit local ranges at consecutive remote offsets;
// only the last one carries the entry index as remote CQ data.
#pragma once

#include "Endpoint.hpp"
#include "MemoryRegion.hpp"
#include "SampleGeometry.hpp"
#include "TargetInfo.hpp"

#include <map>
#include <memory>
#include <vector>

namespace mxl::fabrics
{
    // The writes of one transfer into `remote`: `segments` cut into groups of at most `iovLimit`, each written after the
    // previous one's bytes; the last carries `immediate`.
    [[nodiscard]] std::vector<RmaWrite> gatherWrites(std::vector<LocalSegment> const& segments, std::size_t iovLimit,
                                                     RemoteRegion const& remote, std::uint32_t immediate);

    class SampleEgress
    {
    public:
        SampleEgress(Domain const& domain, FlowMemory const& memory, std::size_t iovLimit);

        // Checks that the ticket's bounce buffer fits this flow and registers the headers this initiator writes to it.
        void admit(TargetInfo const& ticket);
        void forget(std::uint64_t targetId) noexcept;

        // INVALID_ARG for an empty range, one longer than the local ring, or more samples than the target's entries hold:
        // nothing is written then. Advances the target's entry index.
        [[nodiscard]] std::vector<RmaWrite> writes(TargetInfo const& ticket, std::uint64_t headIndex, std::size_t count);

        // A one-byte write without remote CQ data into the target's first entry, to open a connectionless path; the
        // target never reads an entry that no remote CQ data named.
        [[nodiscard]] RmaWrite probe(TargetInfo const& ticket) const;

    private:
        // The headers of one target, one per bounce-buffer entry: a header must stay untouched until its write completed,
        // and the entry is reused only after entryCount transfers.
        struct TargetHeaders
        {
            TargetHeaders(Domain const& domain, std::size_t entryCount);

            std::unique_ptr<SampleEntryHeader[]> headers;
            MemoryRegion region;
            std::size_t next = 0;
        };

        Domain const& _domain;
        SampleGeometry _geometry;
        MemoryRegion _ring;
        std::size_t _iovLimit;
        std::map<std::uint64_t, TargetHeaders> _targets;

        TargetHeaders& headersOf(TargetInfo const& ticket);
    };
}
