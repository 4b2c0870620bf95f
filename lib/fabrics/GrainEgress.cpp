#include "GrainEgress.hpp"

#include "common/Status.hpp"

namespace mxl::fabrics
{
    GrainEgress::GrainEgress(GrainGeometry const& geometry, GrainRegions const& local, std::size_t maxMessageBytes)
        : _geometry{geometry}
        , _local{local}
        , _maxMessageBytes{maxMessageBytes}
    {
    }

    void GrainEgress::checkTarget(TargetInfo const& ticket) const
    {
        if (ticket.regions.empty())
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has no grain regions (a sample-flow target, or an empty ticket?)", ticket.id);
        }
        if (ticket.regions.size() > 0x10000)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has {} grain regions; ring slots travel in 16 bits", ticket.id, ticket.regions.size());
        }
        for (std::size_t slot = 0; slot < ticket.regions.size(); ++slot)
        {
            if (ticket.regions[slot].len != _geometry.regionBytes())
            {
                fail(MXL_ERR_INVALID_ARG,
                     "grain size mismatch: target {} region {} is {} bytes, local grains are {} (8192 + {} payload bytes)", ticket.id, slot,
                     ticket.regions[slot].len, _geometry.regionBytes(), _geometry.payloadBytes());
            }
        }
    }

    void GrainEgress::checkRange(std::uint16_t start, std::uint16_t end) const
    {
        if (start > end || end > _geometry.totalSlices())
        {
            fail(MXL_ERR_INVALID_ARG, "slice range [{}, {}) is not within the grain's {} slices", start, end, _geometry.totalSlices());
        }
    }

    RmaWrite GrainEgress::probe(TargetInfo const& ticket) const
    {
        RmaWrite write;
        write.local = _local.slot(0).base();
        write.length = 1;
        write.descriptor = _local.slot(0).descriptor();
        write.remoteAddress = ticket.regions.front().addr;
        write.remoteKey = ticket.regions.front().rkey;
        return write;
    }

    std::vector<RmaWrite> GrainEgress::writes(TargetInfo const& ticket, std::uint64_t grainIndex, std::uint16_t start,
                                              std::uint16_t end) const
    {
        checkRange(start, end);
        auto const pieces = splitRanges(_geometry.ranges(start, end), _maxMessageBytes);
        auto const& local = _local.slot(grainIndex % _local.count());
        auto const remoteSlot = grainIndex % ticket.regions.size();
        auto const& remote = ticket.regions[remoteSlot];

        std::vector<RmaWrite> result;
        result.reserve(pieces.size());
        for (auto const& piece : pieces)
        {
            RmaWrite write;
            write.local = local.base() + piece.offset;
            write.length = piece.length;
            write.descriptor = local.descriptor();
            write.remoteAddress = remote.addr + piece.offset;
            write.remoteKey = remote.rkey;
            result.push_back(write);
        }
        if (!result.empty())
        {
            result.back().carriesImmediate = true;
            result.back().immediate = static_cast<std::uint32_t>(remoteSlot) | (std::uint32_t{end} << 16);
        }
        return result;
    }
}
