// Writer options (docs/flow-behaviour.md, "Writer options"), and the "Video Flow : Options" and "Audio Flow : Options"
// cases of the SDK's lib/tests/test_flows.cpp (tests 19 and 24 in the names) at the parser level.
#include "Rejection.hpp"
#include "flow/FlowDefinition.hpp"

#include <doctest/doctest.h>

using mxl::parseFlowOptions;

namespace
{
    void checkRejected(char const* options, std::initializer_list<std::string_view> fragments)
    {
        CAPTURE(options);
        mxl::test::checkRejected([&] { parseFlowOptions(options); }, fragments);
    }
}

TEST_CASE("flow options: NULL, empty and an empty object mean no options")
{
    for (auto const* options : {static_cast<char const*>(nullptr), "", "{}"})
    {
        auto const parsed = parseFlowOptions(options);
        CHECK_FALSE(parsed.maxCommitBatchSizeHint);
        CHECK_FALSE(parsed.maxSyncBatchSizeHint);
    }
}

TEST_CASE("flow options: must be a JSON object")
{
    checkRejected("def", {"flow options:", "not valid JSON"});
    checkRejected("[480]", {"flow options:", "JSON object", "array"});
    checkRejected("480", {"JSON object", "number"});
}

TEST_CASE("flow options: hints must be integers of at least 1 (tests 19 and 24)")
{
    checkRejected(R"({"maxCommitBatchSizeHint": 0})", {"\"maxCommitBatchSizeHint\"", "from 1 to 4294967295", "got 0"});
    checkRejected(R"({"maxCommitBatchSizeHint": -1})", {"\"maxCommitBatchSizeHint\"", "got -1"});
    checkRejected(R"({"maxSyncBatchSizeHint": -1})", {"\"maxSyncBatchSizeHint\"", "got -1"});
    checkRejected(R"({"maxSyncBatchSizeHint": 0})", {"\"maxSyncBatchSizeHint\"", "got 0"});
    checkRejected(R"({"maxCommitBatchSizeHint": "5"})", {"\"maxCommitBatchSizeHint\"", "got \"5\""});
    checkRejected(R"({"maxCommitBatchSizeHint": 2.5})", {"\"maxCommitBatchSizeHint\"", "got 2.5"});
    checkRejected(R"({"maxCommitBatchSizeHint": 4294967296})", {"\"maxCommitBatchSizeHint\"", "got 4294967296"});
}

TEST_CASE("flow options: sync must be a multiple of commit (tests 19 and 24)")
{
    checkRejected(R"({"maxCommitBatchSizeHint": 5, "maxSyncBatchSizeHint": 6})",
                  {"\"maxSyncBatchSizeHint\" must be a multiple of \"maxCommitBatchSizeHint\" (5), got 6"});
    checkRejected(R"({"maxCommitBatchSizeHint": 10, "maxSyncBatchSizeHint": 2})", {"\"maxSyncBatchSizeHint\"", "(10)", "got 2"});

    auto const accepted = parseFlowOptions(R"({"maxCommitBatchSizeHint": 5, "maxSyncBatchSizeHint": 10})");
    CHECK(accepted.maxCommitBatchSizeHint == 5u);
    CHECK(accepted.maxSyncBatchSizeHint == 10u);

    auto const syncOnly = parseFlowOptions(R"({"maxSyncBatchSizeHint": 7})");
    CHECK_FALSE(syncOnly.maxCommitBatchSizeHint);
    CHECK(syncOnly.maxSyncBatchSizeHint == 7u);
}

TEST_CASE("flow options: unknown keys are ignored and integral floats accepted")
{
    auto const parsed = parseFlowOptions(R"({"futureOption": true, "maxCommitBatchSizeHint": 480.0})");
    CHECK(parsed.maxCommitBatchSizeHint == 480u);
    CHECK_FALSE(parsed.maxSyncBatchSizeHint);
}

TEST_CASE("flow options: payloadLocation and deviceIndex")
{
    CHECK_FALSE(parseFlowOptions(R"({"payloadLocation": "host"})").deviceIndex);
    CHECK(parseFlowOptions(R"({"payloadLocation": "device", "deviceIndex": 0})").deviceIndex == 0);
    CHECK(parseFlowOptions(R"({"payloadLocation": "device", "deviceIndex": 3, "maxCommitBatchSizeHint": 8})").deviceIndex == 3);
    CHECK(parseFlowOptions(R"({"payloadLocation": "device", "deviceIndex": 2147483647})").deviceIndex == 2147483647);
}

TEST_CASE("flow options: bad payloadLocation and deviceIndex values are refused")
{
    checkRejected(R"({"payloadLocation": "gpu"})", {"\"payloadLocation\" must be \"host\" or \"device\"", "got \"gpu\""});
    checkRejected(R"({"payloadLocation": 1})", {"\"payloadLocation\"", "got 1"});
    checkRejected(R"({"payloadLocation": "device"})", {"\"payloadLocation\": \"device\" needs \"deviceIndex\""});
    checkRejected(R"({"deviceIndex": 0})", {"\"deviceIndex\" (0) needs \"payloadLocation\": \"device\""});
    checkRejected(R"({"payloadLocation": "host", "deviceIndex": 1})", {"\"deviceIndex\" (1) needs"});
    checkRejected(R"({"payloadLocation": "device", "deviceIndex": -1})",
                  {"\"deviceIndex\" must be an integer from 0 to 2147483647", "got -1"});
    checkRejected(R"({"payloadLocation": "device", "deviceIndex": "0"})", {"\"deviceIndex\"", "got \"0\""});
    checkRejected(R"({"payloadLocation": "device", "deviceIndex": 0.5})", {"\"deviceIndex\"", "got 0.5"});
    checkRejected(R"({"payloadLocation": "device", "deviceIndex": 2147483648})", {"\"deviceIndex\"", "got 2147483648"});
}
