// The test source's single loop: sleep until the earliest deadline among the tasks, run that task, repeat.
#pragma once

#include "ScheduledTask.hpp"

#include <vector>

namespace mxl::tools::testsource
{
    // Runs until every task in `mediaTasks` has finished or SIGINT/SIGTERM arrives. `backgroundTasks` (statistics) run
    // alongside but do not keep the loop alive.
    void runSchedule(std::vector<ScheduledTask*> const& mediaTasks, std::vector<ScheduledTask*> const& backgroundTasks);
}
