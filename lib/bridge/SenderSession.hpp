// A sender's session with the target of its current ticket: it adds the target (make before break: a new incarnation
// is added beside a connected target, which keeps receiving until the new one connects, or has not been connected for
// the stall timeout), waits for the connection, moves the source's units one at a time, and heals: a connection lost
// for longer than the stall timeout, or a source that produces while nothing is delivered, re-adds the target with
// back-off. A current ticket that gives no connection (or no delivery) for the connect timeout is reported stale; a new
// one beside the current target is warned about once. The front end fetches tickets and hands them over (offer); it
// fetches again, without waiting for its poll interval, when takeRefetchWanted() says so.
#pragma once

#include "Metrics.hpp"
#include "SourceCursor.hpp"

#include <client/FabricsHandles.hpp>
#include <client/ServiceStatusFile.hpp>
#include <common/Backoff.hpp>
#include <directory/Ticket.hpp>

#include <mxl/fabrics.h>
#include <mxl/fabrics_state.h>
#include <mxl/flowinfo.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mxl::bridge
{
    struct SenderSettings
    {
        // For messages.
        std::string flowId;
        // The provider this sender's initiator speaks (a ticket for another is refused).
        std::string provider;
        // A ticket that gives no connection, or no delivery, for this long is reported stale.
        std::chrono::milliseconds connectTimeout{5000};
        // A connection lost for this long, or a source producing while nothing is delivered, re-adds the target.
        std::chrono::milliseconds stallTimeout{2000};
        // A unit that completes later than this after its timestamp counts as late.
        std::chrono::nanoseconds lateAfter{std::chrono::milliseconds{40}};
        std::chrono::milliseconds backoffInitial{250};
        std::chrono::milliseconds backoffMax{8000};
    };

    // How a new incarnation takes the place of a target that is connected.
    enum class Handover
    {
        // Added beside it: the current target keeps receiving until the new one connects, or until it is lost itself.
        OnceConnected,
        // Replaced at once: an IS-05 activation chose the new receiver, and the old one may take another sender's grains
        // from now on.
        AtOnce,
    };

    class SenderSession
    {
    public:
        using Clock = std::chrono::steady_clock;

        // What the front end hears of besides the library log.
        class Observer
        {
        public:
            // The connection to the current target is up.
            virtual void connected() = 0;
            // A target is being added: what the loop is doing from now on (a watchdog names it should a call not return).
            virtual void establishing(std::string const& activity) = 0;

        protected:
            ~Observer() = default;
        };

        // `initiator` reads the source's flow and is set up before the first step(); all four outlive the session.
        SenderSession(mxlFabricsInitiator initiator, SourceCursor& source, mxlFlowConfigInfo const& flow, Metrics& metrics,
                      SenderSettings settings, Observer& observer);

        SenderSession(SenderSession const&) = delete;
        SenderSession& operator=(SenderSession const&) = delete;

        // Why this sender cannot use `ticket` (provider, grains or samples, unreadable by the library), or "".
        [[nodiscard]] std::string unusable(directory::Ticket const& ticket) const;

        // A ticket the front end fetched from `origin`: a new incarnation replaces the current target as `handover` says;
        // the current one takes the place of a new one not yet connected; one being connected, or one refused for good,
        // changes nothing; one this sender cannot use is reported (once) and ignored.
        void offer(directory::Ticket ticket, std::string const& origin, Handover handover = Handover::OnceConnected);

        // Logs `problem` unless it was logged already since the last target was added; "stale" while there is no target.
        void reportTicketProblem(std::string const& problem);

        // One turn of the front end's loop: with a target, waits for its connection or moves the next unit, healing as
        // needed; without one, waits a moment. Returns within about a second whatever the target does.
        void step(Clock::time_point now);

        // True once after the target was lost, looked stale or stalled: fetch the ticket again now.
        [[nodiscard]] bool takeRefetchWanted() noexcept;

        [[nodiscard]] bool hasTarget() const noexcept
        {
            return _target.has_value();
        }

        // Removes the current target and one being connected, if any: sending stops on purpose until a ticket is offered
        // again, and resumes at the present without counting the pause as lost.
        void dropTarget();

        // Empty, or the current target, then the one being connected in its place if any.
        [[nodiscard]] std::vector<client::ServiceTargetStatus> targetStatus(Clock::time_point now) const;

        // Removes the targets, if any, and drives progress so that the graceful disconnect (this one's, or that of a target
        // removed before) reaches it, for at most a second.
        void disconnect();

        // Sends with `initiator`, read from `source`, from now on: the source's flow was re-created (the same flow again),
        // and a new initiator set up on a new reader of it, which holds no target. Call after disconnect(); the next ticket
        // offered adds the target again.
        void reattach(mxlFabricsInitiator initiator, SourceCursor& source);

    private:
        // The target of one ticket, as added to the initiator.
        struct Established
        {
            directory::Ticket ticket;
            // Where the ticket came from, for messages.
            std::string origin;
            client::OwnedTargetInfo info;
            Clock::time_point since;
            mxlFabricsTargetState state = MXL_FABRICS_TARGET_NOT_CONNECTED;
            Clock::time_point stateSince;
            // The connection was up at least once on this ticket.
            bool connected = false;
            // A grain or batch got through on this ticket.
            bool delivered = false;
            bool reportedStale = false;
            // What the library said with the latest state change.
            std::string reason;
            // A write was refused on this ticket and that was logged: it would be refused again for every unit (e.g. a
            // batch longer than the target's bounce-buffer entries), and the journal needs it once.
            bool reportedWriteFailure = false;
        };

        mxlFabricsInitiator _initiator;
        SourceCursor* _source;
        // Grains or batches: what tickets must carry, the same for every source the session reads.
        TransferUnit _unit;
        mxlFlowConfigInfo _flow;
        Metrics& _metrics;
        SenderSettings _settings;
        Observer& _observer;
        Backoff _backoff;
        std::optional<Established> _target;
        // A new incarnation added beside a connected target, which keeps receiving until this one connects.
        std::optional<Established> _candidate;
        Clock::time_point _lastDelivery{};
        bool _refetchWanted = false;
        std::set<std::string> _reportedTicketProblems;
        // The text of the latest ticket found unusable: not looked at again until another comes.
        std::string _unusableText;
        // A ticket whose target the library refused to add (it does not fit the flow), or refused every batch (its
        // bounce-buffer entries are too small for them): not added again.
        std::optional<directory::Ticket> _misfit;

        static std::int64_t msSince(Clock::time_point then, Clock::time_point now);
        // Removes the current target (if any) and adds the one of `ticket`; false when the library refused it.
        bool establish(directory::Ticket ticket, std::string origin, std::string const& why);
        // Adds the target of `ticket` beside the connected current one, in place of any earlier candidate.
        void propose(directory::Ticket ticket, std::string const& origin);
        // The library's form of `ticket`; nullopt, reported, when it refuses the text.
        [[nodiscard]] std::optional<client::OwnedTargetInfo> targetInfo(directory::Ticket const& ticket, std::string const& origin);
        // Reports the library's refusal to add the target of `ticket`; one that does not fit the flow is not tried again.
        void reportRefused(directory::Ticket const& ticket, std::string const& origin, mxlStatus status);
        // Tells the observer (and so the watchdog) that the target of `ticket` is being added.
        void announceEstablishing(directory::Ticket const& ticket, std::string const& origin);
        // Promotes the candidate once it connected, or once the current target is gone or has not been connected for the
        // stall timeout; drops it once the library no longer knows it.
        void superviseCandidate(Clock::time_point now);
        void promoteCandidate(Clock::time_point now, std::string const& why);
        void dropCandidate();
        void removeCurrent();
        void refreshState(Clock::time_point now);
        void onConnected(Clock::time_point now);
        void awaitConnection(Clock::time_point now);
        void sendNext();
        // Posts `unit` to the current target alone, in `batch` (made here), which says when it got there: beside a
        // candidate not connected yet, the initiator's progress reports work pending whatever the current target did.
        [[nodiscard]] mxlStatus postAlone(SourceUnit const& unit, std::optional<client::FabricsBatch>& batch);
        // Posts `unit` (to the current target alone beside a candidate) and drives progress until it completed; false
        // when it did not within the transfer timeout.
        bool transfer(SourceUnit const& unit);
        // The batch's MXL_FABRICS_TRANSFER_* state; FAILED when the library no longer knows it.
        [[nodiscard]] std::uint32_t batchState(mxlFabricsBatch batch) const;
        // What the library counted for the target as never committed valid (docs/fabrics.md, "Read safety").
        [[nodiscard]] std::uint64_t invalidatedTransfers() const;
        void onUndelivered(Clock::time_point now);
        // Drops the current target for good: its ticket is not added again, a new epoch is waited for.
        void refuseTicket(std::string const& why);
        void reportStale(std::string const& why);
    };
}
