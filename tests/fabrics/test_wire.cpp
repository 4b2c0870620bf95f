// The wire pieces that must match the MXL SDK byte for byte: base64, the ticket JSON, and which ranges of a grain a
// transfer writes with which immediate data.
#include "common/Base64.hpp"
#include "common/Status.hpp"
#include "fabrics/protocol/GrainGeometry.hpp"
#include "fabrics/protocol/Wire.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/fabric.h>

#include <cstddef>
#include <cstring>

using namespace mxl::fabrics;

TEST_CASE("base64 round-trips and rejects malformed text")
{
    using mxl::decodeBase64;
    using mxl::encodeBase64;
    CHECK(encodeBase64("") == "");
    CHECK(encodeBase64("\x01\x02\x03\x04\x05") == "AQIDBAU=");
    CHECK(encodeBase64("\xfb\xff") == "+/8=");
    CHECK(decodeBase64("AQIDBAU=") == std::string{"\x01\x02\x03\x04\x05"});
    CHECK(decodeBase64("+/8=") == std::string{"\xfb\xff"});
    for (std::size_t length = 0; length < 40; ++length)
    {
        std::string bytes(length, '\0');
        for (std::size_t i = 0; i < length; ++i)
        {
            bytes[i] = static_cast<char>(i * 37 + length);
        }
        CHECK(decodeBase64(encodeBase64(bytes)) == bytes);
    }
    CHECK_FALSE(decodeBase64("AQI"));
    CHECK_FALSE(decodeBase64("AQ==="));
    CHECK_FALSE(decodeBase64("A==="));
    CHECK_FALSE(decodeBase64("AQ-_"));
    CHECK_FALSE(decodeBase64("A=BC"));
    CHECK_FALSE(decodeBase64("AQID BAU="));
}

TEST_CASE("a grain commit's immediate data is the slot in the low 16 bits and the end slice in the high 16, as the SDK's")
{
    CHECK(wire::GrainCommit{5, 1080}.encode() == 0x04380005u);
    CHECK(wire::GrainCommit{0, 0}.encode() == 0u);
    CHECK(wire::GrainCommit{65535, 65535}.encode() == 0xFFFFFFFFu);
    for (std::uint32_t const immediate : {0x04380005u, 0x00010000u, 0x0000FFFFu, 0x12345678u})
    {
        auto const commit = wire::GrainCommit::decode(immediate);
        CHECK(commit.encode() == immediate);
        CHECK(commit.slot == (immediate & 0xFFFFu));
        CHECK(commit.endSlice == immediate >> 16);
    }
    // Slots of a 5-grain ring, and split regions: header 2s, payload 2s + 1.
    CHECK(wire::slotOf(7600, 5) == 0);
    CHECK(wire::slotOf(7603, 5) == 3);
    CHECK(wire::slotOf(0xFFFFFFFFFFFFFFFFull, 16) == 15);
    CHECK(wire::headerRegionOf(3, true) == 6);
    CHECK(wire::payloadRegionOf(3, true) == 7);
    CHECK(wire::headerRegionOf(3, false) == 3);
    CHECK(wire::payloadRegionOf(3, false) == 3);
    CHECK(sizeof(wire::SampleEntryHeader) == 16);
    CHECK(offsetof(wire::SampleEntryHeader, count) == 8);
}

TEST_CASE("a ticket serializes as the SDK's compact JSON with sorted keys and decimal strings")
{
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(24999);
    ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);

    TargetInfo info;
    info.id = 18446744073709551615ULL;
    info.fabricAddress.resize(sizeof(address));
    std::memcpy(info.fabricAddress.data(), &address, sizeof(address));
    info.addressFormat = FI_SOCKADDR_IN;
    info.provider = MXL_FABRICS_PROVIDER_TCP;
    info.regions = {{0, 5537792, 17918262359965949928ULL}, {140737488355328ULL, 8192, 1}};

    CHECK(info.toJson() ==
          R"({"addressFormat":2,"fabricAddress":"AgBhp38AAAEAAAAAAAAAAA==","id":"18446744073709551615","provider":"tcp",)"
          R"("regions":[{"addr":"0","len":"5537792","rkey":"17918262359965949928"},{"addr":"140737488355328","len":"8192","rkey":"1"}]})");
    CHECK(info.describeAddress() == "127.0.0.1:24999");
    CHECK(TargetInfo::fromJson(info.toJson().c_str()) == info);

    info.bounceBuffer = BounceBufferInfo{40, 3856};
    info.epoch = 42;
    auto const json = info.toJson();
    CHECK(json.find(R"("bounceBufferInfo":{"entryCount":"40","entrySize":"3856"},"epoch":"42","fabricAddress")") != std::string::npos);
    CHECK(TargetInfo::fromJson(json.c_str()) == info);
}

