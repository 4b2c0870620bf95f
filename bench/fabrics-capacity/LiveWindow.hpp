// The measured interval on the TAI clock, opened and closed by the bench while the flows run: a unit (grain or audio
// batch) belongs to it when its timestamp lies in [start, end). Lock-free atomics, so it works alike between threads
// and, placed in shared memory, between forked processes.
#pragma once

#include <mxl/rational.h>

#include <atomic>
#include <cstdint>

namespace mxl::bench::capacity
{
    class LiveWindow
    {
    public:
        void open(std::uint64_t startNs) noexcept
        {
            _startNs.store(startNs, std::memory_order_release);
        }

        void close(std::uint64_t endNs) noexcept
        {
            _endNs.store(endNs, std::memory_order_release);
        }

        [[nodiscard]] bool contains(std::uint64_t timestampNs) const noexcept
        {
            return timestampNs >= _startNs.load(std::memory_order_acquire) && timestampNs < _endNs.load(std::memory_order_acquire);
        }

        // True once the window is closed and `timestampNs` lies at or after its end.
        [[nodiscard]] bool passed(std::uint64_t timestampNs) const noexcept
        {
            return timestampNs >= _endNs.load(std::memory_order_acquire);
        }

        [[nodiscard]] bool isOpen() const noexcept
        {
            return _startNs.load(std::memory_order_acquire) != notYet;
        }

        [[nodiscard]] std::uint64_t startNs() const noexcept
        {
            return _startNs.load(std::memory_order_acquire);
        }

        [[nodiscard]] std::uint64_t endNs() const noexcept
        {
            return _endNs.load(std::memory_order_acquire);
        }

    private:
        static constexpr std::uint64_t notYet = ~std::uint64_t{0};
        static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the window is shared with forked processes");

        std::atomic<std::uint64_t> _startNs{notYet};
        std::atomic<std::uint64_t> _endNs{notYet};
    };

    // The first index at `rate` whose timestamp is at or after `timestampNs`.
    std::uint64_t firstIndexAtOrAfter(mxlRational const& rate, std::uint64_t timestampNs);
}
