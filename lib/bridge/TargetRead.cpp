#include "TargetRead.hpp"

namespace mxl::bridge
{
    namespace
    {
        mxlStatus readGrain(mxlFabricsTarget target, bool blocking, std::uint16_t timeoutMs, std::uint64_t& index)
        {
            return blocking ? ::mxlFabricsTargetReadGrain(target, timeoutMs, &index)
                            : ::mxlFabricsTargetReadGrainNonBlocking(target, &index);
        }

        mxlStatus readSamples(mxlFabricsTarget target, bool blocking, std::uint16_t timeoutMs, mxlFabricsSamplesArrival& samples)
        {
            std::size_t count = 0;
            auto const status = blocking ? ::mxlFabricsTargetReadSamples(target, timeoutMs, &samples.headIndex, &count)
                                         : ::mxlFabricsTargetReadSamplesNonBlocking(target, &samples.headIndex, &count);
            samples.count = count;
            return status;
        }
    }

    TargetRead readTarget(mxlFabricsTarget target, mxlFlowReader reader, TransferUnit unit, bool blocking, std::uint16_t timeoutMs)
    {
        TargetRead read;
        auto const status = unit == TransferUnit::Grain ? readGrain(target, blocking, timeoutMs, read.grain.index)
                                                        : readSamples(target, blocking, timeoutMs, read.samples);
        switch (status)
        {
        case MXL_STATUS_OK:
            read.outcome = TargetRead::Outcome::Arrived;
            break;
        case MXL_ERR_NOT_READY:
        case MXL_ERR_INTERRUPTED:
            return read;
        case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
            read.outcome = TargetRead::Outcome::Lost;
            return read;
        default:
            read.outcome = TargetRead::Outcome::Failed;
            read.status = status;
            return read;
        }
        if (unit == TransferUnit::Grain)
        {
            // The read names the index; the flow's header says how much of the grain is there.
            mxlGrainInfo header{};
            std::uint8_t* payload = nullptr;
            if (::mxlFlowReaderGetGrainSliceNonBlocking(reader, read.grain.index, MXL_GRAIN_VALID_SLICES_ANY, &header, &payload) ==
                MXL_STATUS_OK)
            {
                read.grain.validSlices = header.validSlices;
                read.grain.totalSlices = header.totalSlices;
                read.grain.flags = header.flags;
            }
        }
        return read;
    }
}
