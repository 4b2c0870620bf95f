// The history duration as a writer sees it (the cases of the SDK's lib/internal/tests/test_options.cpp with instance
// options, through the API): only <domain>/options.json sets it; instance options never do. Observed through the
// grain count of a 25 Hz flow: 200 ms → 5 grains, 500 ms → 12.
#include "TempDomain.hpp"

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <doctest/doctest.h>

#include <fstream>

namespace
{
    constexpr auto instanceHistory250ms = R"({"urn:x-mxl:option:history_duration/v1.0": 250000000})";

    std::uint32_t grainCountOfNewFlow(mxl::test::TempDomain const& domain, char const* instanceOptions)
    {
        auto* instance = mxlCreateInstance(domain.str().c_str(), instanceOptions);
        REQUIRE(instance != nullptr);
        auto const definition = mxl::test::readFile(mxl::test::sourcePath("flows/v210_1080p25.json"));
        mxlFlowWriter writer = nullptr;
        mxlFlowConfigInfo config{};
        REQUIRE(mxlCreateFlowWriter(instance, definition.c_str(), nullptr, &writer, &config, nullptr) == MXL_STATUS_OK);
        CHECK(mxlReleaseFlowWriter(instance, writer) == MXL_STATUS_OK);
        CHECK(mxlDestroyInstance(instance) == MXL_STATUS_OK);
        return config.discrete.grainCount;
    }
}

TEST_CASE("history through the API: instance options do not change the history (test 31)")
{
    mxl::test::TempDomain domain{"history-api"};
    CHECK(grainCountOfNewFlow(domain, instanceHistory250ms) == 5);
}

TEST_CASE("history through the API: the domain's options.json wins over instance options (test 32)")
{
    mxl::test::TempDomain domain{"history-api"};
    std::ofstream{domain.path() / "options.json"} << R"({"urn:x-mxl:option:history_duration/v1.0": 500000000})";
    CHECK(grainCountOfNewFlow(domain, instanceHistory250ms) == 12);
}

TEST_CASE("history through the API: invalid domain and instance options fall back to 200 ms (test 33)")
{
    mxl::test::TempDomain domain{"history-api"};
    std::ofstream{domain.path() / "options.json"} << "abc";
    CHECK(grainCountOfNewFlow(domain, "def") == 5);
}
