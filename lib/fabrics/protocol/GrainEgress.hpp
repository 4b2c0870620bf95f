// The initiator half of the grain protocol under the read-safe order: the first 32 bytes of the target
// slot's header are marked "grain being written" (the new index, MXL_GRAIN_FLAG_INVALID, no valid slices), then the
// payload of slices [start, end) is written, without immediate data; then a staged copy of the grain header, carrying
// `slot | end << 16` (Wire.hpp), is the commit. An SDK target reads the same header and the same immediate data; it only sees the
// header arrive last. A ticket with split grain regions (a device flow's target registered directly) takes the mark and
// the commit in the slot's header region and the payload in its payload region, 8192 bytes earlier.
#pragma once

#include "fabrics/protocol/DeviceStaging.hpp"
#include "fabrics/protocol/GrainGeometry.hpp"
#include "fabrics/protocol/GrainRegions.hpp"
#include "fabrics/protocol/TransferPlan.hpp"

#include <map>
#include <memory>
#include <optional>

namespace mxl::fabrics
{
    class GrainEgress
    {
    public:
        // `local` is what the payload writes read: the flow's grains, or for a device flow the slots of `staging`, into which
        // each planned slice range is first copied out of device memory. Headers are always read from the flow. A device
        // flow registered directly has `deviceRing` (its whole payload ring) as the payload writes' source instead, and
        // `local` over its header-only grain files (the probe reads one).
        GrainEgress(TransportDomain const& domain, FlowMemory const& memory, GrainGeometry const& geometry, GrainRegions const& local,
                    DeviceStaging* staging, TransportMemory const* deviceRing, std::size_t maxMessageBytes);

        // Rejects tickets whose regions cannot hold this flow's grains (grain size mismatch, no regions, split regions
        // that are not header and payload); registers the headers staged for the target.
        void admit(TargetInfo const& ticket);
        void forget(std::uint64_t targetId) noexcept;

        // Throws INVALID_ARG for start > end or end > totalSlices. The plan has no writes at all when there is nothing to
        // send (start == end > 0). Stages the grain's header for the target; when the source slot already holds another
        // grain the plan is `sourceGone`.
        [[nodiscard]] std::optional<TransferPlan> plan(TargetInfo const& ticket, std::uint64_t grainIndex, std::uint16_t start,
                                                       std::uint16_t end);

        void checkRange(std::uint16_t start, std::uint16_t end) const;

        // Whether the source slot of the grain still holds it: read after the payload writes completed, a yes proves
        // that they read that grain's bytes (the flow writer publishes a new index before touching the payload). For a
        // device flow the staging slot must also still hold the bytes copied out for that grain.
        [[nodiscard]] bool sourceHolds(std::uint64_t grainIndex) const noexcept;

        // The commit that tells the target the grain is lost: its staged header flagged MXL_GRAIN_FLAG_INVALID with no
        // valid slices, end slice 0 in the immediate data.
        [[nodiscard]] RemoteWrite lossCommit(TargetInfo const& ticket, TransferPlan const& plan);

        // A one-byte write without remote CQ data of the grain header's version byte (1 at both ends) into the
        // target's first region: it makes a connectionless provider set up its path to the peer and changes nothing
        // at the target. Not zero bytes: shm 1.17 never completes a zero-byte write at the initiator.
        [[nodiscard]] RemoteWrite probe() const;

    private:
        // The header copies of one target, one per ring slot of the target, then as many in-flight marks: a copy stays
        // untouched until its commit completed, and no other grain is planned into that slot meanwhile.
        struct StagedHeaders
        {
            StagedHeaders(TransportDomain const& domain, std::size_t slotCount);

            std::size_t slots;
            std::unique_ptr<mxlGrainInfo[]> headers;
            std::unique_ptr<TransportMemory> region;
        };

        // The slice range of which grain a staging slot holds: another grain's copy into the slot makes a transfer that
        // still reads it a loss, and a second target of the same grain needs no second copy.
        struct StagedPayload
        {
            std::uint64_t index = ~std::uint64_t{0};
            std::uint16_t from = 0;
            std::uint16_t to = 0;
        };

        TransportDomain const& _domain;
        FlowMemory const& _memory;
        GrainGeometry _geometry;
        GrainRegions const& _local;
        DeviceStaging* _staging;
        TransportMemory const* _deviceRing;
        std::vector<StagedPayload> _stagedPayloads;
        std::size_t _maxMessageBytes;
        std::map<std::uint64_t, StagedHeaders> _staged;

        [[nodiscard]] mxlGrainInfo const& sourceHeader(std::uint64_t grainIndex) const noexcept;
        // Whether the flow's slot of the grain still holds it (its header's index).
        [[nodiscard]] bool flowHolds(std::uint64_t grainIndex) const noexcept;
        StagedHeaders& stagedFor(TargetInfo const& ticket);
        // Copies the source header of the grain, seqlock style; false when the slot holds (or moved to) another grain.
        bool stage(std::uint64_t grainIndex, mxlGrainInfo& copy) const noexcept;
        void stagePayload(std::uint64_t grainIndex, std::uint16_t start, std::uint16_t end);
        // What a payload write of `piece` (offsets within a grain region) of the grain reads.
        [[nodiscard]] LocalSegment payloadSource(std::uint64_t grainIndex, GrainRange const& piece) const noexcept;
    };
}
