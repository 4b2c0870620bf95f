#include "RdmInitiator.hpp"

#include "OfiWriteCompletion.hpp"
#include "ShmRegion.hpp"

#include "common/Status.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    RdmInitiator::RdmInitiator(std::unique_ptr<OfiDomain> opened, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps,
                               std::size_t cqDepth)
        : Initiator{std::move(opened), memory, caps, cqDepth}
    {
    }

    RdmInitiator::~RdmInitiator()
    {
        for (auto& link : _links)
        {
            disconnect(*link);
        }
        _links.clear();
    }

    void RdmInitiator::connect(TargetLink& link)
    {
        if (auto const ended = endedTarget(link))
        {
            fail(MXL_ERR_NOT_READY, "{}", *ended);
        }
        // shm names each endpoint "<src_addr>:<uid>:<endpoint number>", so endpoints made from one info never collide.
        LinkConnecting connecting{AddressVector{_opened->domain}, Endpoint{_opened->domain, _opened->info.get(), nullptr}, std::nullopt,
                                  FI_ADDR_UNSPEC, false};
        connecting.endpoint->bind(_completions);
        connecting.endpoint->bind(*connecting.av);
        connecting.regionHold = enableEndpoint(*connecting.endpoint, *_opened->info.get(), _traits.provider == MXL_FABRICS_PROVIDER_SHM);
        connecting.address = connecting.av->insert(link.ticket.fabricAddress);
        link.state = std::move(connecting);
        pollEvents();
    }

    void RdmInitiator::disconnect(TargetLink& link) noexcept
    {
        // Closes the link's endpoint, then its address vector; a late completion of its writes carries a stale token.
        link.state = LinkIdle{};
    }

    Endpoint& RdmInitiator::endpointOf(TargetLink& link)
    {
        return *std::get<LinkConnected>(link.state).endpoint;
    }

    void RdmInitiator::pollEvents()
    {
        dropEndedPeers();
        for (auto& link : _links)
        {
            auto* connecting = std::get_if<LinkConnecting>(&link->state);
            if (connecting == nullptr || connecting->probePosted)
            {
                continue;
            }
            try
            {
                connecting->probePosted = postProbe(*link, *connecting->endpoint, connecting->address);
            }
            catch (Error const& e)
            {
                disconnected(*link, fmt::format("could not reach the target: {}", e.what()), e.status());
            }
        }
    }

    void RdmInitiator::dropEndedPeers()
    {
        // Writes that complete promptly need no look; a stat every few milliseconds per waiting target costs nothing.
        constexpr auto firstLook = std::chrono::milliseconds{5};
        constexpr auto lookInterval = std::chrono::milliseconds{5};
        auto const now = Clock::now();
        for (auto& link : _links)
        {
            if (!std::holds_alternative<LinkConnected>(link->state) || link->outstandingWrites == 0 || now - link->progressAt < firstLook ||
                now < link->peerCheckAt)
            {
                continue;
            }
            link->peerCheckAt = now + lookInterval;
            if (auto const ended = endedTarget(*link))
            {
                disconnected(*link, *ended, MXL_ERR_INTERRUPTED);
            }
        }
    }

    std::optional<std::string> RdmInitiator::endedTarget(TargetLink& link)
    {
        auto const region = shmRegionOf(link.ticket);
        if (!region)
        {
            return std::nullopt;
        }
        auto const state = probeShmRegion(*region);
        if (state == ShmRegionState::Gone)
        {
            return fmt::format("the target's shm region {} does not exist: the target process has ended", region->string());
        }
        if (state == ShmRegionState::Unheld && link.peerHoldsRegion)
        {
            return fmt::format("the target's shm region {} is no longer held: the target process has ended", region->string());
        }
        link.peerHoldsRegion = link.peerHoldsRegion || state == ShmRegionState::Held;
        return std::nullopt;
    }

    std::optional<WriteCompletion> RdmInitiator::wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline)
    {
        if (_completions.waitable())
        {
            return writeCompletionOf(
                _completions.readBlocking(std::clamp(timeout, std::chrono::milliseconds{1}, std::chrono::milliseconds{50})));
        }
        pacer.pause(deadline);
        return std::nullopt;
    }
}
