// The single-process rows of mxl-device-bench: a device flow's write + commit against a bare cudaMemcpy device to
// device, and mxlFlowReaderGetGrain on a device flow against a host flow of the same format.
#pragma once

#include "Percentiles.hpp"
#include "Throughput.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxl::bench::device
{
    // The history of every domain the bench creates (--help): a 50 Hz flow gets a ring of 10 grains.
    inline constexpr std::uint64_t domainHistoryNs = 200'000'000;

    // What every row moves: the flow's definition and where.
    struct FlowShape
    {
        std::string definition;
        std::string flowId;
        int deviceIndex;
        std::uint32_t grains;
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
