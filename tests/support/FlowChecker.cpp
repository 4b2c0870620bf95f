#include "FlowChecker.hpp"

#include "FlowWait.hpp"

#include "Checksum.hpp"
#include "GrainPattern.hpp"

#include <mxl/device.h>

#include <fmt/format.h>

#include <stdexcept>
#include <thread>

namespace mxl::test
{
    namespace
    {
        constexpr std::uint64_t pollTimeoutNs = 20'000'000;
    }

    CheckResult& CheckResult::operator+=(CheckResult const& later)
    {
        verified += later.verified;
        mismatched += later.mismatched;
        unknown += later.unknown;
        missing += later.missing;
        if (firstMissing.empty())
        {
            firstMissing = later.firstMissing;
        }
        overrun += later.overrun;
        partial += later.partial;
        invalidated += later.invalidated;
        if (firstProblem.empty())
        {
            firstProblem = later.firstProblem;
        }
        return *this;
    }

    FlowChecker::FlowChecker(std::string const& domain, std::string const& flowId)
        : _instance{domain}
        , _reader{readerWhenThere(_instance, flowId)}
    {
        mxlFlowConfigInfo config{};
        if (::mxlFlowReaderGetConfigInfo(_reader.get(), &config) == MXL_STATUS_OK)
        {
            _onDevice = config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
        }
    }

    std::uint64_t FlowChecker::checksumOf(std::uint8_t const* payload, std::size_t bytes)
    {
        if (!_onDevice)
        {
            return fnv1a(payload, bytes);
        }
        _hostCopy.resize(bytes);
        if (auto const status = ::mxlFlowReaderCopyToHost(_reader.get(), _hostCopy.data(), payload, bytes); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{
                fmt::format("FlowChecker: copying a device grain to the host failed (mxlStatus {})", static_cast<int>(status))};
        }
        return fnv1a(_hostCopy.data(), bytes);
    }

