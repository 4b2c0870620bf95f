#include "TransferStats.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mxl::demo
{
    TransferStats::TransferStats(Role role)
        : _role{role}
        , _intervalStart{std::chrono::steady_clock::now()}
    {
    }

    void TransferStats::grainCompleted() noexcept
    {
        ++_grains;
        ++_intervalGrains;
    }

    void TransferStats::bytesMoved(std::uint64_t bytes) noexcept
    {
        _bytes += bytes;
        _intervalBytes += bytes;
    }

    void TransferStats::grainsLost(std::uint64_t count) noexcept
    {
        _lost += count;
    }

    void TransferStats::fellBehind() noexcept
    {
        ++_late;
    }

    void TransferStats::transferLatency(std::chrono::nanoseconds latency) noexcept
    {
        _latency.add(latency);
        _intervalLatency.add(latency);
    }

    void TransferStats::Latency::add(std::chrono::nanoseconds latency) noexcept
    {
        ++count;
        total += latency;
        max = std::max(max, latency);
    }

    double TransferStats::Latency::averageUs() const noexcept
    {
        return count == 0 ? 0.0 : static_cast<double>(total.count()) / static_cast<double>(count) / 1e3;
    }

    double TransferStats::Latency::maxUs() const noexcept
    {
        return static_cast<double>(max.count()) / 1e3;
    }

    void TransferStats::targetCounts(std::vector<std::uint64_t> skipped, std::vector<std::uint64_t> invalidated)
    {
        _targetSkips = std::move(skipped);
        _targetInvalidations = std::move(invalidated);
    }

    bool TransferStats::due() const noexcept
    {
        return std::chrono::steady_clock::now() - _intervalStart >= std::chrono::seconds{1};
    }

    void TransferStats::printIfDue()
    {
        auto const now = std::chrono::steady_clock::now();
        auto const elapsed = std::chrono::duration<double>(now - _intervalStart).count();
        if (elapsed < 1.0)
        {
            return;
        }
        auto const grainRate = static_cast<double>(_intervalGrains) / elapsed;
        auto const megabytesPerSecond = static_cast<double>(_intervalBytes) / elapsed / 1e6;
        if (_role == Role::Target)
        {
            fmt::print("stats: grains={} bytes={} rate={:.1f} grains/s throughput={:.1f} MB/s lost={}\n", _grains, _bytes, grainRate,
                       megabytesPerSecond, _lost);
        }
        else
        {
            fmt::print("stats: grains={} bytes={} rate={:.1f} grains/s throughput={:.1f} MB/s late={} lost={} skipped={} invalidated={} "
                       "latency_avg_us={:.0f} latency_max_us={:.0f}\n",
                       _grains, _bytes, grainRate, megabytesPerSecond, _late, _lost, fmt::join(_targetSkips, ","),
                       fmt::join(_targetInvalidations, ","), _intervalLatency.averageUs(), _intervalLatency.maxUs());
        }
        std::fflush(stdout);
        _intervalStart = now;
        _intervalGrains = 0;
        _intervalBytes = 0;
        _intervalLatency = {};
    }

    void TransferStats::printSummary() const
    {
        if (_role == Role::Target)
        {
            fmt::print("summary: received {} grains, {} bytes, {} lost\n", _grains, _bytes, _lost);
        }
        else
        {
            fmt::print("summary: moved {} grains, {} bytes, {} lost, latency avg {:.0f} us, max {:.0f} us, skipped {}, invalidated {}\n",
                       _grains, _bytes, _lost, _latency.averageUs(), _latency.maxUs(), fmt::join(_targetSkips, ","),
                       fmt::join(_targetInvalidations, ","));
        }
        std::fflush(stdout);
    }
}
