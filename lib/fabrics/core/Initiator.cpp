#include "fabrics/core/Initiator.hpp"

#include "common/Status.hpp"
#include "fabrics/core/ProviderNames.hpp"
#include "signing/AdmissionProof.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::chrono::milliseconds initialBackoff{100};
        constexpr std::chrono::milliseconds maximumBackoff{3000};
        // How long a full transmit queue is drained and the post retried before a transfer reports NOT_READY. A time, not
        // a count of attempts: shm (1.17) takes the next write to a peer only after that peer's own progress completed the
        // previous one, so a multi-write transfer (16-channel sample batches: 9 writes) waits for the target's process.
        constexpr auto postPatience = std::chrono::milliseconds{50};
        // How long writes to a target may go without any completion before the target counts as gone. Generous for the
        // largest grains on the slowest provider here (a 2160p write completes in milliseconds), short enough that a
        // dead shm peer does not hold back the other targets for long.
        constexpr auto completionPatience = std::chrono::milliseconds{1000};
        // How long writes to a connected target may wait for a completion before it counts as lagging. Far above a
        // healthy completion (milliseconds for the largest grains), and well inside a source ring's default 200 ms
        // history, so that the other targets, held back this long once, catch up without losing a grain.
        constexpr auto lagPatience = std::chrono::milliseconds{100};
        // Completions consumed per pass, so that one busy target cannot keep MakeProgress from returning.
        constexpr int completionsPerPass = 4096;

        std::size_t maxMessageBytes(DomainInfo const& reported, mxlFabricsInterfaceCaps const& caps)
        {
            auto limit = reported.maxMessageBytes;
            if (caps.maxMessageSize != 0)
            {
                limit = std::min<std::uint64_t>(limit, caps.maxMessageSize);
            }
            return static_cast<std::size_t>(std::max<std::uint64_t>(limit, 4096));
        }
    }

    Initiator::Initiator(OpenedInterface opened, std::unique_ptr<InitiatorTransport> transport, std::string backend,
                         mxlFabricsProvider provider, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps)
        : _opened{std::move(opened.domain)}
        , _backend{std::move(backend)}
        , _provider{provider}
        , _egress{*_opened,
                  memory,
                  _opened->reported.maxGatherSegments,
                  maxMessageBytes(_opened->reported, caps),
                  std::move(opened.deviceRing),
                  opened.stagedBecause}
        , _transport{std::move(transport)}
        , _orderedWrites{_opened->reported.orderedWrites}
    {
    }

    Initiator::~Initiator()
    {
        for (auto& link : _links)
        {
            failLegs(*link, "the initiator was destroyed or set up again");
            disconnect(*link);
        }
        _links.clear();
    }

    TargetLink* Initiator::linkOf(std::uint64_t token) noexcept
    {
        auto const found = std::find_if(_links.begin(), _links.end(), [&](auto const& link) { return link->token == token; });
        return found != _links.end() ? found->get() : nullptr;
    }

    std::uint64_t Initiator::nextToken() noexcept
    {
        return ++_lastToken;
    }

    TargetLink const& Initiator::link(std::uint64_t targetId) const
    {
        auto const found = std::find_if(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == targetId; });
        if (found == _links.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this initiator", targetId);
        }
        return **found;
    }

    std::vector<std::uint64_t> Initiator::targetIds() const
    {
        std::vector<std::uint64_t> ids;
        ids.reserve(_links.size());
        for (auto const& link : _links)
        {
            ids.push_back(link->ticket.id);
        }
        return ids;
    }

    void Initiator::reportTo(InitiatorEvents* events) noexcept
    {
        _events = events;
    }

    void Initiator::report(mxlFabricsEventType type, TargetLink const& link, std::string_view reason)
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

    void Initiator::failLegs(TargetLink const& link, std::string_view reason)
    {
        for (auto const& pending : link.transfers)
        {
            if (pending.leg)
            {
                pending.leg->fail(fmt::format("{}: {}", link.name, reason));
            }
        }
    }

    void Initiator::addTarget(TargetInfo const& ticket)
    {
        if (std::any_of(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == ticket.id; }))
        {
            fail(MXL_ERR_EXISTS, "target {} was already added", ticket.id);
        }
        if (ticket.backend != _backend)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} was set up with fabrics backend \"{}\", this initiator uses backend \"{}\"", ticket.id,
                 ticket.backend, _backend);
        }
        // Both ends choose "auto" alike (the same provider has the same capabilities); an explicit choice must match.
        if (auto const own = transportName(_opened->reported.transport); ticket.transport != own)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "target {} was set up with transport \"{}\", this initiator uses transport \"{}\" ({}); set the initiator's "
                 "transport option to \"{}\"",
                 ticket.id, ticket.transport, own, _opened->reported.transportReason, ticket.transport);
        }
        if (ticket.provider != MXL_FABRICS_PROVIDER_ANY && ticket.provider != _provider)
        {
            fail(MXL_ERR_INVALID_ARG, "target {} uses provider {}, this initiator {}", ticket.id, *providerName(ticket.provider),
                 *providerName(_provider));
        }
        auto peer = _transport->peer(ticket);
        _egress.admit(ticket);

        auto link = std::make_unique<TargetLink>();
        link->ticket = ticket;
        link->name = fmt::format("target {} ({} {})", ticket.id, *providerName(_provider), ticket.describeAddress());
        link->peer = std::move(peer);
        link->token = nextToken();
        _links.push_back(std::move(link));
    }

    void Initiator::removeTarget(std::uint64_t targetId)
    {
        auto const found = std::find_if(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == targetId; });
        if (found == _links.end())
        {
            fail(MXL_ERR_NOT_FOUND, "target {} was not added to this initiator", targetId);
        }
        failLegs(**found, "the target was removed from the initiator");
        disconnect(**found);
        auto const token = (*found)->token;
        std::erase_if(_writes, [&](auto const& entry) { return entry.second.token == token; });
        _links.erase(found);
        _egress.forget(targetId);
    }

    mxlStatus Initiator::transferGrain(std::uint64_t grainIndex, std::uint16_t start, std::uint16_t end, TransferLegs const* legs)
    {
        auto& grains = _egress.grains();
        grains.checkRange(start, end);
        return fanOut(
            fmt::format("grain {}", grainIndex), SourceRange{grainIndex, 0},
            [&](TargetLink& link) { return grains.plan(link.ticket, grainIndex, link.firstSliceFor(grainIndex, start), end); }, legs);
    }

    mxlStatus Initiator::transferSamples(std::uint64_t headIndex, std::size_t count, TransferLegs const* legs)
    {
        auto& samples = _egress.samples();
        return fanOut(
            fmt::format("samples up to {} (count {})", headIndex, count), SourceRange{headIndex, count},
            [&](TargetLink& link) { return std::optional{samples.plan(link.ticket, headIndex, count)}; }, legs);
    }

    void Initiator::checkGrainRange(std::uint16_t start, std::uint16_t end)
    {
        _egress.grains().checkRange(start, end);
    }

    void Initiator::checkSampleCount(std::size_t count)
    {
        static_cast<void>(_egress.samples());
        if (count == 0)
        {
            fail(MXL_ERR_INVALID_ARG, "a sample transfer of 0 samples per channel was asked for; it needs at least 1");
        }
    }

    mxlStatus Initiator::fanOut(std::string const& what, SourceRange const& source,
                                std::function<std::optional<TransferPlan>(TargetLink&)> const& plan, TransferLegs const* legs)
    {
        // Commits made ready since the last call go out first: the sooner a commit is decided, the less source history a
        // transfer needs (a caller may post several transfers between progress calls).
        for (int i = 0; i < completionsPerPass && drive(); ++i)
        {
        }
        markLaggingLinks();
        auto result = MXL_STATUS_OK;
        for (auto& link : _links)
        {
            std::shared_ptr<TransferLeg> leg;
            if (legs != nullptr)
            {
                auto const found = std::find_if(legs->begin(), legs->end(),
                                                [&](auto const& candidate) { return candidate->targetId() == link->ticket.id; });
                if (found == legs->end())
                {
                    continue;
                }
                leg = *found;
            }
            if (!std::holds_alternative<LinkConnected>(link->state) || link->lagging)
            {
                ++link->transfersSkipped;
                if (leg)
                {
                    auto const* lost = std::get_if<LinkDisconnected>(&link->state);
                    leg->fail(link->lagging     ? fmt::format("{} was skipped: it is lagging (no write completed for {} ms)", link->name,
                                                              lagPatience.count())
                              : lost != nullptr ? fmt::format("{} was skipped: it is not connected ({})", link->name, lost->reason)
                                                : fmt::format("{} was skipped: it is not connected yet", link->name));
                }
                continue;
            }
            try
            {
                awaitUnit(*link, source);
                if (auto planned = plan(*link))
                {
                    transferTo(*link, std::move(*planned), leg);
                }
                else if (leg)
                {
                    // Nothing left to send: the target holds these slices already.
                    leg->complete();
                }
                ++link->transfersPosted;
            }
            catch (Error const& e)
            {
                // Recorded for this target only; the loop goes on to the others.
                log::error("fabrics initiator: {} to {}: {}", what, link->name, e.what());
                if (leg)
                {
                    leg->fail(fmt::format("{}: {}", link->name, e.what()));
                }
                if (result == MXL_STATUS_OK)
                {
                    result = e.status();
                }
            }
        }
        if (legs != nullptr)
        {
            for (auto const& leg : *legs)
            {
                if (!leg->settled() &&
                    std::none_of(_links.begin(), _links.end(), [&](auto const& link) { return link->ticket.id == leg->targetId(); }))
                {
                    leg->fail(fmt::format("target {} is not added to this initiator (removed, or the initiator was set up again)",
                                          leg->targetId()));
                }
            }
        }
        return result;
    }

    void Initiator::awaitUnit(TargetLink& link, SourceRange const& source)
    {
        auto const unit = _egress.unitFor(link.ticket, source);
        auto const token = link.token;
        auto const busy = [&]
        {
            return std::any_of(link.transfers.begin(), link.transfers.end(),
                               [&](PendingTransfer const& pending) {
                                   return pending.plan.unit == unit &&
                                          !(source.isGrain() && pending.plan.source.isGrain() && pending.plan.source.index == source.index);
                               });
        };
        auto const deadline = Clock::now() + postPatience;
        PollPacer pacer;
        while (busy())
        {
            if (!drive())
            {
                if (Clock::now() >= deadline)
                {
                    fail(MXL_ERR_NOT_READY,
                         "its ring slot or bounce-buffer entry {} still waits for an earlier transfer (the target is a "
                         "whole ring behind)",
                         unit);
                }
                pacer.pause(deadline);
            }
            if (link.token != token)
            {
                fail(MXL_ERR_INTERRUPTED, "the connection was lost while waiting for an earlier transfer");
            }
        }
    }

    void Initiator::transferTo(TargetLink& link, TransferPlan plan, std::shared_ptr<TransferLeg> leg)
    {
        auto const token = link.token;
        auto const id = ++_lastTransfer;
        auto const source = plan.source;
        auto const announcesLoss = plan.sourceGone;
        auto payload = std::move(plan.payload);
        std::uint64_t flowBytes = 0;
        for (auto& write : payload)
        {
            write.completesWhenRead = _orderedWrites;
            flowBytes += write.length() - write.markBytes;
        }
        if (leg)
        {
            leg->posted(flowBytes);
        }
        // Counted as left before the first post, so that no commit is decided while later payload writes are unposted.
        link.transfers.push_back(PendingTransfer{id, std::move(plan), Clock::now(), payload.size(), false, PendingTransfer::Step::Payload,
                                                 std::move(leg), false});
        for (std::size_t posted = 0; posted < payload.size(); ++posted)
        {
            auto accepted = false;
            try
            {
                accepted = post(link, payload[posted], WriteOwner{token, id, false, payload[posted].length() - payload[posted].markBytes},
                                postPatience);
            }
            catch (Error const& e)
            {
                abandon(link, id, source, payload.size() - posted, posted == 0);
                // A write the provider refused for another reason than a full queue will not go through on this connection.
                if (e.status() != MXL_ERR_INTERRUPTED && link.token == token)
                {
                    disconnected(link, fmt::format("a write failed: {}", e.what()), e.status());
                }
                throw;
            }
            if (!accepted)
            {
                abandon(link, id, source, payload.size() - posted, posted == 0);
                fail(MXL_ERR_NOT_READY, "the transmit queue stayed full ({} writes in flight)", link.outstandingWrites);
            }
        }
        if (source.isGrain() && !announcesLoss)
        {
            link.noteSlicesSent(source.index, source.endSlice);
        }
        else if (source.isGrain())
        {
            link.forgetSlicesSent(source.index);
        }
    }

    void Initiator::abandon(TargetLink& link, std::uint64_t id, SourceRange const& source, std::size_t unposted, bool nothingPosted)
    {
        if (source.isGrain())
        {
            link.forgetSlicesSent(source.index);
        }
        auto const pending = std::find_if(link.transfers.begin(), link.transfers.end(), [&](auto const& t) { return t.id == id; });
        if (pending == link.transfers.end())
        {
            // Dropped with the connection meanwhile.
            return;
        }
        if (nothingPosted)
        {
            // Nothing reached the target: the caller, told NOT_READY, may post the same data again.
            link.transfers.erase(pending);
            return;
        }
        pending->payloadLeft -= unposted;
        pending->payloadFailed = true;
    }

    bool Initiator::post(TargetLink& link, RemoteWrite const& write, WriteOwner const& owner, std::chrono::milliseconds patience)
    {
        auto const deadline = Clock::now() + patience;
        PollPacer pacer;
        while (true)
        {
            auto const id = ++_lastWrite;
            if (std::get<LinkConnected>(link.state).connection->write(write, id))
            {
                _writes.emplace(id, owner);
                link.notePosted(Clock::now());
                return true;
            }
            // A commit is posted from postReadyCommits, which must not run again inside itself: no draining then.
            if (patience.count() == 0)
            {
                return false;
            }
            // The transmit queue is full: completions free it.
            if (!drive())
            {
                if (Clock::now() >= deadline)
                {
                    return false;
                }
                pacer.pause(deadline);
            }
            if (link.token != owner.token)
            {
                fail(MXL_ERR_INTERRUPTED, "the connection was lost while its transmit queue was full");
            }
        }
    }

    bool Initiator::drive()
    {
        auto completion = _transport->pollCompletion();
        if (!completion)
        {
            return false;
        }
        handle(*completion);
        for (auto& link : _links)
        {
            postReadyCommits(*link);
        }
        return true;
    }

    mxlStatus Initiator::makeProgress(std::chrono::milliseconds timeout)
    {
        auto const deadline = Clock::now() + timeout;
        PollPacer pacer;
        for (;;)
        {
            pass();
            auto const status = summary();
            auto const now = Clock::now();
            if (status != MXL_ERR_NOT_READY || now >= deadline)
            {
                return status;
            }
            wait(std::chrono::ceil<std::chrono::milliseconds>(deadline - now), pacer, deadline);
        }
    }

    void Initiator::wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline)
    {
        if (!_opened->reported.canWait)
        {
            pacer.pause(deadline);
            return;
        }
        // Links not connected (idle and retrying ones too) are settling: their progress comes as connection events.
        auto const connecting =
            std::any_of(_links.begin(), _links.end(), [](auto const& link) { return !std::holds_alternative<LinkConnected>(link->state); });
        if (!_transport->wait(timeout, connecting))
        {
            return;
        }
        if (auto completion = _transport->pollCompletion())
        {
            handle(*completion);
        }
    }

    void Initiator::pass()
    {
        pollEvents();
        expireStalledLinks();
        retryDueLinks();
        for (int i = 0; i < completionsPerPass; ++i)
        {
            auto completion = _transport->pollCompletion();
            if (!completion)
            {
                break;
            }
            handle(*completion);
        }
        markLaggingLinks();
        for (auto& link : _links)
        {
            postReadyCommits(*link);
        }
    }

    void Initiator::expireStalledLinks()
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

    void Initiator::markLaggingLinks()
    {
        auto const now = Clock::now();
        auto const connected = [](auto const& link) { return std::holds_alternative<LinkConnected>(link->state); };
        // Skipping is for the others' sake: with no connected target ahead of it, a slow one is waited for as before (a
        // burst larger than its queues then completes without loss), until it counts as gone.
        for (auto& link : _links)
        {
            auto const lagging =
                connected(link) && std::any_of(_links.begin(), _links.end(),
                                               [&](auto const& other)
                                               { return other != link && connected(other) && link->lagsBehind(*other, now, lagPatience); });
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

    void Initiator::retryDueLinks()
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

    void Initiator::handle(WriteCompletion const& completion)
    {
        auto const found = _writes.find(completion.writeId);
        if (found == _writes.end())
        {
            // A late completion of a removed target or of a dropped connection.
            return;
        }
        auto const owner = found->second;
        _writes.erase(found);
        auto const link =
            std::find_if(_links.begin(), _links.end(), [&](auto const& candidate) { return candidate->token == owner.token; });
        if (link == _links.end())
        {
            return;
        }
        if (completion.status != MXL_STATUS_OK)
        {
            (*link)->noteCompleted(Clock::now());
            disconnected(**link, fmt::format("a write failed: {}", completion.reason), completion.status);
            return;
        }
        completed(**link, owner);
    }

    void Initiator::completed(TargetLink& link, WriteOwner const& owner)
    {
        link.noteCompleted(Clock::now());
        if (auto* connecting = std::get_if<LinkConnecting>(&link.state); connecting != nullptr && connecting->probePosted)
        {
            connected(link);
            return;
        }
        auto const pending = std::find_if(link.transfers.begin(), link.transfers.end(),
                                          [&](auto const& transfer) { return transfer.id == owner.transferId; });
        if (pending == link.transfers.end())
        {
            return;
        }
        if (owner.commit)
        {
            if (pending->leg && pending->lost)
            {
                pending->leg->fail(
                    fmt::format("{}: the source changed before the data was read; the target was told it is lost", link.name));
            }
            else if (pending->leg)
            {
                pending->leg->complete();
            }
            link.transfers.erase(pending);
        }
        else if (pending->payloadLeft > 0)
        {
            --pending->payloadLeft;
            if (pending->leg)
            {
                pending->leg->placed(owner.bytes);
            }
        }
    }

    void Initiator::postReadyCommits(TargetLink& link)
    {
        if (!std::holds_alternative<LinkConnected>(link.state))
        {
            return;
        }
        auto const token = link.token;
        for (auto pending = link.transfers.begin(); pending != link.transfers.end();)
        {
            // Slice ranges of one grain share a slot: their commits go in order, so valid slices never move backwards.
            auto const waitsForEarlier =
                std::any_of(link.transfers.begin(), pending, [&](auto const& earlier) { return earlier.plan.unit == pending->plan.unit; });
            if (pending->step == PendingTransfer::Step::CommitInFlight || pending->payloadLeft > 0 || waitsForEarlier)
            {
                ++pending;
                continue;
            }
            if (pending->step == PendingTransfer::Step::Payload)
            {
                // Every payload write completed, so every byte was read from the source: if the source slot or samples still
                // hold the same data now, they held it throughout (docs/fabrics.md, "Read safety").
                if (pending->plan.sourceGone || pending->payloadFailed ||
                    (!pending->plan.sourceUnwritten && !_egress.sourceHolds(pending->plan.source)))
                {
                    // A transfer that could not be posted whole was reported by its NOT_READY already.
                    if (!pending->payloadFailed)
                    {
                        ++link.transfersInvalidated;
                        log::debug("fabrics initiator: {}: {} {} changed at the source before it was read; announcing it lost", link.name,
                                   pending->plan.source.isGrain() ? "grain" : "samples up to", pending->plan.source.index);
                    }
                    auto loss = _egress.lossCommit(link.ticket, pending->plan);
                    if (!loss)
                    {
                        if (pending->leg)
                        {
                            pending->leg->fail(
                                fmt::format("{}: the source changed before the samples were read; they are never announced", link.name));
                        }
                        pending = link.transfers.erase(pending);
                        continue;
                    }
                    pending->plan.commit = *loss;
                    pending->lost = true;
                }
                pending->step = PendingTransfer::Step::Commit;
            }
            try
            {
                if (!post(link, pending->plan.commit, WriteOwner{token, pending->id, true}, std::chrono::milliseconds{0}))
                {
                    return;
                }
            }
            catch (Error const& e)
            {
                // Refused for another reason than a full queue: this connection will not take the commit; reconnecting does.
                disconnected(link, fmt::format("posting a commit failed: {}", e.what()), e.status());
                return;
            }
            if (link.token != token)
            {
                return;
            }
            pending->step = PendingTransfer::Step::CommitInFlight;
            ++pending;
        }
    }

    void Initiator::proveTicketKey(std::optional<signing::SigningKey> key)
    {
        _ticketKey = std::move(key);
    }

    void Initiator::connect(TargetLink& link)
    {
        std::vector<std::uint8_t> proof;
        if (_ticketKey && !_opened->reported.connectionless)
        {
            proof = signing::admissionProof(*_ticketKey, link.ticket.id, link.ticket.epoch);
        }
        link.state = LinkConnecting{link.peer->connect(link.token, proof), false};
        if (_opened->reported.connectionless)
        {
            pollEvents();
        }
    }

    void Initiator::disconnect(TargetLink& link) noexcept
    {
        if (auto* connection = std::get_if<LinkConnected>(&link.state); connection != nullptr)
        {
            connection->connection->disconnect();
        }
        // Closes the link's connection; a late completion of its writes carries a stale token.
        link.state = LinkIdle{};
    }

    void Initiator::pollEvents()
    {
        while (auto event = _transport->pollEvent())
        {
            onEvent(*event);
        }
        if (!_opened->reported.connectionless)
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

    void Initiator::dropEndedPeers()
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
            if (auto const ended = std::get<LinkConnected>(link->state).connection->check())
            {
                disconnected(*link, *ended, MXL_ERR_INTERRUPTED);
            }
        }
    }

    void Initiator::disconnected(TargetLink& link, std::string reason, mxlStatus status)
    {
        auto const wasConnected = std::holds_alternative<LinkConnected>(link.state);
        disconnect(link);
        auto const retryIn = link.backoff;
        link.backoff = std::min(link.backoff * 2, maximumBackoff);
        auto const lostToken = std::exchange(link.token, nextToken());
        std::erase_if(_writes, [&](auto const& entry) { return entry.second.token == lostToken; });
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

    void Initiator::onEvent(ConnectionEvent const& event)
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
            auto const what = std::holds_alternative<LinkConnected>(link->state) ? "the connection failed" : "could not connect";
            disconnected(*link, fmt::format("{}: {}", what, event.reason), MXL_ERR_INTERRUPTED);
            return;
        }
        case ConnectionEvent::Type::ClosedByPeer:
            disconnected(*link, "the target closed the connection", MXL_ERR_INTERRUPTED);
            return;
        }
    }

    void Initiator::connected(TargetLink& link)
    {
        auto& connecting = std::get<LinkConnecting>(link.state);
        link.state = LinkConnected{std::move(connecting.connection)};
        link.backoff = initialBackoff;
        link.failedAttempts = 0;
        link.reconnects += link.everConnected ? 1 : 0;
        link.everConnected = true;
        log::info("fabrics initiator: {} connected", link.name);
        report(MXL_FABRICS_EVENT_TARGET_CONNECTED, link, {});
    }

    bool Initiator::postProbe(TargetLink& link)
    {
        auto const id = ++_lastWrite;
        if (!std::get<LinkConnecting>(link.state).connection->write(_egress.probe(), id))
        {
            return false;
        }
        _writes.emplace(id, WriteOwner{link.token, 0, false});
        link.notePosted(Clock::now());
        return true;
    }

    mxlStatus Initiator::summary()
    {
        for (auto& link : _links)
        {
            if (link->pendingError)
            {
                return std::exchange(link->pendingError, std::nullopt).value();
            }
        }
        // Connection-oriented: an initiator with no targets left reports MXL_ERR_INTERRUPTED, as in the reference.
        if (_links.empty() && !_opened->reported.connectionless)
        {
            return MXL_ERR_INTERRUPTED;
        }
        auto const pending = std::any_of(_links.begin(), _links.end(), [](auto const& link) { return link->hasPendingWork(); });
        return pending ? MXL_ERR_NOT_READY : MXL_STATUS_OK;
    }
}
