// A sender to a fixed set of targets, each added once from its ticket (tickets given on a command line, not fetched):
// the library fans each unit out to every connected target and reconnects lost ones in the background. The session
// waits until every target accepted, moves the source's units one at a time (each completed at every target that keeps
// up before the next), carries on while at least one target is connected, and ends with a graceful disconnect. A ticket
// that gives no connection, or no delivery, within the connect timeout is reported stale (a usage error: the ticket is
// wrong, not the program); every target lost for that long, or nothing delivered for that long, is a failure. Both
// are thrown as client::ClientError. What it sees goes to its Observer, which prints and counts.
#pragma once

#include "SourceCursor.hpp"

#include <mxl/fabrics.h>
#include <mxl/fabrics_state.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace mxl::bridge
{
    class FanOutSession
    {
    public:
        using Clock = std::chrono::steady_clock;

        class Observer
        {
        public:
            // True when the session should end (a signal, or enough units moved).
            [[nodiscard]] virtual bool stopRequested() = 0;
            // Every target accepted a connection.
            virtual void connected(std::size_t targets) = 0;
            // Target `index` (in the order given) changed: connected, or disconnected with the library's reason.
            virtual void targetConnected(std::size_t index) = 0;
            virtual void targetDisconnected(std::size_t index, std::string const& reason) = 0;
            // Target `index` started lagging (its writes stopped completing, so the library skips it) or caught up,
            // with the transfers skipped so far.
            virtual void targetLagging(std::size_t index, bool lagging, std::uint64_t skipped) = 0;
            // The transfers each target skipped and was told were invalidated, in target order, as of now.
            virtual void targetCounts(std::vector<std::uint64_t> const& skipped, std::vector<std::uint64_t> const& invalidated) = 0;
            // A report is due.
            [[nodiscard]] virtual bool reportDue() = 0;
            // Prints the report; targetCounts() was just called, so its per-target counts are exact.
            virtual void report() = 0;
            // `unit` reached every connected target that keeps up, `latency` after it was posted.
            virtual void delivered(SourceUnit const& unit, std::chrono::nanoseconds latency) = 0;
            // `unit` did not complete within the transfer timeout (it counts lost too).
            virtual void timedOut(std::string const& unit, std::chrono::seconds timeout) = 0;
            virtual void lost(std::uint64_t units) = 0;
            // The source's ring moved past the session, which jumped to the present.
            virtual void fellBehind() = 0;
            // The graceful disconnect reached every target (or did not within `timeout`).
            virtual void disconnected(bool confirmed, std::chrono::seconds timeout) = 0;

        protected:
            ~Observer() = default;
        };

        // `initiator` is set up on the source's flow (`flowId`, for messages); the tickets' targets are added here
        // (ClientError, Usage, naming the target by its position, when one does not fit). Both outlive the session.
        FanOutSession(mxlFabricsInitiator initiator, std::vector<mxlFabricsTargetInfo> targets,
                      std::chrono::duration<double> connectTimeout, std::string const& flowId);

        FanOutSession(FanOutSession const&) = delete;
        FanOutSession& operator=(FanOutSession const&) = delete;

        // Connects, sends `source`'s units until `observer` says stop, and disconnects; once.
        void run(SourceCursor& source, Observer& observer);

    private:
        struct Target
        {
            mxlFabricsTargetInfo info;
            // As last reported, so that only changes are told.
            mxlFabricsTargetState state = MXL_FABRICS_TARGET_NOT_CONNECTED;
            std::string reason;
            bool lagging = false;
            std::uint64_t skipped = 0;
        };

        mxlFabricsInitiator _initiator;
        std::vector<Target> _targets;
        std::chrono::duration<double> _connectTimeout;
        // During run().
        SourceCursor* _sourceOfRun = nullptr;
        Observer* _observerOfRun = nullptr;
        std::size_t _connectedTargets = 0;
        Clock::time_point _nextStateCheck;
        // When a unit last reached a target (or the connection was made), and whether one ever did.
        Clock::time_point _lastDelivery;
        bool _everDelivered = false;

        // False when the observer said stop before every target accepted.
        bool connect();
        // Asks the library for each target's state and counters, tells what changed; returns how many are connected.
        std::size_t refreshTargetStates();
        // With no target connected: waits for the library to reconnect one, at most the connect timeout. False when the
        // observer said stop; throws when none came back.
        bool awaitReconnection();
        void send();
        // Reads each target's skipped transfers; true when every count grew since the last look.
        bool updateSkips();
        // Posts `unit` and waits until every connected target that keeps up has it. False when it reached none in time.
        bool transfer(SourceUnit const& unit);
        // After an undelivered unit: throws when nothing was delivered for the connect timeout.
        void checkDeliveries() const;
        void disconnect();
    };
}
