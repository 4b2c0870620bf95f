#include "fabrics/core/LinkSupervisor.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/protocol/IncarnationMark.hpp"
#include "fabrics/ticket/ProviderNames.hpp"
#include "signing/AdmissionProof.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::chrono::milliseconds initialBackoff{100};
        constexpr std::chrono::milliseconds maximumBackoff{3000};
        // How long writes to a target may go without any completion before the target counts as gone. Generous for the
        // largest grains on the slowest provider here (a 2160p write completes in milliseconds), short enough that a
        // dead shm peer does not hold back the other targets for long.
        constexpr auto completionPatience = std::chrono::milliseconds{1000};

        bool isConnected(TargetLink const& link) noexcept
        {
            return std::holds_alternative<LinkConnected>(link.state);
        }
    }

    LinkSupervisor::LinkSupervisor(TransportDomain const& opened, InitiatorTransport& transport, WriteLedger& writes, RemoteWrite probe,
                                   std::string backend, mxlFabricsProvider provider)
        : _opened{opened}
        , _transport{transport}
        , _writes{writes}
        , _probe{std::move(probe)}
        , _backend{std::move(backend)}
        , _provider{provider}
    {
    }

    LinkSupervisor::~LinkSupervisor()
    {
        for (auto& link : _links)
        {
            failLegs(*link, "the initiator was destroyed or set up again");
            disconnect(*link);
        }
    }

    void LinkSupervisor::checkAddable(TargetInfo const& ticket) const
    {
        if (has(ticket.id))
        {
            fail(MXL_ERR_EXISTS, "target {} was already added", ticket.id);
        }
        if (ticket.backend != _backend)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} was set up with fabrics backend \"{}\", this initiator uses backend \"{}\"", ticket.id,
                 ticket.backend, _backend);
        }
        // Both ends choose "auto" alike (the same provider has the same capabilities); an explicit choice must match.
        if (auto const own = transportName(_opened.reported.transport); ticket.transport != own)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "target {} was set up with transport \"{}\", this initiator uses transport \"{}\" ({}); set the initiator's "
                 "transport option to \"{}\"",
                 ticket.id, ticket.transport, own, _opened.reported.transportReason, ticket.transport);
        }
        if (ticket.provider != MXL_FABRICS_PROVIDER_ANY && ticket.provider != _provider)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} uses provider {}, this initiator {}", ticket.id, *providerName(ticket.provider),
                 *providerName(_provider));
        }
    }

    void LinkSupervisor::add(TargetInfo const& ticket, std::unique_ptr<TransportPeer> peer)
    {
        auto link = std::make_unique<TargetLink>();
        link->ticket = ticket;
        link->name = fmt::format("target {} ({} {})", ticket.id, *providerName(_provider), ticket.describeAddress());
        link->peer = std::move(peer);
        link->token = nextToken();
        _links.push_back(std::move(link));
    }

    void LinkSupervisor::remove(std::uint64_t targetId)
    {
        auto const found = std::find_if(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == targetId; });
        if (found == _links.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this initiator", targetId);
        }
        failLegs(**found, "the target was removed from the initiator");
        disconnect(**found);
        _writes.forget((*found)->token);
        _links.erase(found);
    }

    TargetLink const& LinkSupervisor::link(std::uint64_t targetId) const
    {
        auto const found = std::find_if(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == targetId; });
        if (found == _links.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this initiator", targetId);
        }
        return **found;
    }

    std::vector<std::uint64_t> LinkSupervisor::targetIds() const
    {
        std::vector<std::uint64_t> ids;
        ids.reserve(_links.size());
        for (auto const& link : _links)
        {
            ids.push_back(link->ticket.id);
        }
        return ids;
    }

    bool LinkSupervisor::has(std::uint64_t targetId) const noexcept
    {
        return std::any_of(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == targetId; });
    }

    TargetLink* LinkSupervisor::linkOf(std::uint64_t token) noexcept
    {
        auto const found = std::find_if(_links.begin(), _links.end(), [&](auto const& link) { return link->token == token; });
        return found != _links.end() ? found->get() : nullptr;
    }

    bool LinkSupervisor::anyConnecting() const noexcept
    {
        return std::any_of(_links.begin(), _links.end(), [](auto const& link) { return !isConnected(*link); });
    }

    void LinkSupervisor::reportTo(InitiatorEvents* events) noexcept
    {
        _events = events;
    }

    void LinkSupervisor::proveTicketKey(std::optional<signing::SigningKey> key)
    {
        _ticketKey = std::move(key);
    }

    void LinkSupervisor::markIncarnation(bool mark) noexcept
    {
        _markIncarnation = mark;
    }

    std::uint64_t LinkSupervisor::nextToken() noexcept
    {
        return ++_lastToken;
    }

    void LinkSupervisor::report(mxlFabricsEventType type, TargetLink const& link, std::string_view reason)
    {
        if (_events == nullptr)
        {
            return;
        }
        mxlFabricsEvent event{};
        event.structSize = sizeof(event);
        event.type = type;
        event.target.targetId = link.ticket.id;
        event.target.reason[reason.copy(event.target.reason, sizeof(event.target.reason) - 1)] = '\0';
        _events->queue(event);
    }

    void LinkSupervisor::failLegs(TargetLink const& link, std::string_view reason)
    {
        for (auto const& pending : link.transfers)
        {
            if (pending.leg)
            {
                pending.leg->fail(fmt::format("{}: {}", link.name, reason));
            }
        }
    }

    void LinkSupervisor::connect(TargetLink& link)
    {
        std::vector<std::uint8_t> requestData;
        if (_ticketKey && !_opened.reported.connectionless)
        {
            requestData = signing::admissionProof(*_ticketKey, link.ticket.id, link.ticket.epoch);
        }
        else if (_markIncarnation && _opened.reported.requestData)
        {
            requestData = incarnationMark(link.ticket.id, link.ticket.epoch);
        }
        link.state = LinkConnecting{link.peer->connect(link.token, requestData), false};
        if (_opened.reported.connectionless)
        {
            pollEvents();
        }
    }

    void LinkSupervisor::disconnect(TargetLink& link) noexcept
    {
        if (auto* connection = std::get_if<LinkConnected>(&link.state); connection != nullptr)
        {
            connection->connection->disconnect();
        }
        // Closes the link's connection; a late completion of its writes carries a stale token.
        link.state = LinkIdle{};
    }

    void LinkSupervisor::pollEvents()
    {
        while (auto event = _transport.pollEvent())
        {
            onEvent(*event);
        }
        if (!_opened.reported.connectionless)
        {
            return;
        }
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
                connecting->probePosted = postProbe(*link);
            }
            catch (Error const& e)
            {
                disconnected(*link, fmt::format("could not reach the target: {}", e.what()), e.status());
            }
        }
    }

    void LinkSupervisor::dropEndedPeers()
    {
        // Writes that complete promptly need no look; a stat every few milliseconds per waiting target costs nothing.
        constexpr auto firstLook = std::chrono::milliseconds{5};
        constexpr auto lookInterval = std::chrono::milliseconds{5};
        auto const now = Clock::now();
        for (auto& link : _links)
        {
            if (!isConnected(*link) || link->outstandingWrites == 0 || now - link->progressAt < firstLook || now < link->peerCheckAt)
            {
                continue;
            }
            link->peerCheckAt = now + lookInterval;
            if (auto const ended = std::get<LinkConnected>(link->state).connection->check())
            {
                disconnected(*link, *ended, MXL_ERR_INTERRUPTED);
            }
        }
    }

    bool LinkSupervisor::postProbe(TargetLink& link)
    {
        if (!_writes.post(*std::get<LinkConnecting>(link.state).connection, _probe, WriteOwner{link.token, 0, false}))
        {
            return false;
        }
        link.notePosted(Clock::now());
        return true;
    }

    void LinkSupervisor::expireStalled()
    {
        auto const now = Clock::now();
        for (auto& link : _links)
        {
            if (link->stalled(now, completionPatience) && !std::holds_alternative<LinkDisconnected>(link->state))
            {
                disconnected(*link, fmt::format("no write completed for {} ms: the target is gone or stalled", completionPatience.count()),
                             MXL_ERR_INTERRUPTED);
            }
        }
    }

    void LinkSupervisor::markLagging()
    {
        auto const now = Clock::now();
        // Skipping is for the others' sake: with no connected target ahead of it, a slow one is waited for as before (a
        // burst larger than its queues then completes without loss), until it counts as gone.
        for (auto& link : _links)
        {
            auto const lagging = isConnected(*link) && std::any_of(_links.begin(), _links.end(),
                                                                   [&](auto const& other) {
                                                                       return other != link && isConnected(*other) &&
                                                                              link->lagsBehind(*other, now, lagPatience);
                                                                   });
            if (lagging == link->lagging)
            {
                continue;
            }
            link->lagging = lagging;
            if (lagging)
            {
                log::warn("fabrics initiator: {}: no write completed for {} ms while another target kept up; skipping it until it "
                          "catches up, so that it does not hold back the other targets",
                          link->name, lagPatience.count());
            }
            else
            {
                log::info("fabrics initiator: {} caught up after {} skipped transfer(s)", link->name, link->transfersSkipped);
            }
        }
    }

    void LinkSupervisor::retryDue()
    {
        auto const now = Clock::now();
        for (auto& link : _links)
        {
            auto const* lost = std::get_if<LinkDisconnected>(&link->state);
            if (!std::holds_alternative<LinkIdle>(link->state) && (lost == nullptr || lost->retryAt > now))
            {
                continue;
            }
            link->token = nextToken();
            try
            {
                connect(*link);
            }
            catch (Error const& e)
            {
                disconnected(*link, e.what(), e.status());
            }
        }
    }

    bool LinkSupervisor::probeCompleted(TargetLink& link)
    {
        auto* connecting = std::get_if<LinkConnecting>(&link.state);
        if (connecting == nullptr || !connecting->probePosted)
        {
            return false;
        }
        connected(link);
        return true;
    }

    void LinkSupervisor::disconnected(TargetLink& link, std::string reason, mxlStatus status)
    {
        auto const* up = std::get_if<LinkConnected>(&link.state);
        auto const wasConnected = up != nullptr;
        // A connection that carried a transfer, or lasted, was a working one: the next attempt comes soon. One that broke
        // before either (a target that takes the connection and fails every write, as another incarnation at an old
        // ticket's address does) backs off as a refused attempt does, rather than being made again ten times a second.
        if (up != nullptr && (up->delivered || Clock::now() - up->since >= maximumBackoff))
        {
            link.backoff = initialBackoff;
            link.failedAttempts = 0;
        }
        disconnect(link);
        auto const retryIn = link.backoff;
        link.backoff = std::min(link.backoff * 2, maximumBackoff);
        _writes.forget(std::exchange(link.token, nextToken()));
        link.outstandingWrites = 0;
        failLegs(link, reason);
        link.transfers.clear();
        link.slicesSent.clear();
        link.lagging = false;
        // The first failure after a success is worth a warning; the retries that follow it are not.
        auto const level = link.failedAttempts++ == 0 ? log::Level::Warn : log::Level::Debug;
        log::emit(level, "fabrics initiator: {}: {}; retrying in {} ms", link.name, reason, retryIn.count());
        // Reported once, when a connection is lost; failed reconnection attempts only update the reason.
        if (wasConnected)
        {
            link.pendingError = status;
            report(MXL_FABRICS_EVENT_TARGET_DISCONNECTED, link, reason);
        }
        link.state = LinkDisconnected{std::move(reason), Clock::now() + retryIn};
    }

    void LinkSupervisor::onEvent(ConnectionEvent const& event)
    {
        auto* link = linkOf(event.token);
        if (link == nullptr)
        {
            return;
        }
        switch (event.type)
        {
        case ConnectionEvent::Type::Established:
            if (std::holds_alternative<LinkConnecting>(link->state))
            {
                connected(*link);
            }
            return;
        case ConnectionEvent::Type::Failed:
        {
            auto const what = isConnected(*link) ? "the connection failed" : "could not connect";
            disconnected(*link, fmt::format("{}: {}", what, event.reason), MXL_ERR_INTERRUPTED);
            return;
        }
        case ConnectionEvent::Type::ClosedByPeer:
            disconnected(*link, "the target closed the connection", MXL_ERR_INTERRUPTED);
            return;
        }
    }

    void LinkSupervisor::connected(TargetLink& link)
    {
        auto& connecting = std::get<LinkConnecting>(link.state);
        link.state = LinkConnected{std::move(connecting.connection), Clock::now()};
        link.reconnects += link.everConnected ? 1 : 0;
        link.everConnected = true;
        log::info("fabrics initiator: {} connected", link.name);
        report(MXL_FABRICS_EVENT_TARGET_CONNECTED, link, {});
    }

    mxlStatus LinkSupervisor::summary()
    {
        for (auto& link : _links)
        {
            if (link->pendingError)
            {
                return std::exchange(link->pendingError, std::nullopt).value();
            }
        }
        // Connection-oriented: an initiator with no targets left reports MXL_ERR_INTERRUPTED, as in the reference.
        if (_links.empty() && !_opened.reported.connectionless)
        {
            return MXL_ERR_INTERRUPTED;
        }
        auto const pending = std::any_of(_links.begin(), _links.end(), [](auto const& link) { return link->hasPendingWork(); });
        return pending ? MXL_ERR_NOT_READY : MXL_STATUS_OK;
    }
}
