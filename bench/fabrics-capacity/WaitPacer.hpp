// Waiting for something another process does, where there is no wait object to block on: yield for the first 16 empty
// looks, then sleep in steps growing from 20 µs to 200 µs. These are the steps libmxl-fabrics waits in on shm, so the
// raw path leaves the CPU to its peer as the mxl path does; a bare spin starves the peer when the cores are shared (on
// the 2-vCPU machines here, a spinning raw initiator stalled its target for up to 190 ms per grain).
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace mxl::bench::capacity
{
    class WaitPacer
    {
    public:
        // After a look that found nothing.
        void pause()
        {
            if (++_emptyLooks < yieldingLooks)
            {
                std::this_thread::yield();
                return;
            }
            _sleep = std::min(_sleep * 2, longestSleep);
            std::this_thread::sleep_for(_sleep);
        }

        // After a look that found something: the next wait starts with yields again.
        void reset() noexcept
        {
            _emptyLooks = 0;
            _sleep = firstSleep / 2;
        }

    private:
        static constexpr unsigned yieldingLooks = 16;
        static constexpr std::chrono::microseconds firstSleep{20};
        static constexpr std::chrono::microseconds longestSleep{200};

        unsigned _emptyLooks = 0;
        std::chrono::microseconds _sleep = firstSleep / 2;
    };
}
