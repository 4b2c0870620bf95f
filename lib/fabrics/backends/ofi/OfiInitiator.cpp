#include "fabrics/backends/ofi/OfiInitiator.hpp"

#include "fabrics/backends/ofi/OfiContext.hpp"
#include "fabrics/backends/ofi/OfiPeer.hpp"
#include "fabrics/backends/ofi/OfiWriteCompletion.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        // While a connection is being made, connection events are looked at at least this often.
        constexpr std::chrono::milliseconds connectingSlice{5};
        constexpr std::chrono::milliseconds idleSlice{50};

        std::size_t initiatorCqDepth(fi_info const& info, std::size_t requested)
        {
            // Sized from the transmit queue (the reference's fixed 8 made EFA fail with EAGAIN on the 9th write).
            return std::max<std::size_t>(requested, std::max<std::size_t>(64, info.tx_attr->size * 4));
        }

        // The facts of a connection-management event; nothing for events of no connection attempt.
        std::optional<ConnectionEvent> connectionEventOf(Event const& event)
        {
            if (event.source == nullptr)
            {
                return std::nullopt;
            }
            auto const token = idOf(event.source->context);
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

    OfiInitiator::OfiInitiator(OfiDomain const& opened, std::size_t cqDepth)
        : _opened{opened}
        , _completions{opened.domain, initiatorCqDepth(*opened.info.get(), cqDepth), opened.reported.canWait}
    {
        if (opened.traits.endpointType == FI_EP_MSG)
        {
            _events.emplace(opened.fabric);
        }
    }

    std::unique_ptr<TransportPeer> OfiInitiator::peer(TargetInfo const& ticket)
    {
        auto* sent = _opened.reported.transport == Transport::Msg ? &_sent : nullptr;
        return std::make_unique<OfiPeer>(_opened, _completions, _events ? &*_events : nullptr, sent, ticket);
    }

    std::optional<WriteCompletion> OfiInitiator::pollCompletion()
    {
        if (_wokenCompletion)
        {
            return std::exchange(_wokenCompletion, std::nullopt);
        }
        return released(writeCompletionOf(_completions.read()));
    }

    std::optional<WriteCompletion> OfiInitiator::released(std::optional<WriteCompletion> completion) noexcept
    {
        if (completion)
        {
            _sent.release(completion->writeId);
        }
        return completion;
    }

    std::optional<ConnectionEvent> OfiInitiator::pollEvent()
    {
        if (_wokenEvent)
        {
            return std::exchange(_wokenEvent, std::nullopt);
        }
        if (!_events)
        {
            return std::nullopt;
        }
        while (auto event = _events->read())
        {
            if (auto connectionEvent = connectionEventOf(*event))
            {
                return connectionEvent;
            }
        }
        return std::nullopt;
    }

    bool OfiInitiator::wait(std::chrono::milliseconds timeout, bool connecting)
    {
        // The completion queue does not wake for connection events: while a connection is being made, block on the event
        // queue in short slices instead.
        if (_events && connecting)
        {
            if (auto event = _events->readBlocking(std::clamp(timeout, std::chrono::milliseconds{1}, connectingSlice)))
            {
                _wokenEvent = connectionEventOf(*event);
            }
            return false;
        }
        _wokenCompletion =
            released(writeCompletionOf(_completions.readBlocking(std::clamp(timeout, std::chrono::milliseconds{1}, idleSlice))));
        return _wokenCompletion.has_value();
    }

    std::unique_ptr<InitiatorTransport> openOfiInitiator(OfiDomain const& opened, std::size_t cqDepth)
    {
        return std::make_unique<OfiInitiator>(opened, cqDepth);
    }
}
