// The single-process rows of mxl-device-bench: a device flow's write + commit against a bare cudaMemcpy device to
// device, and mxlFlowReaderGetGrain on a device flow against a host flow of the same format.
#pragma once

#include "Percentiles.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxl::bench::device
{
    // What every row moves: the flow's definition and where.
    struct FlowShape
    {
        std::string definition;
        std::string flowId;
        int deviceIndex;
        std::uint32_t grains;
    };

    struct Throughput
    {
        double grainsPerSecond = 0;
        double gigabytesPerSecond = 0;
        double microsecondsPerGrain = 0;
    };

    struct WriteCommitRows
    {
        std::size_t grainBytes = 0;
        Throughput cudaMemcpyBaseline;
        Throughput deviceFlow;
    };

    struct ReaderRows
    {
        Percentiles hostFlow;
        Percentiles deviceFlow;
    };

    // Throws naming the call that failed.
    WriteCommitRows measureWriteCommit(FlowShape const& shape);
    ReaderRows measureReaders(FlowShape const& shape);
}
