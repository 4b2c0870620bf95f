// Counters of one demo run and the lines that report them: a "stats:" line every second and one "summary:" line at
// exit, both stable key/value text that scripts and tests parse.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace mxl::demo
{
    class TransferStats
    {
    public:
        enum class Role
        {
            Target,
            Initiator,
        };

        explicit TransferStats(Role role);

        // A grain is complete (all slices, or flagged invalid).
        void grainCompleted() noexcept;
        void bytesMoved(std::uint64_t bytes) noexcept;
        // Grains that never reached the other side: skipped after falling behind, failed, or (target) index gaps.
        void grainsLost(std::uint64_t count) noexcept;
        // The grains lost so far, where the count can also go down (a redundant target's gaps that the slower path fills).
        void setGrainsLost(std::uint64_t total) noexcept
        {
            _lost = total;
        }
        // The initiator fell behind the source's ring and jumped to the current grain.
        void fellBehind() noexcept;
        // Time from posting a transfer to its completion at every target.
        void transferLatency(std::chrono::nanoseconds latency) noexcept;

        [[nodiscard]] std::uint64_t grains() const noexcept
        {
            return _grains;
        }

        // Initiator, per target in -t order: the transfers it missed (skipped=a,b,...) and those it was told were lost
        // because the source changed before they were read (invalidated=a,b,...), in both lines.
        void targetCounts(std::vector<std::uint64_t> skipped, std::vector<std::uint64_t> invalidated);

        // A second has passed since the previous "stats:" line.
        [[nodiscard]] bool due() const noexcept;
        // Prints the "stats:" line when it is due.
        void printIfDue();
        void printSummary() const;

    private:
        struct Latency
        {
            std::uint64_t count = 0;
            std::chrono::nanoseconds total{0};
            std::chrono::nanoseconds max{0};

            void add(std::chrono::nanoseconds latency) noexcept;
            [[nodiscard]] double averageUs() const noexcept;
            [[nodiscard]] double maxUs() const noexcept;
        };

        Role _role;
        std::uint64_t _grains = 0;
        std::uint64_t _bytes = 0;
        std::uint64_t _lost = 0;
        std::uint64_t _late = 0;
        Latency _latency;
        std::vector<std::uint64_t> _targetSkips;
        std::vector<std::uint64_t> _targetInvalidations;

        std::chrono::steady_clock::time_point _intervalStart;
        std::uint64_t _intervalGrains = 0;
        std::uint64_t _intervalBytes = 0;
        Latency _intervalLatency;
    };
}
