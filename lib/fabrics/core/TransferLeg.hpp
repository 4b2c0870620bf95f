// One transfer of a batch to one target, as the initiator reports it (include/mxl/fabrics_batch.h): the bytes placed so
// far, and whether it completed or why it failed. Shared by the batch and the initiator's pending transfer, so that the
// batch may be freed while the transfer is in flight: the leg then outlives it and reports to no one.
#pragma once

#include <mxl/fabrics_batch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    class Batch;

    class TransferLeg
    {
    public:
        TransferLeg(std::uint64_t targetId, std::weak_ptr<Batch> batch, std::uint32_t transfer);

        [[nodiscard]] std::uint64_t targetId() const noexcept
        {
            return _targetId;
        }

        [[nodiscard]] mxlFabricsTransferState state() const noexcept
        {
            return _state;
        }

        [[nodiscard]] std::uint64_t bytesPlaced() const noexcept
        {
            return _bytesPlaced;
        }

        [[nodiscard]] std::uint64_t bytesTotal() const noexcept
        {
            return _bytesTotal;
        }

        [[nodiscard]] std::string const& reason() const noexcept
        {
            return _reason;
        }

        [[nodiscard]] bool settled() const noexcept
        {
            return _state != MXL_FABRICS_TRANSFER_WAITING;
        }

        // The payload writes of the transfer to this target were planned: `bytesTotal` of the flow's bytes.
        void posted(std::uint64_t bytesTotal) noexcept;
        // A payload write carrying `bytes` of them completed.
        void placed(std::uint64_t bytes) noexcept;
        // The first of complete and fail settles the leg and tells the batch; later calls change nothing.
        void complete();
        void fail(std::string reason);

    private:
        std::uint64_t _targetId;
        std::weak_ptr<Batch> _batch;
        std::uint32_t _transfer;
        mxlFabricsTransferState _state = MXL_FABRICS_TRANSFER_WAITING;
        std::uint64_t _bytesPlaced = 0;
        std::uint64_t _bytesTotal = 0;
        std::string _reason;

        void settle(mxlFabricsTransferState state);
    };

    // The legs of one transfer, one per target it goes to.
    using TransferLegs = std::vector<std::shared_ptr<TransferLeg>>;
}
