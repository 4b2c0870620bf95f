// A batch of grain and sample transfers of one initiator (include/mxl/fabrics_batch.h): built, submitted once, then
// followed through the legs the initiator settles. It queues the initiator's TRANSFER_ and BATCH_COMPLETED events as
// its transfers settle.
#pragma once

#include "fabrics/core/InitiatorEvents.hpp"
#include "fabrics/core/TransferLeg.hpp"

#include <mxl/fabrics_batch.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mxl::fabrics
{
    class Initiator;

    class Batch final : public std::enable_shared_from_this<Batch>
    {
    public:
        Batch(std::uint64_t id, InitiatorEvents& events) noexcept;

        // Add a transfer to the target `targetId`, or to every target of `initiator` when there is none; its index.
        std::uint32_t addGrain(Initiator& initiator, std::optional<std::uint64_t> targetId, std::uint64_t grainIndex,
                               std::uint16_t startSlice, std::uint16_t endSlice);
        std::uint32_t addSamples(Initiator& initiator, std::optional<std::uint64_t> targetId, std::uint64_t headIndex, std::size_t count);

        // Posts every transfer in order; the first failure's status, or OK.
        mxlStatus submit(Initiator& initiator);

        [[nodiscard]] mxlFabricsTransferStatus transferStatus(std::uint32_t transfer) const;
        [[nodiscard]] TransferLeg const& leg(std::uint32_t transfer, std::uint32_t targetIndex) const;
        [[nodiscard]] TransferLeg const& legOf(std::uint32_t transfer, std::uint64_t targetId) const;
        [[nodiscard]] mxlFabricsBatchSummary summary() const;

        // A leg of `transfer` settled: queues the transfer's event when it was the last, and the batch's after it.
        void settled(std::uint32_t transfer);

    private:
        struct Transfer
        {
            // Grains: the grain index and the slice range. Samples: the head index and the count (non-zero).
            std::uint64_t index = 0;
            std::uint16_t startSlice = 0;
            std::uint16_t endSlice = 0;
            std::size_t count = 0;
            TransferLegs legs;
        };

        std::uint64_t _id;
        InitiatorEvents& _events;
        std::vector<Transfer> _transfers;
        bool _submitted = false;
        // Transfers whose every leg settled, and those of them that failed: each leg settles once, so each transfer
        // is counted once, when its last leg settles.
        std::uint32_t _settledTransfers = 0;
        std::uint32_t _failedTransfers = 0;

        std::uint32_t add(Initiator const& initiator, std::optional<std::uint64_t> targetId, Transfer transfer);
        [[nodiscard]] Transfer const& transfer(std::uint32_t index) const;
        [[nodiscard]] static mxlFabricsTransferState stateOf(std::uint32_t targets, std::uint32_t completed, std::uint32_t failed) noexcept;
        void queueTransferEvent(std::uint32_t index, mxlFabricsTransferStatus const& status);
        void queueBatchEvent();
    };
}
