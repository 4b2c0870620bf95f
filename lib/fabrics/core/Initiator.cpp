#include "fabrics/core/Initiator.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        // How long a full transmit queue is drained and the post retried before a transfer reports NOT_READY. A time, not
        // a count of attempts: shm (1.17) takes the next write to a peer only after that peer's own progress completed the
        // previous one, so a multi-write transfer (16-channel sample batches: 9 writes) waits for the target's process.
        constexpr auto postPatience = std::chrono::milliseconds{50};
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

        // What a transfer carries, for its error messages only (formatted when one fails, never on the way).
        std::string describeSource(SourceRange const& source)
        {
            return source.isGrain() ? fmt::format("grain {}", source.index)
                                    : fmt::format("samples up to {} (count {})", source.index, source.count);
        }
    }

    Initiator::Initiator(OpenedInterface opened, std::unique_ptr<InitiatorTransport> transport, std::string backend,
                         mxlFabricsProvider provider, FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps)
        : _opened{std::move(opened.domain)}
        , _egress{*_opened,
                  memory,
                  _opened->reported.maxGatherSegments,
                  maxMessageBytes(_opened->reported, caps),
                  std::move(opened.deviceRing),
                  opened.stagedBecause}
        , _transport{std::move(transport)}
        , _links{*_opened, *_transport, _writes, _egress.probe(), std::move(backend), provider}
        , _orderedWrites{_opened->reported.orderedWrites}
    {
    }

    Initiator::~Initiator() = default;

    TargetLink const& Initiator::link(std::uint64_t targetId) const
    {
        return _links.link(targetId);
    }

    std::vector<std::uint64_t> Initiator::targetIds() const
    {
        return _links.targetIds();
    }

    void Initiator::reportTo(InitiatorEvents* events) noexcept
    {
        _links.reportTo(events);
    }

    void Initiator::proveTicketKey(std::optional<signing::SigningKey> key)
    {
        _links.proveTicketKey(std::move(key));
    }

    void Initiator::markIncarnation(bool mark) noexcept
    {
        _links.markIncarnation(mark);
    }

    void Initiator::addTarget(TargetInfo const& ticket)
    {
        _links.checkAddable(ticket);
        auto peer = _transport->peer(ticket);
        _egress.admit(ticket);
        _links.add(ticket, std::move(peer));
    }

    void Initiator::removeTarget(std::uint64_t targetId)
    {
        _links.remove(targetId);
        _egress.forget(targetId);
    }

    mxlStatus Initiator::transferGrain(std::uint64_t grainIndex, std::uint16_t start, std::uint16_t end, TransferLegs const* legs)
    {
        auto& grains = _egress.grains();
        grains.checkRange(start, end);
        return fanOut(
            SourceRange{grainIndex, 0},
            [&](TargetLink& link) { return grains.plan(link.ticket, grainIndex, link.firstSliceFor(grainIndex, start), end); }, legs);
    }

    mxlStatus Initiator::transferSamples(std::uint64_t headIndex, std::size_t count, TransferLegs const* legs)
    {
        auto& samples = _egress.samples();
        return fanOut(
            SourceRange{headIndex, count}, [&](TargetLink& link) { return std::optional{samples.plan(link.ticket, headIndex, count)}; },
            legs);
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

    template <typename Plan>
    mxlStatus Initiator::fanOut(SourceRange const& source, Plan const& plan, TransferLegs const* legs)
    {
        // Commits made ready since the last call go out first: the sooner a commit is decided, the less source history a
        // transfer needs (a caller may post several transfers between progress calls).
        for (int i = 0; i < completionsPerPass && drive(); ++i)
        {
        }
        _links.markLagging();
        auto result = MXL_STATUS_OK;
        for (auto& link : _links.links())
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
                // Recorded for this target only; the loop goes on to the others. A target that stopped reading refuses
                // every transfer, at the rate of the media.
                auto const line = fmt::format("fabrics initiator: {} to {}: {}", describeSource(source), link->name, e.what());
                if (auto const note = link->transferFailures.admit(line))
                {
                    log::error("{}{}", line, *note);
                }
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
            failOrphanLegs(*legs);
        }
        return result;
    }

    void Initiator::failOrphanLegs(TransferLegs const& legs)
    {
        for (auto const& leg : legs)
        {
            if (!leg->settled() && !_links.has(leg->targetId()))
            {
                leg->fail(
                    fmt::format("target {} is not added to this initiator (removed, or the initiator was set up again)", leg->targetId()));
            }
        }
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
                    _links.disconnected(link, fmt::format("a write failed: {}", e.what()), e.status());
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
            if (_writes.post(*std::get<LinkConnected>(link.state).connection, write, owner))
            {
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
        for (auto& link : _links.links())
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
            auto const status = _links.summary();
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
        if (!_transport->wait(timeout, _links.anyConnecting()))
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
        _links.pollEvents();
        _links.expireStalled();
        _links.retryDue();
        for (int i = 0; i < completionsPerPass; ++i)
        {
            auto completion = _transport->pollCompletion();
            if (!completion)
            {
                break;
            }
            handle(*completion);
        }
        _links.markLagging();
        for (auto& link : _links.links())
        {
            postReadyCommits(*link);
        }
    }

    void Initiator::handle(WriteCompletion const& completion)
    {
        auto const owner = _writes.complete(completion.writeId);
        // Nothing: a late completion of a removed target or of a dropped connection.
        auto* const link = owner ? _links.linkOf(owner->token) : nullptr;
        if (link == nullptr)
        {
            return;
        }
        if (completion.status != MXL_STATUS_OK)
        {
            link->noteCompleted(Clock::now());
            _links.disconnected(*link, fmt::format("a write failed: {}", completion.reason), completion.status);
            return;
        }
        completed(*link, *owner);
    }

    void Initiator::completed(TargetLink& link, WriteOwner const& owner)
    {
        link.noteCompleted(Clock::now());
        if (_links.probeCompleted(link))
        {
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
            if (auto* up = std::get_if<LinkConnected>(&link.state))
            {
                up->delivered = true;
            }
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
                _links.disconnected(link, fmt::format("posting a commit failed: {}", e.what()), e.status());
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
}
