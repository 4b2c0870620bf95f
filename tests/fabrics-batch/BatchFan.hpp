// A source flow, one or two targets on flows of their own domains, and an initiator whose events are started before it
// is given the targets, recording every event its handlers saw: the fixture of the batch tests. The test's thread
// drives everything: the initiator's progress, the targets' reads (tcp and shm move bytes only while a target reads)
// and the initiator's dispatch whenever its descriptor polls readable.
#pragma once

#include "FabricsHarness.hpp"
#include "Link.hpp"

#include <mxl/fabrics_batch.h>
#include <mxl/fabrics_events.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mxl::test::fabrics
{
    struct Receiver
    {
        Receiver(Transport const& transport, std::string const& flowFile, std::string const& tag);

        FlowDomain domain;
        Flow flow;
        TargetEnd target;
        // The grain indices (or sample head indices) its reads or its arrival events gave, in order.
        std::vector<std::uint64_t> arrived;
        // The target's event descriptor once startEvents made its library thread read (and progress) it; -1 before.
        int eventsFd = -1;

        [[nodiscard]] bool hasArrived(std::uint64_t index) const;
        // shm moves a peer's next write only after the target progressed: a batch of several transfers to an
        // in-process shm target needs the target's own thread.
        void startEvents();
        static void recordArrival(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);
    };

    struct BatchFan
    {
        BatchFan(Transport const& transport, std::string const& flowFile, std::size_t targets, std::size_t queueCapacity = 0);

        BatchFan(BatchFan const&) = delete;
        BatchFan& operator=(BatchFan const&) = delete;

        FlowDomain sourceDomain;
        Flow source;
        std::vector<std::unique_ptr<Receiver>> receivers;
        InitiatorEnd initiator;
        bool grains;
        int fd = -1;
        std::vector<mxlFabricsEvent> seen;

        // The handler of every initiator event type: appends to `seen` (`userData` is the fixture).
        static void record(mxlFabricsInitiator initiator, mxlFabricsEvent const* event, void* userData);

        [[nodiscard]] mxlFabricsTargetInfo ticket(std::size_t receiver) const;
        [[nodiscard]] std::uint64_t targetId(std::size_t receiver) const;

        // One round: a non-blocking progress call, a non-blocking read (or dispatch, once its events are started) at every
        // target still there, and a dispatch when the initiator's descriptor polls readable within 1 ms.
        void step();
        // Steps until `done`; false after `timeout`.
        bool driveUntil(std::function<bool()> const& done, std::chrono::milliseconds timeout = std::chrono::seconds{20});

        [[nodiscard]] mxlFabricsBatch createBatch() const;
        [[nodiscard]] mxlFabricsBatchSummary summary(mxlFabricsBatch batch) const;
        [[nodiscard]] mxlFabricsTransferStatus status(mxlFabricsBatch batch, std::uint32_t transfer) const;
        [[nodiscard]] mxlFabricsTransferTargetStatus targetStatus(mxlFabricsBatch batch, std::uint32_t transfer,
                                                                  std::size_t receiver) const;
        // Steps until every receiver read `index`.
        bool awaitArrival(std::uint64_t index);
        // Steps until the batch is no longer WAITING.
        bool settleBatch(mxlFabricsBatch batch);
        [[nodiscard]] std::vector<mxlFabricsEvent> seenOf(std::uint32_t type) const;
    };
}
