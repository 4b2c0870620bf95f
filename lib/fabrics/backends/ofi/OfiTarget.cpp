#include "fabrics/backends/ofi/OfiTarget.hpp"

#include "common/Log.hpp"
#include "fabrics/backends/ofi/RcTarget.hpp"
#include "fabrics/backends/ofi/RdmTarget.hpp"

#include <algorithm>
#include <utility>

namespace mxl::fabrics
{
    namespace
    {
        // Providers with FI_RX_CQ_DATA consume one posted receive per remote CQ data; one per write that can be in flight.
        std::size_t receivesToPost(fi_info const& info) noexcept
        {
            auto const needed = ((info.mode | info.rx_attr->mode) & FI_RX_CQ_DATA) != 0;
            return needed ? info.rx_attr->size : 0;
        }

        // The keys `regions` publish, in order: what a msg send must carry (MessageFormat.hpp).
        std::vector<std::uint64_t> keysOf(GrainRegions const& regions)
        {
            std::vector<std::uint64_t> keys;
            for (auto const& region : regions.remote())
            {
                keys.push_back(region.rkey);
            }
            return keys;
        }
    }

    std::unique_ptr<TargetTransport> openOfiTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth,
                                                   std::uint64_t targetId)
    {
        auto const depth = cqDepth != 0 ? cqDepth : std::clamp<std::size_t>(opened.info->rx_attr->size, 64, 4096);
        if (opened.traits.endpointType == FI_EP_MSG)
        {
            return std::make_unique<RcTarget>(opened, regions, depth, targetId);
        }
        return std::make_unique<RdmTarget>(opened, regions, depth, targetId);
    }

    OfiTarget::OfiTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth)
        : _opened{opened}
        , _completions{_opened.domain, cqDepth, _opened.traits.blockingCompletions}
        , _regions{_opened, regions, MemoryAccess::RemoteWrite}
        , _placement{regions, keysOf(_regions)}
        , _receives{opened.reported.transport == Transport::Msg ? 0 : receivesToPost(*_opened.info.get())}
    {
    }

    std::uint32_t OfiTarget::addressFormat() const noexcept
    {
        return _opened.info->addr_format;
    }

    std::vector<RemoteRegion> OfiTarget::regions() const
    {
        return _regions.remote();
    }

    std::optional<std::uint32_t> immediateOf(Completion const& completion)
    {
        if (completion.error != 0)
        {
            log::warn("target: a completion failed: {} ({})", completion.errorText, completion.error);
            return std::nullopt;
        }
        if ((completion.flags & FI_REMOTE_CQ_DATA) == 0)
        {
            return std::nullopt;
        }
        return static_cast<std::uint32_t>(completion.data);
    }

    std::size_t messageBuffersToPost(fi_info const& info, std::size_t cqDepth) noexcept
    {
        return std::max<std::size_t>(1, std::min<std::size_t>({cqDepth, 64, info.rx_attr->size}));
    }
}
