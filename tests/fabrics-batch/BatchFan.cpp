#include "BatchFan.hpp"

#include <doctest/doctest.h>

#include <poll.h>

#include <algorithm>

using namespace std::chrono_literals;

namespace mxl::test::fabrics
{
    namespace
    {
        char const* targetNode(Transport const& transport)
        {
            // shm: every target of the process on an address of its own.
            return transport.provider == MXL_FABRICS_PROVIDER_SHM ? nullptr : transport.targetNode.c_str();
        }

        char const* initiatorNode(Transport const& transport)
        {
            return transport.initiatorNode.empty() ? nullptr : transport.initiatorNode.c_str();
        }

        bool isGrainFlow(Flow const& flow)
        {
            return flow.config.common.format != MXL_DATA_FORMAT_AUDIO;
        }
    }

    Receiver::Receiver(Transport const& transport, std::string const& flowFile, std::string const& tag)
        : domain{tag}
        , flow{domain, flowDefinition(flowFile)}
        , target{domain, flow, interfaceConfig(transport.provider, targetNode(transport), nullptr)}
    {
        REQUIRE(target.setupStatus == MXL_STATUS_OK);
    }

    bool Receiver::hasArrived(std::uint64_t index) const
    {
        return std::find(arrived.begin(), arrived.end(), index) != arrived.end();
    }

    void Receiver::startEvents()
    {
        REQUIRE(mxlFabricsTargetSetEventHandler(target.target, MXL_FABRICS_EVENT_GRAIN_ARRIVED, &Receiver::recordArrival, this) ==
                MXL_STATUS_OK);
        REQUIRE(mxlFabricsTargetSetEventHandler(target.target, MXL_FABRICS_EVENT_SAMPLES_ARRIVED, &Receiver::recordArrival, this) ==
                MXL_STATUS_OK);
        REQUIRE(mxlFabricsTargetStartEvents(target.target, 0, &eventsFd) == MXL_STATUS_OK);
    }

    void Receiver::recordArrival(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto& receiver = *static_cast<Receiver*>(userData);
        receiver.arrived.push_back(event->type == MXL_FABRICS_EVENT_GRAIN_ARRIVED ? event->grain.index : event->samples.headIndex);
    }

