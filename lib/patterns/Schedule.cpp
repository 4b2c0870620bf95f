#include "Schedule.hpp"

#include <algorithm>

namespace mxl::patterns
{
    void runSchedule(std::vector<ScheduledTask*> const& mediaTasks, std::vector<ScheduledTask*> const& backgroundTasks,
                     StopRequested stopRequested)
    {
        auto allTasks = mediaTasks;
        allTasks.insert(allTasks.end(), backgroundTasks.begin(), backgroundTasks.end());
        auto const done = [](ScheduledTask const* task) { return task->finished(); };
        auto const earlier = [](ScheduledTask const* a, ScheduledTask const* b) { return a->nextDeadlineNs() < b->nextDeadlineNs(); };

        while (!stopRequested() && !std::ranges::all_of(mediaTasks, done))
        {
            std::vector<ScheduledTask*> pending;
            std::ranges::copy_if(allTasks, std::back_inserter(pending), [&](ScheduledTask const* task) { return !done(task); });
            auto* const next = *std::ranges::min_element(pending, earlier);
            auto const lateNs = sleepUntilDeadline(next->nextDeadlineNs(), stopRequested);
            // A signal cuts the sleep short; the step it interrupted is not due yet.
            if (stopRequested())
            {
                break;
            }
            next->run(lateNs);
        }
    }
}
