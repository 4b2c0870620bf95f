#include "RdmInitiator.hpp"

#include "ShmRegion.hpp"

#include "common/Status.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    RdmInitiator::RdmInitiator(SelectedInterface selected, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps,
                               std::size_t cqDepth)
        : Initiator{std::move(selected), memory, caps, cqDepth}
        , _av{_domain}
        , _endpoint{_domain, _info.get(), nullptr}
    {
        _endpoint.bind(_completions);
        _endpoint.bind(_av);
        _endpoint.enable();
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
        link.state = LinkConnecting{std::nullopt, _av.insert(link.ticket.fabricAddress), false};
        pollEvents();
    }

    void RdmInitiator::disconnect(TargetLink& link) noexcept
    {
        if (auto* connection = std::get_if<LinkConnected>(&link.state))
        {
            _av.remove(connection->address);
        }
        if (auto* connecting = std::get_if<LinkConnecting>(&link.state))
        {
            _av.remove(connecting->address);
        }
        link.state = LinkIdle{};
    }

    void RdmInitiator::pollEvents()
    {
        for (auto& link : _links)
        {
            auto* connecting = std::get_if<LinkConnecting>(&link->state);
            if (connecting == nullptr || connecting->probePosted)
            {
                continue;
            }
            try
            {
                connecting->probePosted = postProbe(*link, _endpoint, connecting->address);
            }
            catch (Error const& e)
            {
                disconnected(*link, fmt::format("could not reach the target: {}", e.what()), e.status());
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
