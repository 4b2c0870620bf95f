#include "fabrics/core/TransferLeg.hpp"

#include "fabrics/core/Batch.hpp"

namespace mxl::fabrics
{
    TransferLeg::TransferLeg(std::uint64_t targetId, std::weak_ptr<Batch> batch, std::uint32_t transfer)
        : _targetId{targetId}
        , _batch{std::move(batch)}
        , _transfer{transfer}
    {
    }

    void TransferLeg::posted(std::uint64_t bytesTotal) noexcept
    {
        _bytesTotal = bytesTotal;
    }

    void TransferLeg::placed(std::uint64_t bytes) noexcept
    {
        _bytesPlaced += bytes;
    }

    void TransferLeg::complete()
    {
        settle(MXL_FABRICS_TRANSFER_COMPLETED);
    }

    void TransferLeg::fail(std::string reason)
    {
        if (!settled())
        {
            _reason = std::move(reason);
            settle(MXL_FABRICS_TRANSFER_FAILED);
        }
    }

    void TransferLeg::settle(mxlFabricsTransferState state)
    {
        if (settled())
        {
            return;
        }
        _state = state;
        if (auto const batch = _batch.lock())
        {
            batch->settled(_transfer);
        }
    }
}
