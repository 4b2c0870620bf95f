#include "TestFlow.hpp"

#include "FlowWait.hpp"

#include "Checksum.hpp"
#include "GrainPattern.hpp"
#include "TempDomain.hpp"

#include <doctest/doctest.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace mxl::test
{
    PatternWriter::PatternWriter(std::filesystem::path const& domain, std::filesystem::path const& definition)
        : _instance{domain}
        , _writer{_instance, readFile(definition), {}, definition.string()}
    {
        _thread = std::jthread{[this](std::stop_token const& stop) { writeLoop(stop); }};
    }

    void PatternWriter::writeLoop(std::stop_token const& stop)
    {
        auto const rate = _writer.config().common.grainRate;
        auto index = ::mxlGetCurrentIndex(&rate);
        while (!stop.stop_requested())
        {
            ::mxlSleepUntil(::mxlIndexToTimestamp(&rate, index));
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            if (::mxlFlowWriterOpenGrain(_writer.get(), index, &grain, &payload) == MXL_STATUS_OK)
            {
                fillGrainPattern(payload, grain.grainSize, index);
                grain.validSlices = grain.totalSlices;
                ::mxlFlowWriterCommitGrain(_writer.get(), &grain);
            }
            index = std::max(index + 1, ::mxlGetCurrentIndex(&rate));
        }
    }

    GrainVerifier::GrainVerifier(std::filesystem::path const& domain, std::string const& flowId)
        : _instance{domain}
        , _reader{readerWhenThere(_instance, flowId)}
    {
    }

    Verification GrainVerifier::check(std::uint64_t wanted, std::chrono::milliseconds timeout)
    {
        Verification result;
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (result.verified < wanted && std::chrono::steady_clock::now() < deadline)
        {
            mxlFlowRuntimeInfo runtime{};
            ::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime);
            if (runtime.headIndex == 0 || runtime.headIndex < _next)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{5});
                continue;
            }
            // Start at the head, and jump there when the ring has moved past the grain we were at.
            if (_next == 0 || runtime.headIndex - _next > 8)
            {
                result.overrun += _next == 0 ? 0 : runtime.headIndex - _next;
                _next = runtime.headIndex;
            }
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            auto const status = ::mxlFlowReaderGetGrainNonBlocking(_reader.get(), _next, &grain, &payload);
            if (status != MXL_STATUS_OK || grain.index != _next || grain.validSlices < grain.totalSlices)
            {
                // Not (completely) arrived: a lost grain once a later one is the head, else wait for it.
                if (_next < runtime.headIndex)
                {
                    ++result.missing;
                    ++_next;
                }
                else
                {
                    std::this_thread::sleep_for(std::chrono::milliseconds{2});
                }
                continue;
            }
            if (fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, _next))
            {
                ++result.verified;
                result.lastIndex = _next;
            }
            else
            {
                ++result.mismatched;
            }
            ++_next;
        }
        return result;
    }

    void requireFlowing(GrainVerifier& verifier, std::uint64_t grains, std::chrono::milliseconds timeout,
                        std::function<std::string()> const& context)
    {
        auto const result = verifier.check(grains, timeout);
        bool const failed = result.verified < grains || result.mismatched != 0;
        INFO((failed ? context() : std::string{}));
        CHECK(result.mismatched == 0);
        REQUIRE(result.verified >= grains);
    }

    void requireFlowing(GrainVerifier& verifier, std::uint64_t grains, std::string const& when)
    {
        requireFlowing(verifier, grains, std::chrono::seconds{10}, [&] { return when; });
    }
}
