// A sender session's tickets: offered, checked, added to the initiator, and handed over from one target to the next
// (make before break).
#include "SenderSession.hpp"

#include <client/FabricsHandles.hpp>
#include <client/InitiatorTargets.hpp>
#include <common/Log.hpp>
#include <common/StatusName.hpp>

#include <fmt/format.h>

namespace mxl::bridge
{
    namespace
    {
        char const* kindOf(bool samples)
        {
            return samples ? "an audio flow" : "a video or data flow";
        }
    }

    std::string SenderSession::unusable(directory::Ticket const& ticket) const
    {
        if (ticket.provider != _settings.provider)
        {
            return fmt::format("it is for provider {}, this initiator uses {}", ticket.provider, _settings.provider);
        }
        if (bool const samples = _unit == TransferUnit::Batch; ticket.carriesSamples != samples)
        {
            return fmt::format("it is for {}, flow {} is {}", kindOf(ticket.carriesSamples), _settings.flowId, kindOf(samples));
        }
        mxlFabricsTargetInfo info = nullptr;
        if (auto const status = ::mxlFabricsTargetInfoFromString(ticket.json.c_str(), &info); status != MXL_STATUS_OK)
        {
            return fmt::format("the fabrics library cannot read it ({})", mxl::statusName(status));
        }
        client::OwnedTargetInfo const owned{info};
        return {};
    }

    void SenderSession::offer(directory::Ticket ticket, std::string const& origin, Handover handover)
    {
        if (ticket.json == _unusableText)
        {
            // Said once already; asking the library again would log its error at every poll.
            return;
        }
        if (auto const problem = unusable(ticket); !problem.empty())
        {
            reportTicketProblem(fmt::format("the ticket from '{}' (epoch {}) cannot be used: {}; {}", origin, ticket.epoch, problem,
                                            _target ? "keeping the current target" : "still fetching"));
            _unusableText = ticket.json;
            return;
        }
        _unusableText.clear();
        for (auto const* end : {&_target, &_candidate})
        {
            if (*end && ticket.contradicts((*end)->ticket))
            {
                reportTicketProblem(fmt::format("the ticket from '{}' names target {}, the id of the target of epoch {}, with epoch {}: no "
                                                "target gives that, it was altered; {}",
                                                origin, ticket.id, (*end)->ticket.epoch, ticket.epoch,
                                                _target ? "keeping the current target" : "still fetching"));
                return;
            }
        }
        if (_target && _target->ticket.sameIncarnation(ticket))
        {
            if (_candidate)
            {
                log::info("the ticket from '{}' names epoch {} again: the target of epoch {} is not connected to after all", origin,
                          ticket.epoch, _candidate->ticket.epoch);
                dropCandidate();
            }
            return;
        }
        if (_candidate && _candidate->ticket.sameIncarnation(ticket))
        {
            if (handover == Handover::AtOnce)
            {
                promoteCandidate(Clock::now(), fmt::format("epoch {}, activated", ticket.epoch));
            }
            return;
        }
        if (_misfit && _misfit->sameIncarnation(ticket))
        {
            return;
        }
        if (handover == Handover::OnceConnected && _target && _target->state == MXL_FABRICS_TARGET_CONNECTED)
        {
            propose(std::move(ticket), origin);
            return;
        }
        dropCandidate();
        auto const why = _target ? fmt::format("new epoch {} (was {}): the target restarted or another took its place", ticket.epoch,
                                               _target->ticket.epoch)
                                 : fmt::format("epoch {}", ticket.epoch);
        establish(std::move(ticket), origin, why);
    }

    void SenderSession::reportTicketProblem(std::string const& problem)
    {
        // Once per distinct problem: a poll every second must not repeat the same warning. The set is bounded by clearing it.
        constexpr std::size_t remembered = 64;
        if (_reportedTicketProblems.size() >= remembered)
        {
            _reportedTicketProblems.clear();
        }
        if (_reportedTicketProblems.insert(problem).second)
        {
            log::warn("{}", problem);
        }
        if (!_target)
        {
            _metrics.setState("stale");
        }
    }

