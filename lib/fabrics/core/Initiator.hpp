// The sending side: registers the reader's grains, keeps a link per target and fans every transfer out to all
// connected targets. A failing target is reported (log line naming it, a status from the next MakeProgress, its
// state) and reconnected with back-off; a lagging one is skipped until it catches up. Neither stops the transfers to
// the others.
#pragma once

#include "common/PollPacer.hpp"
#include "fabrics/core/ConnectionEvent.hpp"
#include "fabrics/core/DevicePayloads.hpp"
#include "fabrics/core/InitiatorEvents.hpp"
#include "fabrics/core/InitiatorTransport.hpp"
#include "fabrics/core/TargetLink.hpp"
#include "fabrics/core/TransferLeg.hpp"
#include "fabrics/core/TransportDomain.hpp"
#include "fabrics/core/WriteCompletion.hpp"
#include "fabrics/protocol/FlowEgress.hpp"
#include "signing/SigningKeys.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mxl::fabrics
{
    class Initiator final
    {
    public:
        // `transport` is opened over `opened`, whose domain the flow's registrations are made in (with a device flow's
        // payload ring where it was registered directly), by the backend named `backend` (tickets must name it);
        // `provider` is the one of the initiator's config (tickets must name it or ANY).
        Initiator(OpenedInterface opened, std::unique_ptr<InitiatorTransport> transport, std::string backend, mxlFabricsProvider provider,
                  FlowMemory const& memory, mxlFabricsInterfaceCaps const& caps);
        ~Initiator();
        Initiator(Initiator const&) = delete;
        Initiator& operator=(Initiator const&) = delete;

        void addTarget(TargetInfo const& ticket);
        void removeTarget(std::uint64_t targetId);
        // To every target; with `legs` (a batch's transfer), to their targets only, each leg settled as the transfer to its
        // target goes, and a leg whose target this initiator does not have failed at once.
        mxlStatus transferGrain(std::uint64_t grainIndex, std::uint16_t start, std::uint16_t end, TransferLegs const* legs = nullptr);
        mxlStatus transferSamples(std::uint64_t headIndex, std::size_t count, TransferLegs const* legs = nullptr);
        // What a batch checks when a transfer is added: INVALID_ARG for a slice range out of the grain or no samples,
        // INVALID_STATE for a flow of the other flavour.
        void checkGrainRange(std::uint16_t start, std::uint16_t end);
        void checkSampleCount(std::size_t count);
        // Zero timeout: one non-blocking pass.
        mxlStatus makeProgress(std::chrono::milliseconds timeout);

        [[nodiscard]] TargetLink const& link(std::uint64_t targetId) const;
        // The ids of the targets, in the order they were added.
        [[nodiscard]] std::vector<std::uint64_t> targetIds() const;

        // Target connections are queued to `events` from now on; null: to no one.
        void reportTo(InitiatorEvents* events) noexcept;
        // Connection requests from now on carry a proof of `key` (signing/AdmissionProof.hpp) for their target's ticket, on
        // connection-oriented transports; none: no proof.
        void proveTicketKey(std::optional<signing::SigningKey> key);

    private:
        // Who posted a write: the link's connection attempt (its token) and the transfer, 0 for a probe.
        struct WriteOwner
        {
            std::uint64_t token = 0;
            std::uint64_t transferId = 0;
            bool commit = false;
            // Payload writes: the flow's bytes the write carries (its length without the protocol's marks).
            std::uint64_t bytes = 0;
        };

        // Torn down in reverse: connections (in the links) before their peers, peers before the transport's queues, the
        // queues before the flow's registrations, those before the domain they were made in.
        std::unique_ptr<TransportDomain> _opened;
        std::string _backend;
        mxlFabricsProvider _provider;
        FlowEgress _egress;
        std::unique_ptr<InitiatorTransport> _transport;
        std::vector<std::unique_ptr<TargetLink>> _links;
        std::optional<signing::SigningKey> _ticketKey;
        // Writes to one target land in posting order, so payload writes need only complete when read (the commit after
        // them is delivery-complete); otherwise they complete when delivered.
        bool _orderedWrites;
        std::uint64_t _lastToken = 0;
        std::uint64_t _lastWrite = 0;
        std::uint64_t _lastTransfer = 0;
        // Every write in flight, by the context it was posted with.
        std::unordered_map<std::uint64_t, WriteOwner> _writes;
        InitiatorEvents* _events = nullptr;

        // Starts a connection attempt on the link's current token.
        void connect(TargetLink& link);
        // Tears the link's connection down (orderly when it was established); the link is idle after it.
        void disconnect(TargetLink& link) noexcept;
        // Consumes connection events; connectionless, drops connected targets that have ended and posts the probe writes
        // the provider refused so far.
        void pollEvents();
        // A connected target with writes waiting whose process has ended will never complete them (shm never reports a
        // dead peer), and waiting the full completion patience for them would hold back the caller for the others.
        void dropEndedPeers();
        // Connectionless: posts the probe write of a connecting link; false while the provider answers EAGAIN.
        bool postProbe(TargetLink& link);
        // Sleeps until something may have happened, at most `timeout`: in the transport where the domain can wait,
        // otherwise by pacing polls up to `deadline`.
        void wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline);

        void pass();
        // Targets whose writes stopped completing (a dead shm peer) are dropped and retried like lost connections.
        void expireStalledLinks();
        // Targets whose writes wait for completions longer than a live target should are skipped until they catch up.
        void markLaggingLinks();
        void retryDueLinks();
        TargetLink* linkOf(std::uint64_t token) noexcept;
        std::uint64_t nextToken() noexcept;
        // The link's connection attempt succeeded: its connection takes writes from now on.
        void connected(TargetLink& link);
        // The connection failed or was lost: drop it, report once, retry after the link's back-off.
        void disconnected(TargetLink& link, std::string reason, mxlStatus status);
        // Decides what a connection event means for its target; events of a dropped attempt are ignored.
        void onEvent(ConnectionEvent const& event);
        void handle(WriteCompletion const& completion);
        void completed(TargetLink& link, WriteOwner const& owner);
        // Reads one completion if there is one, then posts the commits it made ready; false when there was none.
        bool drive();
        // Decides and posts the commit of every transfer whose payload writes all completed (read safety).
        void postReadyCommits(TargetLink& link);
        // Posts one write, draining completions while the transmit queue is full for up to `patience` (zero: one attempt,
        // nothing drained); false when it stayed full. Throws on other errors, and INTERRUPTED when the link was lost
        // meanwhile.
        bool post(TargetLink& link, RemoteWrite const& write, WriteOwner const& owner, std::chrono::milliseconds patience);
        // Waits (draining completions) until no transfer of other data is in flight to the unit of the target that a
        // transfer of `source` fills; NOT_READY when that takes longer than the post patience (a target a ring behind).
        void awaitUnit(TargetLink& link, SourceRange const& source);
        void transferTo(TargetLink& link, TransferPlan plan, std::shared_ptr<TransferLeg> leg);
        // A transfer whose payload writes could not all be posted (`unposted` of them): with none posted it is dropped
        // and may be sent again; otherwise the target holds part of it, and it can only be announced lost.
        void abandon(TargetLink& link, std::uint64_t id, SourceRange const& source, std::size_t unposted, bool nothingPosted);
        // Plans and posts one transfer of `source` to each connected target (with `legs`, to their targets only, settling
        // them); a target that fails is reported, the others go on.
        mxlStatus fanOut(std::string const& what, SourceRange const& source,
                         std::function<std::optional<TransferPlan>(TargetLink&)> const& plan, TransferLegs const* legs);
        // The batch transfers in flight to the link will not complete: `reason` says why.
        static void failLegs(TargetLink const& link, std::string_view reason);
        void report(mxlFabricsEventType type, TargetLink const& link, std::string_view reason);
        mxlStatus summary();
    };
}
