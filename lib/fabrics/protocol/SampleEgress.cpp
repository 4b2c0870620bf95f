#include "fabrics/protocol/SampleEgress.hpp"

#include "common/SharedAtomics.hpp"
#include "common/Status.hpp"

#include <algorithm>
#include <atomic>
#include <utility>

namespace mxl::fabrics
{
    RemoteWrites gatherWrites(std::vector<LocalSegment> const& segments, std::size_t iovLimit, std::uint32_t remoteRegion,
                              std::uint64_t remoteOffset)
    {
        auto const perWrite = std::max<std::size_t>(iovLimit, 1);
        RemoteWrites result;
        auto offset = remoteOffset;
        for (std::size_t first = 0; first < segments.size(); first += perWrite)
        {
            RemoteWrite write;
            write.segments.assign(segments.begin() + static_cast<std::ptrdiff_t>(first),
                                  segments.begin() + static_cast<std::ptrdiff_t>(std::min(first + perWrite, segments.size())));
            write.remoteRegion = remoteRegion;
            write.remoteOffset = offset;
            offset += write.length();
            result.push_back(std::move(write));
        }
        return result;
    }

    SampleEgress::TargetHeaders::TargetHeaders(TransportDomain const& domain, std::size_t entryCount)
        : headers{std::make_unique<wire::SampleEntryHeader[]>(entryCount + 1)}
        , region{domain.registerMemory(headers.get(), (entryCount + 1) * sizeof(wire::SampleEntryHeader), MemoryAccess::LocalSource)}
    {
    }

    SampleEgress::SampleEgress(TransportDomain const& domain, FlowMemory const& memory, std::size_t iovLimit)
        : _domain{domain}
        , _flow{*memory.data}
        , _geometry{SampleGeometry::of(memory, "initiator")}
        , _ring{domain.registerMemory(memory.channels, _geometry.channelStrideBytes() * _geometry.channels(), MemoryAccess::LocalSource)}
        , _silence(_geometry.ringLength() * _geometry.wordBytes())
        , _silenceRegion{domain.registerMemory(_silence.data(), _silence.size(), MemoryAccess::LocalSource)}
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
        auto const payloadBytes = bounce.entrySize - std::min<std::uint64_t>(bounce.entrySize, sizeof(wire::SampleEntryHeader));
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

    SampleEgress::TargetHeaders const& SampleEgress::headersOf(TargetInfo const& ticket) const
    {
        auto const found = _targets.find(ticket.id);
        if (found == _targets.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this sample initiator", ticket.id);
        }
        return found->second;
    }

    SampleEgress::TargetHeaders& SampleEgress::headersOf(TargetInfo const& ticket)
    {
        return const_cast<TargetHeaders&>(std::as_const(*this).headersOf(ticket));
    }

    std::uint32_t SampleEgress::nextEntry(TargetInfo const& ticket) const
    {
        return static_cast<std::uint32_t>(headersOf(ticket).next);
    }

    TransferPlan SampleEgress::plan(TargetInfo const& ticket, std::uint64_t headIndex, std::size_t count)
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
        auto const entry = static_cast<std::uint32_t>(target.next);
        target.next = (entry + 1) % ticket.bounceBuffer->entryCount;
        target.headers[entry] = wire::SampleEntryHeader{headIndex, count};

        auto result = TransferPlan::committing(entry, SourceRange{headIndex, count}, &target.headers[entry],
                                               sizeof(wire::SampleEntryHeader), *target.region, entry, entry);
        result.sourceUnwritten = sourceUnwritten();
        if (!result.sourceUnwritten && !sourceHolds(headIndex, count))
        {
            result.sourceGone = true;
            return result;
        }

        // The mark lands first (writes to one target are ordered): a target still reading an older completion for this
        // entry sees a batch in flight, never an old header over new samples.
        std::vector<LocalSegment> segments;
        segments.reserve(1 + 2 * std::size_t{_geometry.channels()});
        segments.push_back({&target.headers[ticket.bounceBuffer->entryCount], sizeof(wire::SampleEntryHeader), target.region.get()});
        auto const runs = ringRuns(headIndex, count, _geometry.ringLength());
        for (std::uint32_t channel = 0; channel < _geometry.channels(); ++channel)
        {
            if (result.sourceUnwritten)
            {
                segments.push_back({_silence.data(), count * _geometry.wordBytes(), _silenceRegion.get()});
                continue;
            }
            auto const* base = _ring->base() + channel * _geometry.channelStrideBytes();
            for (auto const& run : runs)
            {
                if (run.count != 0)
                {
                    segments.push_back({base + run.offset * _geometry.wordBytes(), run.count * _geometry.wordBytes(), _ring.get()});
                }
            }
        }
        result.payload = gatherWrites(segments, _iovLimit, entry, 0);
        result.payload.front().markBytes = sizeof(wire::SampleEntryHeader);
        return result;
    }

    bool SampleEgress::sourceHolds(std::uint64_t headIndex, std::size_t count) const noexcept
    {
        std::atomic_thread_fence(std::memory_order_acquire);
        auto const head = loadAcquire(_flow.info.runtime.headIndex);
        // The reader's rule: the half of the ring below the head is readable, the other half the writer's.
        auto const half = _geometry.ringLength() / 2;
        auto const oldest = head > half ? head - half : 0;
        return headIndex <= head && headIndex >= oldest && headIndex - oldest >= count;
    }

    bool SampleEgress::sourceUnwritten() const noexcept
    {
        // A writer's first commit moves the head past 0; before it, the ring holds nothing anyone wrote.
        return loadAcquire(_flow.info.runtime.headIndex) == 0;
    }

    RemoteWrite SampleEgress::probe() const
    {
        RemoteWrite write;
        write.segments = {{_ring->base(), 1, _ring.get()}};
        return write;
    }
}
