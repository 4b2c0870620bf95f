// The initiator's link supervision: one link per target, its connection state machine (connect, probe, established,
// lost, retried with back-off), the detection of targets that stalled, ended or lag behind the others, and the events
// and statuses that report it. The transfer pipeline (Initiator) posts on the links this keeps connected.
#pragma once

#include "fabrics/core/ConnectionEvent.hpp"
#include "fabrics/core/InitiatorEvents.hpp"
#include "fabrics/core/InitiatorTransport.hpp"
#include "fabrics/core/TargetLink.hpp"
#include "fabrics/core/WriteLedger.hpp"
#include "fabrics/protocol/TransportDomain.hpp"
#include "signing/SigningKeys.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::fabrics
{
    // How long writes to a connected target may wait for a completion before it counts as lagging. Far above a healthy
    // completion (milliseconds for the largest grains), and well inside a source ring's default 200 ms history, so that
    // the other targets, held back this long once, catch up without losing a grain.
    inline constexpr auto lagPatience = std::chrono::milliseconds{100};

    class LinkSupervisor
    {
    public:
        // Links made over `transport` in `opened`, for tickets of backend `backend` and provider `provider` (or ANY);
        // connectionless links first post `probe`, recorded in `writes`.
        LinkSupervisor(TransportDomain const& opened, InitiatorTransport& transport, WriteLedger& writes, RemoteWrite probe,
                       std::string backend, mxlFabricsProvider provider);
        // Fails the batch transfers in flight and closes every connection.
        ~LinkSupervisor();
        LinkSupervisor(LinkSupervisor const&) = delete;
        LinkSupervisor& operator=(LinkSupervisor const&) = delete;

        // Throws EXISTS for a target added already, INVALID_ARG for a ticket of another backend, transport or provider.
        void checkAddable(TargetInfo const& ticket) const;
        void add(TargetInfo const& ticket, std::unique_ptr<TransportPeer> peer);
        // Fails its batch transfers and closes its connection; NOT_FOUND for a target not added.
        void remove(std::uint64_t targetId);

        [[nodiscard]] std::vector<std::unique_ptr<TargetLink>>& links() noexcept
        {
            return _links;
        }
        [[nodiscard]] TargetLink const& link(std::uint64_t targetId) const;
        [[nodiscard]] std::vector<std::uint64_t> targetIds() const;
        [[nodiscard]] bool has(std::uint64_t targetId) const noexcept;
        [[nodiscard]] TargetLink* linkOf(std::uint64_t token) noexcept;
        // Links not connected (idle and retrying ones too): their progress comes as connection events.
        [[nodiscard]] bool anyConnecting() const noexcept;

        void reportTo(InitiatorEvents* events) noexcept;
        void proveTicketKey(std::optional<signing::SigningKey> key);
        void markIncarnation(bool mark) noexcept;

        // Consumes connection events; connectionless, drops connected targets that have ended and posts the probe writes
        // the provider refused so far.
        void pollEvents();
        // Targets whose writes stopped completing (a dead shm peer) are dropped and retried like lost connections.
        void expireStalled();
        // Targets whose writes wait for completions longer than a live target should are skipped until they catch up.
        void markLagging();
        void retryDue();

        // A write of the link's current attempt completed: a connectionless link's probe makes it connected. True when
        // it was the probe.
        bool probeCompleted(TargetLink& link);
        // The connection failed or was lost: drop it, report once, retry after the link's back-off.
        void disconnected(TargetLink& link, std::string reason, mxlStatus status);

        // A failure of a link to report (once), MXL_ERR_INTERRUPTED with no targets left on a connection-oriented
        // transport, NOT_READY while a link has work pending, else OK.
        mxlStatus summary();

    private:
        TransportDomain const& _opened;
        InitiatorTransport& _transport;
        WriteLedger& _writes;
        RemoteWrite _probe;
        std::string _backend;
        mxlFabricsProvider _provider;
        std::vector<std::unique_ptr<TargetLink>> _links;
        std::optional<signing::SigningKey> _ticketKey;
        bool _markIncarnation = false;
        std::uint64_t _lastToken = 0;
        InitiatorEvents* _events = nullptr;

        std::uint64_t nextToken() noexcept;
        // Starts a connection attempt on the link's current token.
        void connect(TargetLink& link);
        // Tears the link's connection down (orderly when it was established); the link is idle after it.
        static void disconnect(TargetLink& link) noexcept;
        // The link's connection attempt succeeded: its connection takes writes from now on.
        void connected(TargetLink& link);
        // Decides what a connection event means for its target; events of a dropped attempt are ignored.
        void onEvent(ConnectionEvent const& event);
        // A connected target with writes waiting whose process has ended will never complete them (shm never reports a
        // dead peer), and waiting the full completion patience for them would hold back the caller for the others.
        void dropEndedPeers();
        // Connectionless: posts the probe write of a connecting link; false while the provider answers EAGAIN.
        bool postProbe(TargetLink& link);
        // The batch transfers in flight to the link will not complete: `reason` says why.
        static void failLegs(TargetLink const& link, std::string_view reason);
        void report(mxlFabricsEventType type, TargetLink const& link, std::string_view reason);
    };
}
