// One thing a test source does at absolute TAI deadlines (writing a flow, printing statistics). A single thread runs
// all tasks in deadline order, so a slow grain delays the next step but never the schedule itself.
#pragma once

#include <cstdint>

namespace mxl::patterns
{
    class ScheduledTask
    {
    public:
        virtual ~ScheduledTask() = default;

        // The TAI time at which run() is next due.
        [[nodiscard]] virtual std::uint64_t nextDeadlineNs() const = 0;

        // Does the step due at nextDeadlineNs(); `lateNs` says by how much the wake-up missed it.
        virtual void run(std::uint64_t lateNs) = 0;

        // True when the task has done all it was asked to (tasks that run until stopped never finish).
        [[nodiscard]] virtual bool finished() const = 0;
    };
}
