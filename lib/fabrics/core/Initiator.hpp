// The sending side: registers the reader's grains and fans every transfer out to all connected targets, posting each
// transfer's payload writes, then its commit once they completed and the source still held the data (read safety).
// The links to the targets are supervised by LinkSupervisor: a failing target is reported (log line naming it, a
// status from the next MakeProgress, its state) and reconnected with back-off; a lagging one is skipped until it
// catches up. Neither stops the transfers to the others.
#pragma once

#include "common/PollPacer.hpp"
#include "fabrics/core/DevicePayloads.hpp"
#include "fabrics/core/InitiatorEvents.hpp"
#include "fabrics/core/InitiatorTransport.hpp"
#include "fabrics/core/LinkSupervisor.hpp"
#include "fabrics/core/TargetLink.hpp"
#include "fabrics/core/TransferLeg.hpp"
#include "fabrics/core/WriteCompletion.hpp"
#include "fabrics/core/WriteLedger.hpp"
#include "fabrics/protocol/FlowEgress.hpp"
#include "fabrics/protocol/TransportDomain.hpp"
#include "signing/SigningKeys.hpp"

#include <memory>
#include <optional>
#include <string>
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
        // Connection requests from now on name their ticket's incarnation where they carry no proof (SetupOptions).
        void markIncarnation(bool mark) noexcept;

    private:
        // Torn down in reverse: connections (in the links) before their peers, peers before the transport's queues, the
        // queues before the flow's registrations, those before the domain they were made in.
        std::unique_ptr<TransportDomain> _opened;
        FlowEgress _egress;
        std::unique_ptr<InitiatorTransport> _transport;
        WriteLedger _writes;
        LinkSupervisor _links;
        // Writes to one target land in posting order, so payload writes need only complete when read (the commit after
        // them is delivery-complete); otherwise they complete when delivered.
        bool _orderedWrites;
        std::uint64_t _lastTransfer = 0;

        // Sleeps until something may have happened, at most `timeout`: in the transport where the domain can wait,
        // otherwise by pacing polls up to `deadline`.
        void wait(std::chrono::milliseconds timeout, PollPacer& pacer, Clock::time_point deadline);
        void pass();
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
        // Plans (`plan(link)`: the transfer, or nullopt when the target holds it already) and posts one transfer of
        // `source` to each connected target (with `legs`, to their targets only, settling them); a target that fails is
        // reported, the others go on.
        template <typename Plan>
        mxlStatus fanOut(SourceRange const& source, Plan const& plan, TransferLegs const* legs);
        // A leg of `legs` whose target is not added fails.
        void failOrphanLegs(TransferLegs const& legs);
    };
}
