#include "CpuPlacement.hpp"

#include <fmt/format.h>

#include <sched.h>
#include <unistd.h>

namespace mxl::bench
{
    std::string Placement::describe() const
    {
        return writerCpu == readerCpu ? fmt::format("same vCPU ({})", writerCpu)
                                      : fmt::format("across vCPUs ({} -> {})", writerCpu, readerCpu);
    }

    bool pinToCpu(int cpu)
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        return ::sched_setaffinity(0, sizeof set, &set) == 0;
    }

    int onlineCpuCount()
    {
        return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    }

    std::vector<Placement> wakePlacements()
    {
        std::vector<Placement> placements{{0, 0}};
        if (onlineCpuCount() > 1)
        {
            placements.push_back({0, 1});
        }
        return placements;
    }
}
