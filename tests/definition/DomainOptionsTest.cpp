// <domain>/options.json and the history duration: the "Default value", "Domain config" and "invalid configs" cases of
// the SDK's lib/internal/tests/test_options.cpp (tests 29 to 33 in the names are that file's five cases, in order);
// its two cases with instance options concern options that never reach this function.
#include "TempDomain.hpp"
#include "flow/FlowDefinition.hpp"

#include <doctest/doctest.h>

#include <fstream>

namespace
{
    void writeOptions(mxl::test::TempDomain const& domain, std::string const& text)
    {
        std::ofstream{domain.path() / "options.json"} << text;
    }
}

TEST_CASE("domain options: the default history is 200 ms (test 29)")
{
    mxl::test::TempDomain domain{"history"};
    CHECK(mxl::readHistoryDurationNs(domain.str()) == 200'000'000);
    CHECK(mxl::defaultHistoryDurationNs == 200'000'000);
}

TEST_CASE("domain options: options.json sets the history (test 30)")
{
    mxl::test::TempDomain domain{"history"};
    writeOptions(domain, R"({"urn:x-mxl:option:history_duration/v1.0": 500000000})");
    CHECK(mxl::readHistoryDurationNs(domain.str()) == 500'000'000);
    writeOptions(domain, R"({"urn:x-mxl:option:history_duration/v1.0": 5e8})");
    CHECK(mxl::readHistoryDurationNs(domain.str()) == 500'000'000);
}

TEST_CASE("domain options: a file without the key keeps the default")
{
    mxl::test::TempDomain domain{"history"};
    writeOptions(domain, R"({"urn:x-mxl:option:something_else/v1.0": 1})");
    CHECK(mxl::readHistoryDurationNs(domain.str()) == 200'000'000);
}

TEST_CASE("domain options: an unusable file falls back to the default (test 33)")
{
    mxl::test::TempDomain domain{"history"};
    for (auto const* text : {"abc", "[500000000]", R"({"urn:x-mxl:option:history_duration/v1.0": "500ms"})",
                             R"({"urn:x-mxl:option:history_duration/v1.0": 0})", R"({"urn:x-mxl:option:history_duration/v1.0": -1})",
                             R"({"urn:x-mxl:option:history_duration/v1.0": 0.5})"})
    {
        CAPTURE(text);
        writeOptions(domain, text);
        CHECK(mxl::readHistoryDurationNs(domain.str()) == 200'000'000);
    }
}

TEST_CASE("domain options: a missing domain falls back to the default")
{
    CHECK(mxl::readHistoryDurationNs("/nonexistent/mxl/domain") == 200'000'000);
}
