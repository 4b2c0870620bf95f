#include "SampleEgress.hpp"

#include "common/Status.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    std::vector<RmaWrite> gatherWrites(std::vector<LocalSegment> const& segments, std::size_t iovLimit, RemoteRegion const& remote,
                                       std::uint32_t immediate)
    {
        auto const perWrite = std::max<std::size_t>(iovLimit, 1);
        std::vector<RmaWrite> result;
        std::uint64_t offset = 0;
        for (std::size_t first = 0; first < segments.size(); first += perWrite)
        {
            RmaWrite write;
            write.gather.assign(segments.begin() + static_cast<std::ptrdiff_t>(first),
                                segments.begin() + static_cast<std::ptrdiff_t>(std::min(first + perWrite, segments.size())));
            for (auto const& segment : write.gather)
            {
                write.length += segment.length;
            }
            write.remoteAddress = remote.addr + offset;
            write.remoteKey = remote.rkey;
            offset += write.length;
            result.push_back(std::move(write));
        }
        if (!result.empty())
        {
            result.back().carriesImmediate = true;
            result.back().immediate = immediate;
        }
        return result;
    }

    SampleEgress::TargetHeaders::TargetHeaders(Domain const& domain, std::size_t entryCount)
        : headers{std::make_unique<SampleEntryHeader[]>(entryCount)}
        , region{domain, headers.get(), entryCount * sizeof(SampleEntryHeader), FI_WRITE}
    {
    }

    SampleEgress::SampleEgress(Domain const& domain, FlowMemory const& memory, std::size_t iovLimit)
        : _domain{domain}
        , _geometry{SampleGeometry::of(memory, "initiator")}
        , _ring{domain, memory.channels, _geometry.channelStrideBytes() * _geometry.channels(), FI_WRITE}
        , _iovLimit{iovLimit}
    {
    }

    void SampleEgress::admit(TargetInfo const& ticket)
    {
        if (!ticket.bounceBuffer)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has no bounceBufferInfo: it receives grains, this initiator sends samples", ticket.id);
        }
        auto const& bounce = *ticket.bounceBuffer;
        if (bounce.entryCount == 0 || bounce.entryCount > 0xFFFFFFFFu || ticket.regions.size() != bounce.entryCount)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} publishes {} bounce-buffer entries but {} regions (entry indices travel in 32 bits)",
                 ticket.id, bounce.entryCount, ticket.regions.size());
        }
        auto const payloadBytes = bounce.entrySize - std::min<std::uint64_t>(bounce.entrySize, sizeof(SampleEntryHeader));
        if (entryCapacity(bounce.entrySize, _geometry.frameBytes()) == 0 || payloadBytes % _geometry.frameBytes() != 0)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "target {} has bounce-buffer entries of {} bytes, which do not hold whole samples of this flow's {} channels of {} bytes "
                 "(channel count or sample format differ?)",
                 ticket.id, bounce.entrySize, _geometry.channels(), _geometry.wordBytes());
        }
        for (std::size_t index = 0; index < ticket.regions.size(); ++index)
        {
            if (ticket.regions[index].len < bounce.entrySize)
            {
                fail(MXL_ERR_INVALID_ARG, "target {} region {} is {} bytes, shorter than its {}-byte entries", ticket.id, index,
                     ticket.regions[index].len, bounce.entrySize);
            }
        }
        _targets.erase(ticket.id);
        _targets.emplace(std::piecewise_construct, std::forward_as_tuple(ticket.id),
                         std::forward_as_tuple(_domain, static_cast<std::size_t>(bounce.entryCount)));
    }

    void SampleEgress::forget(std::uint64_t targetId) noexcept
    {
        _targets.erase(targetId);
    }

    SampleEgress::TargetHeaders& SampleEgress::headersOf(TargetInfo const& ticket)
    {
        auto const found = _targets.find(ticket.id);
        if (found == _targets.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this sample initiator", ticket.id);
        }
        return found->second;
    }

    std::vector<RmaWrite> SampleEgress::writes(TargetInfo const& ticket, std::uint64_t headIndex, std::size_t count)
    {
        auto& target = headersOf(ticket);
        auto const capacity = entryCapacity(ticket.bounceBuffer->entrySize, _geometry.frameBytes());
        if (count == 0 || count > _geometry.ringLength() || count > capacity)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "cannot send {} samples per channel up to {} to target {}: its bounce-buffer entries hold {} ({} bytes with the header), "
                 "this flow's ring {}",
                 count, headIndex, ticket.id, capacity, ticket.bounceBuffer->entrySize, _geometry.ringLength());
        }
        auto const entry = target.next;
        target.next = (entry + 1) % ticket.bounceBuffer->entryCount;
        target.headers[entry] = SampleEntryHeader{headIndex, count};

        std::vector<LocalSegment> segments;
        segments.reserve(1 + 2 * std::size_t{_geometry.channels()});
        segments.push_back({&target.headers[entry], sizeof(SampleEntryHeader), target.region.descriptor()});
        auto const runs = ringRuns(headIndex, count, _geometry.ringLength());
        for (std::uint32_t channel = 0; channel < _geometry.channels(); ++channel)
        {
            auto const* base = _ring.base() + channel * _geometry.channelStrideBytes();
            for (auto const& run : runs)
            {
                if (run.count != 0)
                {
                    segments.push_back({base + run.offset * _geometry.wordBytes(), run.count * _geometry.wordBytes(), _ring.descriptor()});
                }
            }
        }
        return gatherWrites(segments, _iovLimit, ticket.regions[entry], static_cast<std::uint32_t>(entry));
    }

    RmaWrite SampleEgress::probe(TargetInfo const& ticket) const
    {
        RmaWrite write;
        write.local = _ring.base();
        write.length = 1;
        write.descriptor = _ring.descriptor();
        write.remoteAddress = ticket.regions.front().addr;
        write.remoteKey = ticket.regions.front().rkey;
        return write;
    }
}
