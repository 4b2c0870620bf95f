// The status file a fabrics service writes, read back as mxl-info reads it: the keys added after its first version.
#include <client/ServiceStatusFile.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace mxl::client;

namespace
{
    ServiceStatus someStatus()
    {
        ServiceStatus status;
        status.role = "target";
        status.flowId = "5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b";
        status.pid = 4242;
        status.state = "active";
        status.transport = "rma";
        return status;
    }
}

TEST_CASE("service status files: a device flow's payload location and device index are written and read back")
{
    auto status = someStatus();
    status.payloadLocation = "device";
    status.deviceIndex = 3;
    auto const text = serviceStatusJson(status);
    auto const json = nlohmann::json::parse(text);
    CHECK(json["payload_location"] == "device");
    CHECK(json["device_index"] == 3);
    auto const back = parseServiceStatus(text);
    CHECK(back.payloadLocation == "device");
    CHECK(back.deviceIndex == 3);
}

TEST_CASE("service status files: a host flow has a null device index, and files without the keys read as unknown")
{
    auto status = someStatus();
    status.payloadLocation = "host";
    auto const text = serviceStatusJson(status);
    auto const json = nlohmann::json::parse(text);
    CHECK(json["payload_location"] == "host");
    CHECK(json["device_index"].is_null());
    auto const back = parseServiceStatus(text);
    CHECK(back.payloadLocation == "host");
    CHECK_FALSE(back.deviceIndex.has_value());

    auto older = json;
    older.erase("payload_location");
    older.erase("device_index");
    auto const old = parseServiceStatus(older.dump());
    CHECK(old.payloadLocation.empty());
    CHECK_FALSE(old.deviceIndex.has_value());
}

TEST_CASE("service status files: the counters keep their keys (grains, bytes, late, lost, reconnects, stalls) and values")
{
    auto status = someStatus();
    status.counters = ServiceCounters{.units = 1'000'003, .bytes = 5'529'600'000'017, .late = 7, .lost = 11, .reconnects = 2, .stalls = 1};
    auto const text = serviceStatusJson(status);
    auto const json = nlohmann::json::parse(text);
    CHECK(json["grains"] == 1'000'003);
    CHECK(json["bytes"] == 5'529'600'000'017);
    CHECK(json["late"] == 7);
    CHECK(json["lost"] == 11);
    CHECK(json["reconnects"] == 2);
    CHECK(json["stalls"] == 1);
    auto const back = parseServiceStatus(text).counters;
    CHECK(back.units == 1'000'003);
    CHECK(back.bytes == 5'529'600'000'017);
    CHECK(back.late == 7);
    CHECK(back.lost == 11);
    CHECK(back.reconnects == 2);
    CHECK(back.stalls == 1);
}
