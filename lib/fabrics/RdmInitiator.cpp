#include "RdmInitiator.hpp"

#include "ShmRegion.hpp"

#include "common/Status.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    RdmInitiator::RdmInitiator(SelectedInterface selected, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps,
                               std::size_t cqDepth)
        : Initiator{std::move(selected), memory, caps, cqDepth}
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
        if (auto const region = shmRegionOf(link.ticket); region && !std::filesystem::exists(*region))
        {
            fail(MXL_ERR_NOT_READY, "the target's shm region {} does not exist: the target process has ended", region->string());
        }
        // shm names each endpoint "<src_addr>:<uid>:<endpoint number>", so endpoints made from one info never collide.
        LinkConnecting connecting{AddressVector{_domain}, Endpoint{_domain, _info.get(), nullptr}, FI_ADDR_UNSPEC, false};
        connecting.endpoint->bind(_completions);
        connecting.endpoint->bind(*connecting.av);
        connecting.endpoint->enable();
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
            if (auto const region = shmRegionOf(link->ticket); region && !std::filesystem::exists(*region))
            {
                disconnected(*link, fmt::format("the target's shm region {} is gone: the target process has ended", region->string()),
                             MXL_ERR_INTERRUPTED);
            }
        }
    }

    std::optional<Completion> RdmInitiator::wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline)
    {
        if (_completions.waitable())
        {
            return _completions.readBlocking(std::clamp(timeout, std::chrono::milliseconds{1}, std::chrono::milliseconds{50}));
        }
        pacer.pause(deadline);
        return std::nullopt;
    }
}
