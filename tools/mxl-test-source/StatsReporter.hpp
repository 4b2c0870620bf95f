// Prints the writers' counters to stdout once a second (on whole seconds since the start), one line for all flows:
//   stats video written=50 late=0 invalid=0 | audio written=200 late=0 invalid=0
#pragma once

#include <patterns/ScheduledTask.hpp>
#include <patterns/WriterStats.hpp>

#include <cstdint>
#include <vector>

namespace mxl::tools::testsource
{
    using patterns::ScheduledTask;
    using patterns::WriterStats;

    class StatsReporter : public ScheduledTask
    {
    public:
        explicit StatsReporter(std::vector<WriterStats const*> stats);

        [[nodiscard]] std::uint64_t nextDeadlineNs() const override
        {
            return _nextReportNs;
        }

        void run(std::uint64_t lateNs) override;

        [[nodiscard]] bool finished() const override
        {
            return false;
        }

        // Prints the line now (the final totals at exit).
        void report() const;

    private:
        std::vector<WriterStats const*> _stats;
        std::uint64_t _nextReportNs;
    };
}
