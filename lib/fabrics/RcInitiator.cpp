#include "RcInitiator.hpp"

#include "OfiWriteCompletion.hpp"

#include "common/Status.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        // While a connection is being made, connection events are looked at at least this often.
        constexpr std::chrono::milliseconds connectingSlice{5};
        constexpr std::chrono::milliseconds idleSlice{50};

        // The initiator's interface description aimed at one target: its address as the destination, and no bound
        // source address when the families differ (an IPv4 initiator interface cannot reach an IPv6 target).
        Info aimedAt(Info const& interface, TargetInfo const& ticket)
        {
            auto info = Info::duplicate(interface.get());
            std::free(info->dest_addr);
            info->dest_addr = std::malloc(ticket.fabricAddress.size());
            if (info->dest_addr == nullptr)
            {
                fail(MXL_ERR_UNKNOWN, "out of memory");
            }
            std::memcpy(info->dest_addr, ticket.fabricAddress.data(), ticket.fabricAddress.size());
            info->dest_addrlen = ticket.fabricAddress.size();
            if (info->addr_format != ticket.addressFormat)
            {
                std::free(info->src_addr);
                info->src_addr = nullptr;
                info->src_addrlen = 0;
                info->addr_format = ticket.addressFormat;
            }
            return info;
        }

        // The facts of a connection-management event; nothing for events of no connection attempt.
        std::optional<ConnectionEvent> connectionEventOf(Event const& event, std::uint64_t token)
        {
            if (event.error != 0)
            {
                return ConnectionEvent{token, ConnectionEvent::Type::Failed, event.errorText};
            }
            if (event.type == FI_CONNECTED)
            {
                return ConnectionEvent{token, ConnectionEvent::Type::Established, {}};
            }
            if (event.type == FI_SHUTDOWN)
            {
                return ConnectionEvent{token, ConnectionEvent::Type::ClosedByPeer, {}};
            }
            return std::nullopt;
        }
    }

    RcInitiator::RcInitiator(std::unique_ptr<OfiDomain> opened, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps,
                             std::size_t cqDepth)
        : Initiator{std::move(opened), memory, caps, cqDepth}
        , _events{_opened->fabric}
    {
    }

    RcInitiator::~RcInitiator()
    {
        for (auto& link : _links)
        {
            disconnect(*link);
        }
        _links.clear();
    }

    void RcInitiator::connect(TargetLink& link)
    {
        auto const info = aimedAt(_opened->info, link.ticket);
        Endpoint endpoint{_opened->domain, info.get(), contextOf(link.token)};
        endpoint.bind(_events);
        endpoint.bind(_completions);
        endpoint.enable();
        endpoint.connect(link.ticket.fabricAddress);
        link.state = LinkConnecting{std::nullopt, std::move(endpoint), std::nullopt, FI_ADDR_UNSPEC, false};
    }

    void RcInitiator::disconnect(TargetLink& link) noexcept
    {
        if (auto* connection = std::get_if<LinkConnected>(&link.state); connection != nullptr && connection->endpoint)
        {
            connection->endpoint->shutdown();
        }
        link.state = LinkIdle{};
    }

    void RcInitiator::pollEvents()
    {
        while (auto event = _events.read())
        {
            handle(*event);
        }
    }

    void RcInitiator::handle(Event const& event)
    {
        if (event.source == nullptr)
        {
            return;
        }
        if (auto connectionEvent = connectionEventOf(event, tokenOf(event.source->context)))
        {
            onEvent(*connectionEvent);
        }
    }

    std::optional<WriteCompletion> RcInitiator::wait(std::chrono::milliseconds timeout, PollPacer&, Clock::time_point)
    {
        auto const settling =
            std::any_of(_links.begin(), _links.end(), [](auto const& link) { return !std::holds_alternative<LinkConnected>(link->state); });
        auto const slice = std::clamp(timeout, std::chrono::milliseconds{1}, settling ? connectingSlice : idleSlice);
        if (settling)
        {
            if (auto event = _events.readBlocking(slice))
            {
                handle(*event);
            }
            return std::nullopt;
        }
        return writeCompletionOf(_completions.readBlocking(slice));
    }

    Endpoint& RcInitiator::endpointOf(TargetLink& link)
    {
        return *std::get<LinkConnected>(link.state).endpoint;
    }
}
