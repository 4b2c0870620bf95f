// What an initiator knows about one target: its ticket, its connection state and its writes in flight.
#pragma once

#include <mxl/fabrics_state.h>

#include "common/RepeatLog.hpp"
#include "fabrics/core/TransferLeg.hpp"
#include "fabrics/core/TransportConnection.hpp"
#include "fabrics/core/TransportPeer.hpp"
#include "fabrics/protocol/TransferPlan.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace mxl::fabrics
{
    using Clock = std::chrono::steady_clock;

    // Added, first attempt not made yet.
    struct LinkIdle
    {
    };

    // Connection-oriented: waiting for the transport's Established event. Connectionless: a one-byte probe write (no
    // immediate data, so the target sees nothing) must complete first, because shm answers the first writes to a new
    // peer with EAGAIN until that peer has progressed through its side of the address exchange.
    struct LinkConnecting
    {
        std::unique_ptr<TransportConnection> connection;
        bool probePosted = false;
    };

    struct LinkConnected
    {
        std::unique_ptr<TransportConnection> connection;
        Clock::time_point since;
        // A transfer completed on it: the connection works, whatever ends it later.
        bool delivered = false;
    };

    struct LinkDisconnected
    {
        std::string reason;
        Clock::time_point retryAt;
    };

    // A transfer to one target between its first payload write and the completion of its commit.
    struct PendingTransfer
    {
        enum class Step
        {
            // Payload writes in flight (or none left: the commit is to be decided).
            Payload,
            // Decided (the plan's commit, or the loss commit); waiting for room in the transmit queue.
            Commit,
            CommitInFlight,
        };

        std::uint64_t id = 0;
        TransferPlan plan;
        Clock::time_point postedAt;
        // Payload writes not yet completed, or never posted.
        std::size_t payloadLeft = 0;
        // A payload write could not be posted: the target holds part of it, so the transfer can only be announced lost.
        bool payloadFailed = false;
        Step step = Step::Payload;
        // A batch's transfers only: settled when the commit completed or the transfer is dropped.
        std::shared_ptr<TransferLeg> leg;
        // The commit decided is the loss commit: the target is told the data is lost.
        bool lost = false;
    };

    struct TargetLink
    {
        TargetInfo ticket;
        // Printable name for logs and reasons: "target <id> (<provider> <address>)".
        std::string name;
        // Declared before the state, so that it outlives the connections made to it.
        std::unique_ptr<TransportPeer> peer;
        std::variant<LinkIdle, LinkConnecting, LinkConnected, LinkDisconnected> state;
        // The context of every operation of the current connection attempt; renewed on each attempt so that late
        // completions of a dropped connection are recognised and ignored.
        std::uint64_t token = 0;
        std::size_t outstandingWrites = 0;
        // When the oldest write still in flight was posted or the last completion arrived. shm never reports a dead
        // peer (its writes simply stop completing), so a target that completes nothing for a while counts as gone.
        Clock::time_point progressAt{};
        // Connectionless: when to ask the connection again whether the target has ended (TransportConnection::check).
        Clock::time_point peerCheckAt{};
        // Transfers whose payload or commit is still in flight, in posting order. A few at a time, kept in an array whose
        // room stays, so that a transfer allocates nothing once the link has run.
        std::vector<PendingTransfer> transfers;
        std::chrono::milliseconds backoff{100};
        unsigned failedAttempts = 0;
        bool everConnected = false;
        // A failure to report from the next MakeProgress call (once).
        std::optional<mxlStatus> pendingError;
        // Connected, but its writes have waited for a completion longer than the lag patience (a stopped or overloaded
        // process): transfers skip it, and MakeProgress does not wait for it, until its writes complete.
        bool lagging = false;
        // Transfers posted to this target, and transfers it missed (not connected, or lagging).
        std::uint64_t transfersPosted = 0;
        std::uint64_t transfersSkipped = 0;
        // Transfers whose source changed before their payload had been read (or that could not be posted whole): never
        // committed as valid at the target.
        std::uint64_t transfersInvalidated = 0;
        // Connections established after the first.
        std::uint64_t reconnects = 0;
        // Transfers to this target that failed: each is its caller's status, and the log says each kind now and then.
        RepeatLog transferFailures;
        // Per ring slot of the target: the grain whose slices [0, end) were last posted to it whole, in order.
        struct SlicesSent
        {
            std::uint64_t grainIndex = 0;
            std::uint16_t end = 0;
        };
        std::unordered_map<std::uint64_t, SlicesSent> slicesSent;

        void notePosted(Clock::time_point now) noexcept;
        void noteCompleted(Clock::time_point now) noexcept;
        // Writes are in flight and none completed for longer than `patience`.
        [[nodiscard]] bool stalled(Clock::time_point now, std::chrono::milliseconds patience) const noexcept;
        // Everything posted to this target before this moment has completed: when its oldest transfer in flight was
        // posted, or `now` with none in flight.
        [[nodiscard]] Clock::time_point settledUpTo(Clock::time_point now) const noexcept;
        // Stalled, while `other` completed what was posted to it more than `patience` after this target's oldest transfer
        // in flight. A loaded machine slows every target alike; only a target that falls behind another one lags.
        [[nodiscard]] bool lagsBehind(TargetLink const& other, Clock::time_point now, std::chrono::milliseconds patience) const noexcept;

        // Where a slice range [start, ...) of a grain must start for this target: `start` when the target was sent the
        // grain's slices before it, else 0. A target that missed the earlier ranges (skipped while lagging or not
        // connected, a post that failed) gets the grain from its first slice, with the in-flight mark, so that it never
        // publishes slices it did not receive.
        [[nodiscard]] std::uint16_t firstSliceFor(std::uint64_t grainIndex, std::uint16_t start) const noexcept;
        // The transfer's payload writes were all posted: the target will hold slices [0, end) of the grain.
        void noteSlicesSent(std::uint64_t grainIndex, std::uint16_t end);
        void forgetSlicesSent(std::uint64_t grainIndex) noexcept;

        [[nodiscard]] mxlFabricsTargetState publicState() const noexcept;
        // Something still to do before MakeProgress may report OK: connecting for the first time, or writes in flight to
        // a target that keeps up.
        [[nodiscard]] bool hasPendingWork() const noexcept;
    };
}