    BatchFan::BatchFan(Transport const& transport, std::string const& flowFile, std::size_t targets, std::size_t queueCapacity)
        : sourceDomain{"batch-src"}
        , source{sourceDomain, flowDefinition(flowFile)}
        , receivers{}
        , initiator{sourceDomain, source, interfaceConfig(transport.provider, initiatorNode(transport), nullptr)}
        , grains{isGrainFlow(source)}
    {
        for (std::size_t i = 0; i < targets; ++i)
        {
            receivers.push_back(std::make_unique<Receiver>(transport, flowFile, "batch-dst" + std::to_string(i)));
        }
        for (std::uint32_t type = MXL_FABRICS_EVENT_TARGET_CONNECTED; type <= MXL_FABRICS_EVENT_BATCH_COMPLETED; ++type)
        {
            REQUIRE(mxlFabricsInitiatorSetEventHandler(initiator.initiator, type, &BatchFan::record, this) == MXL_STATUS_OK);
        }
        REQUIRE(mxlFabricsInitiatorStartEvents(initiator.initiator, queueCapacity, &fd) == MXL_STATUS_OK);
        REQUIRE(fd >= 0);
        for (auto const& receiver : receivers)
        {
            REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, receiver->target.ticket) == MXL_STATUS_OK);
        }
        REQUIRE(driveUntil([&] { return seenOf(MXL_FABRICS_EVENT_TARGET_CONNECTED).size() == targets; }));
    }

    void BatchFan::record(mxlFabricsInitiator, mxlFabricsEvent const* event, void* userData)
    {
        static_cast<BatchFan*>(userData)->seen.push_back(*event);
    }

    mxlFabricsTargetInfo BatchFan::ticket(std::size_t receiver) const
    {
        return receivers.at(receiver)->target.ticket;
    }

    std::uint64_t BatchFan::targetId(std::size_t receiver) const
    {
        return ticketNumber(ticket(receiver), "id");
    }

    void BatchFan::step()
    {
        static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(initiator.initiator));
        for (auto const& receiver : receivers)
        {
            if (receiver->target.target == nullptr)
            {
                continue;
            }
            if (receiver->eventsFd >= 0)
            {
                std::size_t dispatched = 0;
                auto const status = mxlFabricsTargetDispatchEvents(receiver->target.target, 0, &dispatched);
                REQUIRE((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
                continue;
            }
            if (grains)
            {
                if (auto const index = receiver->target.read(0ms))
                {
                    receiver->arrived.push_back(*index);
                }
                continue;
            }
            std::uint64_t head = 0;
            std::size_t count = 0;
            auto const status = mxlFabricsTargetReadSamplesNonBlocking(receiver->target.target, &head, &count);
            REQUIRE((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
            if (status == MXL_STATUS_OK)
            {
                receiver->arrived.push_back(head);
            }
        }
        pollfd descriptor{fd, POLLIN, 0};
        if (::poll(&descriptor, 1, 1) == 1)
        {
            std::size_t dispatched = 0;
            auto const status = mxlFabricsInitiatorDispatchEvents(initiator.initiator, 0, &dispatched);
            REQUIRE((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
        }
    }

    bool BatchFan::driveUntil(std::function<bool()> const& done, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (!done())
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return false;
            }
            step();
        }
        return true;
    }

    mxlFabricsBatch BatchFan::createBatch() const
    {
        mxlFabricsBatch batch = 0;
        REQUIRE(mxlFabricsInitiatorCreateBatch(initiator.initiator, &batch) == MXL_STATUS_OK);
        return batch;
    }

    mxlFabricsBatchSummary BatchFan::summary(mxlFabricsBatch batch) const
    {
        mxlFabricsBatchSummary result{};
        result.structSize = sizeof(result);
        REQUIRE(mxlFabricsBatchGetSummary(initiator.initiator, batch, &result) == MXL_STATUS_OK);
        return result;
    }

    mxlFabricsTransferStatus BatchFan::status(mxlFabricsBatch batch, std::uint32_t transfer) const
    {
        mxlFabricsTransferStatus result{};
        result.structSize = sizeof(result);
        REQUIRE(mxlFabricsBatchGetTransferStatus(initiator.initiator, batch, transfer, &result) == MXL_STATUS_OK);
        return result;
    }

    mxlFabricsTransferTargetStatus BatchFan::targetStatus(mxlFabricsBatch batch, std::uint32_t transfer, std::size_t receiver) const
    {
        mxlFabricsTransferTargetStatus result{};
        result.structSize = sizeof(result);
        REQUIRE(mxlFabricsBatchGetTargetStatusOf(initiator.initiator, batch, transfer, ticket(receiver), &result) == MXL_STATUS_OK);
        return result;
    }

    bool BatchFan::awaitArrival(std::uint64_t index)
    {
        return driveUntil(
            [&]
            {
                return std::all_of(receivers.begin(), receivers.end(),
                                   [&](auto const& receiver) { return receiver->target.target == nullptr || receiver->hasArrived(index); });
            });
    }

    bool BatchFan::settleBatch(mxlFabricsBatch batch)
    {
        return driveUntil([&] { return summary(batch).state != MXL_FABRICS_TRANSFER_WAITING; });
    }

    std::vector<mxlFabricsEvent> BatchFan::seenOf(std::uint32_t type) const
    {
        std::vector<mxlFabricsEvent> result;
        for (auto const& event : seen)
        {
            if (event.type == type)
            {
                result.push_back(event);
            }
        }
        return result;
    }
}