    std::optional<client::OwnedTargetInfo> SenderSession::targetInfo(directory::Ticket const& ticket, std::string const& origin)
    {
        mxlFabricsTargetInfo info = nullptr;
        if (auto const status = ::mxlFabricsTargetInfoFromString(ticket.json.c_str(), &info); status != MXL_STATUS_OK)
        {
            reportTicketProblem(fmt::format("the ticket from '{}' (epoch {}) was rejected by the fabrics library: {}; {}", origin,
                                            ticket.epoch, mxl::statusName(status),
                                            _target ? "keeping the current target" : "still fetching"));
            return std::nullopt;
        }
        return client::OwnedTargetInfo{info};
    }

    void SenderSession::reportRefused(directory::Ticket const& ticket, std::string const& origin, mxlStatus status)
    {
        if (status == MXL_ERR_INVALID_ARG)
        {
            // It will not fit at the next poll either: not added again until the ticket changes.
            _misfit = ticket;
        }
        reportTicketProblem(fmt::format("the target of the ticket from '{}' (epoch {}) does not fit flow {} (another provider or "
                                        "transport, or grains of another size, or audio of another channel count or sample "
                                        "format): {}; {}",
                                        origin, ticket.epoch, _settings.flowId, mxl::statusName(status),
                                        _target ? "keeping the current target" : "still fetching"));
    }

    void SenderSession::announceEstablishing(directory::Ticket const& ticket, std::string const& origin)
    {
        _observer.establishing(
            fmt::format("connecting to or writing to the {} target of epoch {} (ticket from '{}') in the fabrics library", ticket.provider,
                        ticket.epoch, origin));
    }

    bool SenderSession::establish(directory::Ticket ticket, std::string origin, std::string const& why)
    {
        bool const replacing = _target.has_value();
        // Re-adding the same incarnation keeps the ticket's history: how long it has failed, and whether that was said.
        auto const sameTicket = replacing && _target->ticket.sameIncarnation(ticket);
        auto const since = sameTicket ? _target->since : Clock::now();
        auto const reportedStale = sameTicket && _target->reportedStale;
        auto const connected = sameTicket && _target->connected;
        auto const delivered = sameTicket && _target->delivered;
        auto owned = targetInfo(ticket, origin);
        if (!owned)
        {
            return false;
        }
        // The current target is removed only once the new one was taken. The same target is re-added after its removal.
        if (sameTicket)
        {
            removeCurrent();
        }
        auto status = ::mxlFabricsInitiatorAddTarget(_initiator, owned->get());
        if (status == MXL_ERR_EXISTS && _target)
        {
            // The library keys targets by id. A ticket of the current target's id with other contents (one without an
            // epoch, as the SDK's are, re-issued at another address) can only take its place: break before make, and
            // the current target back should the library refuse the new one.
            auto retired = std::move(_target);
            _target.reset();
            ::mxlFabricsInitiatorRemoveTarget(_initiator, retired->info.get());
            status = ::mxlFabricsInitiatorAddTarget(_initiator, owned->get());
            if (status != MXL_STATUS_OK && ::mxlFabricsInitiatorAddTarget(_initiator, retired->info.get()) == MXL_STATUS_OK)
            {
                _target = std::move(retired);
            }
        }
        if (status != MXL_STATUS_OK)
        {
            reportRefused(ticket, origin, status);
            return false;
        }
        removeCurrent();
        _reportedTicketProblems.clear();
        auto const now = Clock::now();
        log::info("{} target from '{}': {}", replacing ? "re-establishing with the" : "adding the", origin, why);
        announceEstablishing(ticket, origin);
        if (replacing)
        {
            _metrics.reestablished();
        }
        _metrics.setEpoch(ticket.epoch);
        _metrics.setTransport(ticket.transport);
        // A ticket reported stale stays so while it is tried again.
        _metrics.setState(reportedStale ? "stale" : "connecting");
        _target = Established{std::move(ticket),
                              origin,
                              std::move(*owned),
                              since,
                              MXL_FABRICS_TARGET_NOT_CONNECTED,
                              now,
                              connected,
                              delivered,
                              reportedStale,
                              {},
                              false};
        return true;
    }

