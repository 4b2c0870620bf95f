// One row of the benchmark: a target process and an initiator process (forked from this one, so that each end has its
// own libfabric state and its own CPU accounting) move grains as fast as the target takes them, with at most `depth`
// grains sent but not yet read.
#pragma once

#include "CpuPlacement.hpp"
#include "Percentiles.hpp"
#include "Transport.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace mxl::bench
{
    struct TransportFactory
    {
        std::function<std::unique_ptr<TargetTransport>(TransportConfig const&)> target;
        std::function<std::unique_ptr<InitiatorTransport>(TransportConfig const&, std::vector<char> const&)> initiator;
    };

    struct RunConfig
    {
        TransportConfig transport;
        std::string targetDomain;
        std::string initiatorDomain;
        double warmupSeconds;
        double measureSeconds;
        // writerCpu: the initiator; readerCpu: the target; nullopt: not pinned.
        std::optional<Placement> placement;
    };

    struct RowResult
    {
        std::uint64_t grains = 0;
        double grainsPerSecond = 0;
        // Header + payload bytes per grain, decimal GB.
        double gigabytesPerSecond = 0;
        double initiatorCpuSecondsPerGigabyte = 0;
        double targetCpuSecondsPerGigabyte = 0;
        // C++ heap allocations (operator new) per grain over the measured interval, in each process.
        double initiatorAllocationsPerGrain = 0;
        double targetAllocationsPerGrain = 0;
        // From just before the transfer call to the return of the target's read.
        Percentiles latency;
    };

    // Throws std::runtime_error with what either process reported when the row could not be measured.
    RowResult runTransfer(RunConfig const& config, TransportFactory const& factory);
}
