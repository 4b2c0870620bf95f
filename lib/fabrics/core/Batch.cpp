#include "fabrics/core/Batch.hpp"

#include "common/Status.hpp"
#include "fabrics/core/EventHandlers.hpp"
#include "fabrics/core/Initiator.hpp"

#include <algorithm>
#include <string_view>

namespace mxl::fabrics
{
    Batch::Batch(std::uint64_t id, InitiatorEvents& events) noexcept
        : _id{id}
        , _events{events}
    {
    }

    std::uint32_t Batch::addGrain(Initiator& initiator, std::optional<std::uint64_t> targetId, std::uint64_t grainIndex,
                                  std::uint16_t startSlice, std::uint16_t endSlice)
    {
        initiator.checkGrainRange(startSlice, endSlice);
        return add(initiator, targetId, Transfer{grainIndex, startSlice, endSlice, 0, {}});
    }

    std::uint32_t Batch::addSamples(Initiator& initiator, std::optional<std::uint64_t> targetId, std::uint64_t headIndex, std::size_t count)
    {
        initiator.checkSampleCount(count);
        return add(initiator, targetId, Transfer{headIndex, 0, 0, count, {}});
    }

    std::uint32_t Batch::add(Initiator const& initiator, std::optional<std::uint64_t> targetId, Transfer transfer)
    {
        if (_submitted)
        {
            fail(MXL_ERR_INVALID_STATE, "batch {} was submitted already: no transfer can be added to it", _id);
        }
        auto const targets = targetId ? std::vector{initiator.link(*targetId).ticket.id} : initiator.targetIds();
        if (targets.empty())
        {
            fail(MXL_ERR_NOT_FOUND, "batch {}: the initiator has no target to send a transfer to", _id);
        }
        auto const index = static_cast<std::uint32_t>(_transfers.size());
        for (auto const id : targets)
        {
            transfer.legs.push_back(std::make_shared<TransferLeg>(id, weak_from_this(), index));
        }
        _transfers.push_back(std::move(transfer));
        return index;
    }

    mxlStatus Batch::submit(Initiator& initiator)
    {
        if (_submitted)
        {
            fail(MXL_ERR_INVALID_STATE, "batch {} was submitted already", _id);
        }
        if (_transfers.empty())
        {
            fail(MXL_ERR_INVALID_STATE, "batch {} has no transfer to submit", _id);
        }
        _submitted = true;
        auto result = MXL_STATUS_OK;
        for (auto const& transfer : _transfers)
        {
            auto const status = transfer.count == 0
                                    ? initiator.transferGrain(transfer.index, transfer.startSlice, transfer.endSlice, &transfer.legs)
                                    : initiator.transferSamples(transfer.index, transfer.count, &transfer.legs);
            if (result == MXL_STATUS_OK)
            {
                result = status;
            }
        }
        return result;
    }

    Batch::Transfer const& Batch::transfer(std::uint32_t index) const
    {
        if (index >= _transfers.size())
        {
            fail(MXL_ERR_NOT_FOUND, "batch {} has {} transfers, there is no transfer {}", _id, _transfers.size(), index);
        }
        return _transfers[index];
    }

    mxlFabricsTransferState Batch::stateOf(std::uint32_t targets, std::uint32_t completed, std::uint32_t failed) noexcept
    {
        if (completed + failed < targets)
        {
            return MXL_FABRICS_TRANSFER_WAITING;
        }
        return failed == 0 ? MXL_FABRICS_TRANSFER_COMPLETED : MXL_FABRICS_TRANSFER_FAILED;
    }

    mxlFabricsTransferStatus Batch::transferStatus(std::uint32_t index) const
    {
        mxlFabricsTransferStatus status{};
        status.structSize = sizeof(status);
        for (auto const& leg : transfer(index).legs)
        {
            ++status.targets;
            status.bytesPlaced += leg->bytesPlaced();
            status.bytesTotal += leg->bytesTotal();
            status.targetsCompleted += leg->state() == MXL_FABRICS_TRANSFER_COMPLETED ? 1U : 0U;
            status.targetsFailed += leg->state() == MXL_FABRICS_TRANSFER_FAILED ? 1U : 0U;
        }
        status.state = stateOf(status.targets, status.targetsCompleted, status.targetsFailed);
        return status;
    }