TEST_CASE("a ticket parser tolerates what the SDK tolerates")
{
    auto const parsed = TargetInfo::fromJson(
        R"({"zzz":[1,2],"addressFormat":9,"fabricAddress":"dGFyZ2V0OngA","id":"7","provider":"psm3","regions":[],"aaa":null})");
    CHECK(parsed.provider == MXL_FABRICS_PROVIDER_ANY);
    CHECK(parsed.addressFormat == FI_ADDR_STR);
    CHECK(parsed.describeAddress() == "target:x");
    CHECK_FALSE(parsed.bounceBuffer);
    CHECK(parsed.epoch == 0);
}

TEST_CASE("a ticket with split grain regions says so, and a split layout that cannot be one is refused")
{
    TargetInfo info;
    info.id = 5;
    info.fabricAddress = {1, 2, 3};
    info.addressFormat = FI_ADDR_STR;
    info.provider = MXL_FABRICS_PROVIDER_SHM;
    info.regions = {{4096, 8192, 11}, {1 << 20, 5529600, 12}, {12288, 8192, 13}, {(1 << 20) + 5533696, 5529600, 12}};
    info.splitGrainRegions = true;
    auto const json = info.toJson();
    CHECK(json.find(R"("grainRegions":"split","id":"5")") != std::string::npos);
    auto const parsed = TargetInfo::fromJson(json.c_str());
    CHECK(parsed == info);
    CHECK(parsed.grainSlotCount() == 2);

    info.splitGrainRegions = false;
    CHECK(info.toJson().find("grainRegions") == std::string::npos);
    CHECK(TargetInfo::fromJson(info.toJson().c_str()).grainSlotCount() == 4);

    auto const refusal = [](std::string const& text)
    {
        try
        {
            static_cast<void>(TargetInfo::fromJson(text.c_str()));
        }
        catch (mxl::Error const& e)
        {
            CHECK(e.status() == MXL_ERR_UNKNOWN);
            return std::string{e.what()};
        }
        FAIL("the ticket was taken: ", text);
        return std::string{};
    };
    auto const base = std::string{R"({"addressFormat":9,"fabricAddress":"AQID","id":"5","provider":"shm",)"};
    auto const two = std::string{R"("regions":[{"addr":"0","len":"8192","rkey":"1"},{"addr":"0","len":"64","rkey":"1"}])"};
    CHECK(refusal(base + two + R"(,"grainRegions":"interleaved"})") ==
          R"(target info: grainRegions must be "split" (or absent: one region per grain), not "interleaved")");
    CHECK(
        refusal(base + R"("regions":[{"addr":"0","len":"8192","rkey":"1"}],"grainRegions":"split"})") ==
        R"(target info: grainRegions "split" needs a header and a payload region per ring slot, but the ticket has 1 regions (an odd count))");
    CHECK(refusal(base + two + R"(,"bounceBufferInfo":{"entryCount":"2","entrySize":"64"},"grainRegions":"split"})") ==
          R"(target info: grainRegions "split" describes grain regions, but the ticket has a bounceBufferInfo (a sample-flow target))");
}

namespace
{
    GrainGeometry v210a()
    {
        return GrainGeometry{{5120, 2560, 0, 0}, 1080};
    }
}

TEST_CASE("a full grain's payload is one write of every plane, without the header")
{
    auto const geometry = v210a();
    CHECK(geometry.payloadBytes() == 1080u * 7680u);
    CHECK(geometry.regionBytes() == 8192u + 1080u * 7680u);
    CHECK(geometry.payloadRanges(0, 1080) == GrainRanges{{8192, 1080 * 7680}});
}

TEST_CASE("slice ranges write each plane, and the header travels only as the commit")
{
    auto const geometry = v210a();
    auto const keyBase = std::size_t{8192 + 1080 * 5120};
    CHECK(geometry.payloadRanges(0, 0).empty());
    CHECK(geometry.payloadRanges(0, 13) == GrainRanges{{8192, 13 * 5120}, {keyBase, 13 * 2560}});
    CHECK(geometry.payloadRanges(540, 1080) == GrainRanges{{8192 + 540 * 5120, 540 * 5120}, {keyBase + 540 * 2560, 540 * 2560}});
    CHECK(geometry.payloadRanges(7, 7).empty());

    GrainGeometry const v210{{5120, 0, 0, 0}, 1080};
    CHECK(v210.payloadRanges(1079, 1080) == GrainRanges{{8192 + 1079 * 5120, 5120}});
}

TEST_CASE("writes longer than the provider's limit are split in order")
{
    auto const pieces = splitRanges({{0, 10000}, {20000, 4096}}, 4096);
    CHECK(pieces == GrainRanges{{0, 4096}, {4096, 4096}, {8192, 1808}, {20000, 4096}});
}
