// The initiator half of the sample protocol (Wire.hpp) under the read-safe order: one transfer moves the range
// (headIndex, count) of every channel into the next entry of a target's bounce buffer as a scatter-gather write of
// [channel 0 runs][channel 1 runs]... behind the entry's 16-byte header, split into writes of at most the provider's
// iov_limit local ranges at consecutive remote offsets; then the header alone, carrying the entry index as remote CQ
// data, is the commit.
#pragma once

#include "fabrics/protocol/SampleGeometry.hpp"
#include "fabrics/protocol/TransferPlan.hpp"
#include "fabrics/protocol/TransportDomain.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

namespace mxl::fabrics
{
    // The writes of `segments` into region `remoteRegion` from `remoteOffset` onwards: groups of at most `iovLimit`, each
    // written after the previous one's bytes.
    [[nodiscard]] RemoteWrites gatherWrites(std::vector<LocalSegment> const& segments, std::size_t iovLimit, std::uint32_t remoteRegion,
                                            std::uint64_t remoteOffset);

    class SampleEgress
    {
    public:
        SampleEgress(TransportDomain const& domain, FlowMemory const& memory, std::size_t iovLimit);

        // Checks that the ticket's bounce buffer fits this flow and registers the headers this initiator writes to it.
        void admit(TargetInfo const& ticket);
        void forget(std::uint64_t targetId) noexcept;

        // INVALID_ARG for an empty range, one longer than the local ring, or more samples than the target's entries hold:
        // nothing is written then. Advances the target's entry index. A range the source no longer holds readable is
        // planned `sourceGone`; any range asked for before the source's first write is planned as silence,
        // `sourceUnwritten` (docs/fabrics.md, "Samples never written").
        [[nodiscard]] TransferPlan plan(TargetInfo const& ticket, std::uint64_t headIndex, std::size_t count);

        // The bounce-buffer entry the next transfer to the target fills.
        [[nodiscard]] std::uint32_t nextEntry(TargetInfo const& ticket) const;

        // Whether the source still holds the range readable (within the half of its ring that the writer does not fill):
        // read after the payload writes completed, a yes proves that they read these samples.
        [[nodiscard]] bool sourceHolds(std::uint64_t headIndex, std::size_t count) const noexcept;

        // A one-byte write without remote CQ data into the target's first entry, to open a connectionless path; the
        // target never reads an entry that no remote CQ data named.
        [[nodiscard]] RemoteWrite probe() const;

    private:
        // The headers of one target, one per bounce-buffer entry, and after them the in-flight mark (count 0) that every
        // transfer writes first: a header must stay untouched until its write completed, and the entry is reused only
        // after entryCount transfers.
        struct TargetHeaders
        {
            TargetHeaders(TransportDomain const& domain, std::size_t entryCount);

            std::unique_ptr<wire::SampleEntryHeader[]> headers;
            std::unique_ptr<TransportMemory> region;
            std::size_t next = 0;
        };

        TransportDomain const& _domain;
        layout::FlowData const& _flow;
        SampleGeometry _geometry;
        std::unique_ptr<TransportMemory> _ring;
        // One channel's longest range of zero samples, sent for every channel of a range asked for before the first write.
        std::vector<std::byte> _silence;
        std::unique_ptr<TransportMemory> _silenceRegion;
        std::size_t _iovLimit;
        std::map<std::uint64_t, TargetHeaders> _targets;

        [[nodiscard]] TargetHeaders& headersOf(TargetInfo const& ticket);
        [[nodiscard]] TargetHeaders const& headersOf(TargetInfo const& ticket) const;
        [[nodiscard]] bool sourceUnwritten() const noexcept;
    };
}
