// Waiting without a wait object (shm, efa): yield for a few empty polls, then sleep in short, growing steps, so that a
// polling thread leaves the second core to its peer on this 2-vCPU class of machine without adding milliseconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace mxl
{
    class PollPacer
    {
    public:
        void pause(std::chrono::steady_clock::time_point deadline)
        {
            if (++_emptyPolls < 16)
            {
                std::this_thread::yield();
                return;
            }
            _sleep = std::min(_sleep * 2, std::chrono::microseconds{200});
            auto const wake = std::min(deadline, std::chrono::steady_clock::now() + _sleep);
            std::this_thread::sleep_until(wake);
        }

    private:
        unsigned _emptyPolls = 0;
        std::chrono::microseconds _sleep{10};
    };
}
