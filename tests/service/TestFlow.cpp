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
