#include "TestFlow.hpp"

#include <doctest/doctest.h>

namespace mxl::test
{
    void requireFlowing(FlowChecker& verifier, std::uint64_t grains, std::chrono::milliseconds timeout,
                        std::function<std::string()> const& context)
    {
        auto const result = verifier.check(grains, timeout);
        bool const failed = result.verified < grains || result.mismatched != 0;
        INFO((failed ? context() + (result.firstProblem.empty() ? "" : "; first problem: " + result.firstProblem) : std::string{}));
        CHECK(result.mismatched == 0);
        REQUIRE(result.verified >= grains);
    }

    void requireFlowing(FlowChecker& verifier, std::uint64_t grains, std::string const& when)
    {
        requireFlowing(verifier, grains, std::chrono::seconds{30}, [&] { return when; });
    }
}
