// The C API of include/mxl/fabrics_batch.h: check arguments, call the initiator's batches, and let guard turn exceptions
// into statuses.
#include <mxl/fabrics_batch.h>

#include "common/Status.hpp"
#include "fabrics/api/ArgumentChecks.hpp"
#include "fabrics/api/Instance.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace
{
    using namespace mxl;
    using namespace mxl::fabrics;

    Batch& batchOf(mxlFabricsInitiator initiator, mxlFabricsBatch batch)
    {
        require(initiator, "the initiator");
        return initiator->batches.find(batch);
    }

    std::optional<std::uint64_t> targetIdOf(mxlFabricsTargetInfo target)
    {
        return target != nullptr ? std::optional{target->info.id} : std::nullopt;
    }

    void copyLegStatus(TransferLeg const& leg, mxlFabricsTransferTargetStatus* out)
    {
        out->structSize = sizeof(*out);
        out->state = leg.state();
        out->targetId = leg.targetId();
        out->bytesPlaced = leg.bytesPlaced();
        out->bytesTotal = leg.bytesTotal();
        out->reason[std::string_view{leg.reason()}.copy(out->reason, sizeof(out->reason) - 1)] = '\0';
    }
}

extern "C"
{
    mxlStatus mxlFabricsInitiatorCreateBatch(mxlFabricsInitiator in_initiator, mxlFabricsBatch* out_batch)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_initiator, "the initiator");
                         require(out_batch, "out_batch");
                         *out_batch = in_initiator->batches.create(in_initiator->events);
                     });
    }

    mxlStatus mxlFabricsBatchAddGrain(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, mxlFabricsTargetInfo in_target,
                                      uint64_t in_grainIndex, uint16_t in_startSlice, uint16_t in_endSlice, uint32_t* out_transfer)
    {
        return guard(__func__,
                     [&]
                     {
                         require(out_transfer, "out_transfer");
                         auto& batch = batchOf(in_initiator, in_batch);
                         *out_transfer =
                             batch.addGrain(setUp(in_initiator), targetIdOf(in_target), in_grainIndex, in_startSlice, in_endSlice);
                     });
    }

    mxlStatus mxlFabricsBatchAddSamples(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, mxlFabricsTargetInfo in_target,
                                        uint64_t in_headIndex, size_t in_count, uint32_t* out_transfer)
    {
        return guard(__func__,
                     [&]
                     {
                         require(out_transfer, "out_transfer");
                         auto& batch = batchOf(in_initiator, in_batch);
                         *out_transfer = batch.addSamples(setUp(in_initiator), targetIdOf(in_target), in_headIndex, in_count);
                     });
    }

    mxlStatus mxlFabricsBatchSubmit(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch)
    {
        return guard(__func__, [&] { return batchOf(in_initiator, in_batch).submit(setUp(in_initiator)); });
    }

    mxlStatus mxlFabricsBatchGetTransferStatus(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, uint32_t in_transfer,
                                               mxlFabricsTransferStatus* out_status)
    {
        return guard(__func__,
                     [&]
                     {
                         requireStructSize(out_status, "out_status");
                         *out_status = batchOf(in_initiator, in_batch).transferStatus(in_transfer);
                     });
    }

    mxlStatus mxlFabricsBatchGetTargetStatus(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, uint32_t in_transfer,
                                             uint32_t in_targetIndex, mxlFabricsTransferTargetStatus* out_status)
    {
        return guard(__func__,
                     [&]
                     {
                         requireStructSize(out_status, "out_status");
                         copyLegStatus(batchOf(in_initiator, in_batch).leg(in_transfer, in_targetIndex), out_status);
                     });
    }

    mxlStatus mxlFabricsBatchGetTargetStatusOf(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, uint32_t in_transfer,
                                               mxlFabricsTargetInfo in_target, mxlFabricsTransferTargetStatus* out_status)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_target, "the target info");
                         requireStructSize(out_status, "out_status");
                         copyLegStatus(batchOf(in_initiator, in_batch).legOf(in_transfer, in_target->info.id), out_status);
                     });
    }

    mxlStatus mxlFabricsBatchGetSummary(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch, mxlFabricsBatchSummary* out_summary)
    {
        return guard(__func__,
                     [&]
                     {
                         requireStructSize(out_summary, "out_summary");
                         *out_summary = batchOf(in_initiator, in_batch).summary();
                     });
    }

    mxlStatus mxlFabricsInitiatorFreeBatch(mxlFabricsInitiator in_initiator, mxlFabricsBatch in_batch)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_initiator, "the initiator");
                         in_initiator->batches.free(in_batch);
                     });
    }
}