    std::uint64_t FlowChecker::headIndex() const
    {
        mxlFlowRuntimeInfo runtime{};
        ::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime);
        return runtime.headIndex;
    }

    bool FlowChecker::restartPast(std::uint64_t oldHead, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (headIndex() <= oldHead)
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{5});
        }
        restartAtHead();
        return true;
    }

    bool FlowChecker::slotMovedOn(mxlGrainInfo const& read) const
    {
        mxlGrainInfo now{};
        std::uint8_t* payload = nullptr;
        auto const status = ::mxlFlowReaderGetGrainSliceNonBlocking(_reader.get(), _next, 0, &now, &payload);
        return status != MXL_STATUS_OK || now.index != read.index || now.flags != read.flags || now.validSlices != read.validSlices;
    }

    std::string FlowChecker::describeMissing(std::uint64_t head) const
    {
        auto const slotHeader = [this]
        {
            mxlGrainInfo slot{};
            std::uint8_t* payload = nullptr;
            auto const status = ::mxlFlowReaderGetGrainSliceNonBlocking(_reader.get(), _next, 0, &slot, &payload);
            return fmt::format("status {}, header index {}, flags {:#x}, slices {}/{}", static_cast<int>(status), slot.index, slot.flags,
                               slot.validSlices, slot.totalSlices);
        };
        auto const now = slotHeader();
        // Whether it was late rather than lost: a commit that lands after a newer grain's.
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
        return fmt::format("grain {} missing with the head at {}: its slot read {}; 50 ms later {}", _next, head, now, slotHeader());
    }

    CheckResult FlowChecker::check(PatternSource const& source, std::uint64_t grains, std::chrono::milliseconds timeout, bool watchPartials)
    {
        return checkGrains(&source, grains, timeout, watchPartials);
    }

    CheckResult FlowChecker::check(std::uint64_t grains, std::chrono::milliseconds timeout, bool watchPartials)
    {
        return checkGrains(nullptr, grains, timeout, watchPartials);
    }

    CheckResult FlowChecker::checkGrains(PatternSource const* source, std::uint64_t grains, std::chrono::milliseconds timeout,
                                         bool watchPartials)
    {
        CheckResult result;
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (result.verified < grains && std::chrono::steady_clock::now() < deadline)
        {
            auto const head = headIndex();
            if (head == 0)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{2});
                continue;
            }
            if (_next == 0)
            {
                _next = head;
            }
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            // Behind the head a grain that is not there is not coming: no need to wait for it.
            std::uint16_t const minValidSlices = watchPartials ? 1 : MXL_GRAIN_VALID_SLICES_ALL;
            auto status = head > _next
                              ? ::mxlFlowReaderGetGrainSliceNonBlocking(_reader.get(), _next, minValidSlices, &grain, &payload)
                              : ::mxlFlowReaderGetGrainSlice(_reader.get(), _next, minValidSlices, pollTimeoutNs, &grain, &payload);
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY && head > _next && _lateCommitWait.count() > 0)
            {
                // One wait per gap, not per grain: a gap of grains that never come costs the wait once.
                auto const now = std::chrono::steady_clock::now();
                _gapSeenAt = _gapSeenAt.value_or(now);
                if (auto const left = *_gapSeenAt + _lateCommitWait - now; left.count() > 0)
                {
                    auto const leftNs = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(left).count());
                    status = ::mxlFlowReaderGetGrainSlice(_reader.get(), _next, minValidSlices, leftNs, &grain, &payload);
                }
            }
            if (status == MXL_STATUS_OK)
            {
                _gapSeenAt.reset();
            }
            if (status == MXL_STATUS_OK && watchPartials && (grain.flags & MXL_GRAIN_FLAG_INVALID) == 0 &&
                grain.validSlices < grain.totalSlices)
            {
                ++result.partial;
                status = ::mxlFlowReaderGetGrain(_reader.get(), _next, 10 * pollTimeoutNs, &grain, &payload);
            }
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                result.overrun += head > _next ? head - _next : 1;
                _next = std::max(head, _next + 1);
                continue;
            }
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
            {
                // A newer grain is already there: this one is not coming.
                if (auto const newHead = headIndex(); newHead > _next)
                {
                    if (result.firstMissing.empty())
                    {
                        result.firstMissing = describeMissing(newHead);
                    }
                    ++result.missing;
                    ++_next;
                }
                continue;
            }
            if (status != MXL_STATUS_OK)
            {
                throw std::runtime_error{
                    fmt::format("FlowChecker: reading grain {} failed (mxlStatus {})", _next, static_cast<int>(status))};
            }

            if ((grain.flags & MXL_GRAIN_FLAG_INVALID) != 0 && grain.validSlices == 0 && grain.index == _next)
            {
                ++result.invalidated;
                ++_next;
                continue;
            }
            auto const expected =
                source != nullptr ? source->checksum(_next) : std::optional<std::uint64_t>{grainPatternChecksum(grain.grainSize, _next)};
            auto const actual = checksumOf(payload, grain.grainSize);
            bool const intact = expected && *expected == actual && grain.index == _next && grain.validSlices == grain.totalSlices;
            if (!intact && slotMovedOn(grain))
            {
                // A checker a ring behind reads a slot that the next transfer is already being written into (its in-flight
                // mark lands first and changes the header): the checker lost the race, the target committed nothing wrong.
                ++result.overrun;
                ++_next;
                continue;
            }
            if (!expected)
            {
                ++result.unknown;
            }
            else if (intact)
            {
                ++result.verified;
            }
            else
            {
                ++result.mismatched;
            }
            if (!intact && result.firstProblem.empty())
            {
                result.firstProblem = fmt::format("grain {}: header index {}, slices {}/{}, checksum {:016x}, source {}", _next,
                                                  grain.index, grain.validSlices, grain.totalSlices, actual,
                                                  expected ? fmt::format("{:016x}", *expected) : "never wrote it");
            }
            ++_next;
        }
        return result;
    }
}
