// The CUDA ordinal a tool takes, the flow options it merges it into, and how it names a flow's payload location.
#include <client/DeviceFlowOptions.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

using namespace mxl::client;

namespace
{
    // The message withDeviceOptions refuses `options` with for device 0, or "" when it takes them.
    std::string refusal(std::string const& options)
    {
        try
        {
            static_cast<void>(withDeviceOptions(options, "flow options file 'o.json'", 0, "--device 0"));
        }
        catch (DeviceOptionsConflict const& conflict)
        {
            return conflict.what();
        }
        return {};
    }
}

TEST_CASE("device ordinals: decimals from 0 to 2^31-1, nothing else")
{
    CHECK(parseDeviceIndex("0") == 0);
    CHECK(parseDeviceIndex("7") == 7);
    CHECK(parseDeviceIndex("2147483647") == 2147483647);
    for (auto const* text : {"", "-1", "-0", "+1", "2147483648", "99999999999", "x", "1x", " 1", "1 ", "0.5", "0x1"})
    {
        INFO("text: '", text, "'");
        CHECK_FALSE(parseDeviceIndex(text).has_value());
    }
}

TEST_CASE("device options are merged into the flow options, which keep their other keys")
{
    auto const none = nlohmann::json::parse(withDeviceOptions("", "no file", 3, "--device 3"));
    CHECK(none == nlohmann::json{{"payloadLocation", "device"}, {"deviceIndex", 3}});

    auto const hinted = nlohmann::json::parse(withDeviceOptions(R"({"maxCommitBatchSizeHint": 30})", "o.json", 1, "--device 1"));
    CHECK(hinted == nlohmann::json{{"maxCommitBatchSizeHint", 30}, {"payloadLocation", "device"}, {"deviceIndex", 1}});

    // Options that already ask for the same place are taken as they are.
    CHECK(refusal(R"({"payloadLocation": "device", "deviceIndex": 0})").empty());
    CHECK(refusal(R"({"payloadLocation": "device"})").empty());
}

TEST_CASE("flow options naming another location or device, or not an object, are refused naming the origin, the key and both values")
{
    CHECK(refusal(R"({"payloadLocation": "host"})") ==
          R"(flow options file 'o.json' has "payloadLocation": "host", but --device 0 asks for "payloadLocation": "device")");
    CHECK(refusal(R"({"payloadLocation": "device", "deviceIndex": 2})") ==
          R"(flow options file 'o.json' has "deviceIndex": 2, but --device 0 asks for "deviceIndex": 0)");
    CHECK(refusal(R"({"deviceIndex": "0"})") ==
          R"(flow options file 'o.json' has "deviceIndex": "0", but --device 0 asks for "deviceIndex": 0)");
    CHECK(refusal("[1, 2]") == "flow options file 'o.json' does not hold a JSON object, so --device 0 cannot be added to it");
    CHECK(refusal("{ not json") == "flow options file 'o.json' does not hold a JSON object, so --device 0 cannot be added to it");
}

TEST_CASE("a flow's payload location as the tools' lines name it")
{
    mxlCommonFlowConfigInfo common{};
    common.payloadLocation = MXL_PAYLOAD_LOCATION_HOST_MEMORY;
    common.deviceIndex = -1;
    CHECK(payloadLocationText(common) == "payloads in host memory");
    common.payloadLocation = MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
    common.deviceIndex = 2;
    CHECK(payloadLocationText(common) == "payloads on CUDA device 2");
}
