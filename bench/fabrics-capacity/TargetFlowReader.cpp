#include "TargetFlowReader.hpp"

#include "CheckMxlStatus.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <stdexcept>

namespace mxl::bench::capacity
{
    namespace
    {
        constexpr std::uint64_t missingAfterNs = std::chrono::nanoseconds{TargetFlowReader::missingAfter}.count();
        constexpr std::uint64_t longestWaitNs = 100'000'000;

        bool notThereYet(mxlStatus status)
        {
            return status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY || status == MXL_ERR_TIMEOUT;
        }
    }

    TargetFlowReader::TargetFlowReader(std::string name, std::string const& domain, std::string const& flowId, LiveWindow const& window)
        : _name{std::move(name)}
        , _window{window}
        , _instance{domain}
        , _reader{_instance, flowId}
    {
        checkMxlStatus(::mxlFlowReaderGetConfigInfo(_reader.get(), &_config), fmt::format("{}: mxlFlowReaderGetConfigInfo", _name));
        _thread = std::jthread{[this](std::stop_token stop) { run(stop); }};
    }

    ReaderCounts TargetFlowReader::finish()
    {
        if (_thread.joinable())
        {
            _thread.request_stop();
            _thread.join();
        }
        if (!_failure.empty())
        {
            throw std::runtime_error{_failure};
        }
        if (!_reachedEnd)
        {
            throw std::runtime_error{fmt::format("{} was stopped before the end of the window", _name)};
        }
        return std::move(_counts);
    }

    void TargetFlowReader::run(std::stop_token const& stop)
    {
        try
        {
            if (mxlIsContinuousDataFormat(static_cast<int>(_config.common.format)))
            {
                readBatches(stop);
            }
            else
            {
                readGrains(stop);
            }
        }
        catch (std::exception const& e)
        {
            _failure = fmt::format("{}: {}", _name, e.what());
        }
        _finished.store(true, std::memory_order_release);
    }

    template <typename Read>
    void TargetFlowReader::readUnits(std::stop_token const& stop, std::uint64_t index, std::uint64_t step, Read&& read)
    {
        auto const rate = _config.common.grainRate;
        while (!stop.stop_requested())
        {
            auto const timestampNs = ::mxlIndexToTimestamp(&rate, index);
            if (_window.passed(timestampNs))
            {
                _reachedEnd = true;
                return;
            }
            auto const unit = read(index, waitNs(timestampNs));
            if (notThereYet(unit.status))
            {
                if (!pastDeadline(timestampNs))
                {
                    continue;
                }
                missing(timestampNs);
            }
            else if (unit.status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                // Rewritten before this reader saw it: the target's ring moved on without it.
                missing(timestampNs);
            }
            else
            {
                checkMxlStatus(unit.status, fmt::format("{} {}", unit.what, index));
                arrived(timestampNs, unit.invalid);
            }
            index += step;
        }
    }

    void TargetFlowReader::readGrains(std::stop_token const& stop)
    {
        auto const rate = _config.common.grainRate;
        readUnits(stop, ::mxlGetCurrentIndex(&rate), 1,
                  [this](std::uint64_t index, std::uint64_t timeoutNs)
                  {
                      mxlGrainInfo grain{};
                      std::uint8_t* payload = nullptr;
                      auto const status = ::mxlFlowReaderGetGrain(_reader.get(), index, timeoutNs, &grain, &payload);
                      return UnitRead{status, (grain.flags & MXL_GRAIN_FLAG_INVALID) != 0, "mxlFlowReaderGetGrain of grain"};
                  });
    }

    void TargetFlowReader::readBatches(std::stop_token const& stop)
    {
        std::uint64_t const batch = std::max<std::uint32_t>(_config.common.maxCommitBatchSizeHint, 1);
        // The target's head is the last sample of a batch the initiator sent; reading on from there in batches of the
        // same size keeps to the initiator's batches, so each latency is that of a whole batch.
        mxlFlowRuntimeInfo runtime{};
        while (!stop.stop_requested())
        {
            checkMxlStatus(::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime), "mxlFlowReaderGetRuntimeInfo");
            if (runtime.headIndex != 0)
            {
                break;
            }
            if (_window.passed(::mxlGetTime()))
            {
                throw std::runtime_error{"no sample arrived in the target's flow before the window ended"};
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{5});
        }
        readUnits(stop, runtime.headIndex + batch, batch,
                  [this, batch](std::uint64_t index, std::uint64_t timeoutNs)
                  {
                      mxlWrappedMultiBufferSlice slices{};
                      return UnitRead{::mxlFlowReaderGetSamples(_reader.get(), index, batch, timeoutNs, &slices), false,
                                      "mxlFlowReaderGetSamples of the batch ending at sample"};
                  });
    }

    std::uint64_t TargetFlowReader::waitNs(std::uint64_t timestampNs) const
    {
        auto const deadlineNs = timestampNs + missingAfterNs;
        auto const nowNs = ::mxlGetTime();
        return nowNs >= deadlineNs ? 0 : std::min(deadlineNs - nowNs, longestWaitNs);
    }

    bool TargetFlowReader::pastDeadline(std::uint64_t timestampNs) const
    {
        return ::mxlGetTime() >= timestampNs + missingAfterNs;
    }

    void TargetFlowReader::arrived(std::uint64_t timestampNs, bool invalid)
    {
        auto const nowNs = ::mxlGetTime();
        if (!_window.contains(timestampNs))
        {
            return;
        }
        ++_counts.arrived;
        if (invalid)
        {
            ++_counts.invalid;
        }
        _counts.latenciesNs.push_back(nowNs > timestampNs ? nowNs - timestampNs : 0);
    }

    void TargetFlowReader::missing(std::uint64_t timestampNs)
    {
        if (_window.contains(timestampNs))
        {
            ++_counts.missing;
        }
    }
}
