// CPU time processes (all their threads) have used, as the kernel accounts it in /proc/<pid>/stat: how the bench
// measures the tools it runs, which report no CPU figures of their own, and its forked raw ends alike.
#pragma once

#include <sys/types.h>

#include <vector>

namespace mxl::bench::capacity
{
    // User + system seconds of `pid` so far; throws naming the pid when /proc has no readable entry for it.
    double processCpuSeconds(pid_t pid);

    // The CPU the processes `pids` use over an interval, summed: start() at its beginning, percentOfOneCore() at its end.
    class CpuMeter
    {
    public:
        explicit CpuMeter(std::vector<pid_t> pids);

        void start();

        // Their CPU seconds since start() over `wallSeconds`, in % of one core.
        [[nodiscard]] double percentOfOneCore(double wallSeconds) const;

    private:
        std::vector<pid_t> _pids;
        double _startSeconds = 0;

        [[nodiscard]] double total() const;
    };
}