    void SenderSession::propose(directory::Ticket ticket, std::string const& origin)
    {
        auto owned = targetInfo(ticket, origin);
        if (!owned)
        {
            return;
        }
        dropCandidate();
        announceEstablishing(ticket, origin);
        auto const status = ::mxlFabricsInitiatorAddTarget(_initiator, owned->get());
        if (status == MXL_ERR_EXISTS)
        {
            // The current target's id: the two cannot stand side by side.
            auto const why = fmt::format("epoch {} (was {}), a ticket of the same target id", ticket.epoch, _target->ticket.epoch);
            establish(std::move(ticket), origin, why);
            return;
        }
        if (status != MXL_STATUS_OK)
        {
            reportRefused(ticket, origin, status);
            return;
        }
        log::info("adding the target from '{}' (epoch {}) beside the target of epoch {}, which receives until the new one connects", origin,
                  ticket.epoch, _target->ticket.epoch);
        auto const now = Clock::now();
        _candidate = Established{
            std::move(ticket), origin, std::move(*owned), now, MXL_FABRICS_TARGET_NOT_CONNECTED, now, false, false, false, {}, false};
    }

    void SenderSession::superviseCandidate(Clock::time_point now)
    {
        if (!_candidate)
        {
            return;
        }
        auto const current = client::targetState(_initiator, _candidate->info.get());
        if (!current)
        {
            // The library let it go: the next poll proposes it afresh.
            dropCandidate();
            return;
        }
        if (current->state != _candidate->state)
        {
            _candidate->state = current->state;
            _candidate->stateSince = now;
            _candidate->reason = current->reason;
        }
        if (!_target)
        {
            promoteCandidate(now, fmt::format("epoch {}, there being no current target", _candidate->ticket.epoch));
        }
        else if (_candidate->state == MXL_FABRICS_TARGET_CONNECTED)
        {
            promoteCandidate(now, fmt::format("new epoch {} (was {}): connected, leaving the target of epoch {}", _candidate->ticket.epoch,
                                              _target->ticket.epoch, _target->ticket.epoch));
        }
        else if (_target->state != MXL_FABRICS_TARGET_CONNECTED && msSince(_target->stateSince, now) >= _settings.stallTimeout.count())
        {
            // A moment without the connection, which the library may mend by itself, is no reason to follow a target that
            // never connected; a connection lost for the stall timeout, after which the current one would be re-added, is.
            promoteCandidate(now, fmt::format("new epoch {} (was {}): the target of epoch {} has not been connected for {} ms",
                                              _candidate->ticket.epoch, _target->ticket.epoch, _target->ticket.epoch,
                                              msSince(_target->stateSince, now)));
        }
        else if (!_candidate->reportedStale && msSince(_candidate->since, now) >= _settings.connectTimeout.count())
        {
            _candidate->reportedStale = true;
            log::warn("the ticket from '{}' (epoch {}) gives no connection in {} ms ({}{}); the target of epoch {} keeps receiving, and "
                      "the new one is tried on",
                      _candidate->origin, _candidate->ticket.epoch, msSince(_candidate->since, now),
                      client::targetStateName(_candidate->state), _candidate->reason.empty() ? "" : ": " + _candidate->reason,
                      _target->ticket.epoch);
        }
    }

    void SenderSession::promoteCandidate(Clock::time_point now, std::string const& why)
    {
        removeCurrent();
        _target = std::move(_candidate);
        _candidate.reset();
        // Its silence was said as the candidate's; as the target it is reported stale like any other.
        _target->reportedStale = false;
        _reportedTicketProblems.clear();
        log::info("re-establishing with the target from '{}': {}", _target->origin, why);
        _metrics.reestablished();
        _metrics.setEpoch(_target->ticket.epoch);
        _metrics.setTransport(_target->ticket.transport);
        _metrics.setState("connecting");
        if (_target->state == MXL_FABRICS_TARGET_CONNECTED)
        {
            onConnected(now);
        }
    }

    void SenderSession::dropCandidate()
    {
        if (!_candidate)
        {
            return;
        }
        ::mxlFabricsInitiatorRemoveTarget(_initiator, _candidate->info.get());
        _candidate.reset();
    }

    void SenderSession::removeCurrent()
    {
        if (!_target)
        {
            return;
        }
        // NOT_FOUND: the library already dropped it.
        ::mxlFabricsInitiatorRemoveTarget(_initiator, _target->info.get());
        _target.reset();
    }

    void SenderSession::dropTarget()
    {
        dropCandidate();
        removeCurrent();
        // Sending stops on purpose: it resumes at the present, and the pause is not loss.
        _source->forgetPosition();
    }

    void SenderSession::reattach(mxlFabricsInitiator initiator, SourceCursor& source)
    {
        _initiator = initiator;
        _source = &source;
        _target.reset();
        _candidate.reset();
        _refetchWanted = true;
    }
}
