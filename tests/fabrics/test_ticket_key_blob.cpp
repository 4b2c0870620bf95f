// Tickets whose regions carry a backend's key of any size (UCX's packed rkey) next to libfabric's 64-bit rkey.
#include "common/Status.hpp"
#include "fabrics/ticket/TargetInfo.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"

#include <mxl/fabrics.h>

#include <doctest/doctest.h>

using mxl::fabrics::RemoteRegion;
using mxl::fabrics::TargetInfo;
using mxl::fabrics::TicketAddressFormat;

namespace
{
    TargetInfo ucxTicket()
    {
        TargetInfo info;
        info.id = 5;
        info.fabricAddress = {0xfe, 0x01, 0x02};
        info.addressFormat = static_cast<std::uint32_t>(TicketAddressFormat::UcxWorkerAddress);
        info.provider = MXL_FABRICS_PROVIDER_SHM;
        RemoteRegion region;
        region.addr = 140737488355328ULL;
        region.len = 12288;
        region.keyBlob = {0x00, 0x01, 0xfb, 0xff, 0x10};
        info.regions = {region, RemoteRegion{0, 8192, 3}};
        return info;
    }
}

TEST_CASE("a ticket region with a key blob writes it as base64 rkeyBlob and reads it back")
{
    auto const info = ucxTicket();
    auto const json = info.toJson();
    CHECK(json == R"({"addressFormat":1297612801,"fabricAddress":"/gEC","id":"5","provider":"shm",)"
                  R"("regions":[{"addr":"140737488355328","len":"12288","rkeyBlob":"AAH7/xA="},{"addr":"0","len":"8192","rkey":"3"}]})");
    auto const parsed = TargetInfo::fromJson(json.c_str());
    CHECK(parsed == info);
    CHECK(parsed.regions[0].keyBlob == std::vector<std::uint8_t>{0x00, 0x01, 0xfb, 0xff, 0x10});
    CHECK(parsed.regions[0].rkey == 0);
    CHECK(parsed.regions[1].keyBlob.empty());
    CHECK(parsed.regions[1].rkey == 3);
}

TEST_CASE("a malformed rkeyBlob is refused with the field and the value")
{
    auto const status = [](char const* json, std::string& text)
    {
        try
        {
            TargetInfo::fromJson(json);
        }
        catch (mxl::Error const& e)
        {
            text = e.what();
            return e.status();
        }
        return MXL_STATUS_OK;
    };
    std::string text;
    CHECK(
        status(
            R"({"addressFormat":1297612801,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[{"addr":"0","len":"1","rkeyBlob":"A=B"}]})",
            text) == MXL_ERR_UNKNOWN);
    CHECK(text == R"(target info: "rkeyBlob" of a region must be non-empty standard base64, not "A=B")");
    CHECK(
        status(
            R"({"addressFormat":1297612801,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[{"addr":"0","len":"1","rkeyBlob":""}]})",
            text) == MXL_ERR_UNKNOWN);
    CHECK(text == R"(target info: "rkeyBlob" of a region must be non-empty standard base64, not "")");
    CHECK(
        status(
            R"({"addressFormat":1297612801,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[{"addr":"0","len":"1","rkeyBlob":7}]})",
            text) == MXL_ERR_UNKNOWN);
    CHECK(text == R"(target info: "rkeyBlob" of a region must be a string, not number)");
    CHECK(status(R"({"addressFormat":1297612801,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[{"addr":"0","len":"1"}]})",
                 text) == MXL_ERR_UNKNOWN);
    CHECK(text == R"(target info: a region has no "rkey")");
    CHECK(status(R"({"addressFormat":1297612802,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[]})", text) ==
          MXL_ERR_INVALID_ARG);
    CHECK(text == "target info: addressFormat 1297612802 is not an address format MXL uses (a libfabric one or a UCX worker address)");
}