    TransferLeg const& Batch::leg(std::uint32_t index, std::uint32_t targetIndex) const
    {
        auto const& legs = transfer(index).legs;
        if (targetIndex >= legs.size())
        {
            fail(MXL_ERR_NOT_FOUND, "transfer {} of batch {} goes to {} targets, there is no target index {}", index, _id, legs.size(),
                 targetIndex);
        }
        return *legs[targetIndex];
    }

    TransferLeg const& Batch::legOf(std::uint32_t index, std::uint64_t targetId) const
    {
        auto const& legs = transfer(index).legs;
        auto const found = std::find_if(legs.begin(), legs.end(), [&](auto const& leg) { return leg->targetId() == targetId; });
        if (found == legs.end())
        {
            fail(MXL_ERR_NOT_FOUND, "transfer {} of batch {} does not go to target {}", index, _id, targetId);
        }
        return **found;
    }

    mxlFabricsBatchSummary Batch::summary() const
    {
        mxlFabricsBatchSummary summary{};
        summary.structSize = sizeof(summary);
        summary.submitted = _submitted ? 1U : 0U;
        for (std::uint32_t index = 0; index < _transfers.size(); ++index)
        {
            auto const status = transferStatus(index);
            ++summary.transfers;
            summary.transfersCompleted += status.state == MXL_FABRICS_TRANSFER_COMPLETED ? 1U : 0U;
            summary.transfersFailed += status.state == MXL_FABRICS_TRANSFER_FAILED ? 1U : 0U;
            summary.bytesPlaced += status.bytesPlaced;
            summary.bytesTotal += status.bytesTotal;
        }
        summary.state = stateOf(summary.transfers, summary.transfersCompleted, summary.transfersFailed);
        return summary;
    }

    void Batch::settled(std::uint32_t index)
    {
        auto const status = transferStatus(index);
        if (status.state == MXL_FABRICS_TRANSFER_WAITING)
        {
            return;
        }
        queueTransferEvent(index, status);
        ++_settledTransfers;
        _failedTransfers += status.state == MXL_FABRICS_TRANSFER_FAILED ? 1U : 0U;
        if (_settledTransfers == _transfers.size())
        {
            queueBatchEvent();
        }
    }

    void Batch::queueTransferEvent(std::uint32_t index, mxlFabricsTransferStatus const& status)
    {
        auto const completed = status.state == MXL_FABRICS_TRANSFER_COMPLETED;
        auto event = libraryEvent(completed ? MXL_FABRICS_EVENT_TRANSFER_COMPLETED : MXL_FABRICS_EVENT_TRANSFER_FAILED);
        event.transfer.batch = _id;
        event.transfer.transfer = index;
        event.transfer.targetsCompleted = status.targetsCompleted;
        event.transfer.targetsFailed = status.targetsFailed;
        auto const& legs = _transfers[index].legs;
        auto const failed =
            std::find_if(legs.begin(), legs.end(), [](auto const& leg) { return leg->state() == MXL_FABRICS_TRANSFER_FAILED; });
        if (failed != legs.end())
        {
            event.transfer.targetId = (*failed)->targetId();
            auto& reason = event.transfer.reason;
            reason[std::string_view{(*failed)->reason()}.copy(reason, sizeof(reason) - 1)] = '\0';
        }
        _events.queue(event);
    }

    void Batch::queueBatchEvent()
    {
        auto const transfers = static_cast<std::uint32_t>(_transfers.size());
        auto event = libraryEvent(MXL_FABRICS_EVENT_BATCH_COMPLETED);
        event.batch = {_id, transfers, transfers - _failedTransfers, _failedTransfers};
        _events.queue(event);
    }
}
