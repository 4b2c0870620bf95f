// A source's single loop: sleep until the earliest deadline among the tasks, run that task, repeat.
#pragma once

#include "Pacing.hpp"
#include "ScheduledTask.hpp"

#include <vector>

namespace mxl::patterns
{
    // Runs until every task in `mediaTasks` has finished or `stopRequested` says stop. `backgroundTasks` (statistics) run
    // alongside but do not keep the loop alive.
    void runSchedule(std::vector<ScheduledTask*> const& mediaTasks, std::vector<ScheduledTask*> const& backgroundTasks,
                     StopRequested stopRequested);
}
