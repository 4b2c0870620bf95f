// Pinning the processes of a measurement to chosen vCPUs: wake latencies differ by an order of magnitude between
// "same vCPU" and "across vCPUs" on a hypervisor, so every figure is reported with its placement.
#pragma once

#include <string>
#include <vector>

namespace mxl::bench
{
    struct Placement
    {
        int writerCpu;
        int readerCpu;

        [[nodiscard]] std::string describe() const;
    };

    // Pins the calling thread (and the process's future children) to `cpu`; false if the kernel refused.
    bool pinToCpu(int cpu);

    int onlineCpuCount();

    // Where a wake is measured: on the same vCPU and, where the machine has more than one, across two.
    [[nodiscard]] std::vector<Placement> wakePlacements();
}
