// Every class of malformed or unsupported NMOS flow definition (as the SDK's lib/internal/src/FlowParser.cpp rejects
// them), the geometry of each media type (docs/memory-layout.md) and the normalizations the parser applies.
#include "flow/FlowDefinition.hpp"
#include "Rejection.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

using mxl::parseFlowDefinition;
using nlohmann::json;

namespace
{
    constexpr auto grouphint = "urn:x-nmos:tag:grouphint/v1.0";
    constexpr auto grouphintField = "/tags/urn:x-nmos:tag:grouphint~1v1.0";

    // A flow of Test Source 1: the fields every NMOS flow has, its format "urn:x-nmos:format:<format>" and its label and group
    // hint naming it `name`, beside the fields of its format.
    json testSourceFlow(std::string const& id, std::string const& format, std::string const& name, json flow)
    {
        flow["id"] = id;
        flow["label"] = "Test Source 1 " + name;
        flow["format"] = "urn:x-nmos:format:" + format;
        flow["tags"][grouphint] = json::array({"Test Source 1:" + name});
        return flow;
    }

    json videoFlow()
    {
        return testSourceFlow("5fbec3b1-1b0f-417d-9059-8b94a47197ed", "video", "Video", json::parse(R"({
            "grain_rate": {"numerator": 30000, "denominator": 1001},
            "frame_width": 1920,
            "frame_height": 1080,
            "interlace_mode": "progressive",
            "media_type": "video/v210"
        })"));
    }

    json audioFlow()
    {
        return testSourceFlow("b3bb5be7-9fe9-4324-a5bb-4c70e1084449", "audio", "Audio", json::parse(R"({
            "sample_rate": {"numerator": 48000},
            "media_type": "audio/float32",
            "bit_depth": 32,
            "channel_count": 2
        })"));
    }

    json dataFlow()
    {
        return testSourceFlow("db3bd465-2772-484f-8fac-830b0471258b", "data", "Data", json::parse(R"({
            "grain_rate": {"numerator": 30000, "denominator": 1001},
            "media_type": "video/smpte291"
        })"));
    }

    void expectRejected(json const& definition, std::initializer_list<std::string_view> fragments)
    {
        auto const text = definition.dump();
        mxl::test::checkRejected([&] { parseFlowDefinition(text); }, fragments);
    }

    // A value one field is given (nullopt: the field is left out) and the fragments its rejection must name.
    struct BadValue
    {
        std::optional<json> value;
        std::initializer_list<std::string_view> fragments;
    };

    // Each bad value in turn as the field at JSON pointer `field` of `flow`, the other fields as they are.
    void expectFieldRejected(json const& flow, std::string const& field, std::initializer_list<BadValue> badValues)
    {
        json::json_pointer const pointer{field};
        for (auto const& bad : badValues)
        {
            auto changed = flow;
            if (bad.value)
            {
                changed[pointer] = *bad.value;
            }
            else
            {
                changed.at(pointer.parent_pointer()).erase(pointer.back());
            }
            INFO(field, ": ", bad.value ? bad.value->dump() : "left out");
            expectRejected(changed, bad.fragments);
        }
    }
}

TEST_CASE("flow definition: the text must be a JSON object")
{
    mxl::test::checkRejected([] { parseFlowDefinition("{\"id\": "); }, {"flow definition:", "not valid JSON"});
    mxl::test::checkRejected([] { parseFlowDefinition(""); }, {"not valid JSON"});
    mxl::test::checkRejected([] { parseFlowDefinition("[1, 2]"); }, {"root must be a JSON object", "array"});
    mxl::test::checkRejected([] { parseFlowDefinition("\"flow\""); }, {"root must be a JSON object", "string"});
}

TEST_CASE("flow definition: id must be a UUID string")
{
    expectFieldRejected(videoFlow(), "/id",
                        {{std::nullopt, {"\"id\" is missing", "UUID"}},
                         {42, {"\"id\" must be", "UUID", "got 42"}},
                         {"5fbec3b1-1b0f-417d-9059-8b94a47197e", {"\"id\"", "got \"5fbec3b1-1b0f-417d-9059-8b94a47197e\""}},
                         {"5fbec3b1-1b0f-417d-9059-8b94a47197eg", {"\"id\"", "8b94a47197eg"}}});
}

TEST_CASE("flow definition: only video, audio and data formats are supported")
{
    expectFieldRejected(videoFlow(), "/format",
                        {{"urn:x-nmos:format:mux", {"\"format\"", "supported flow format", "got \"urn:x-nmos:format:mux\""}},
                         {"video", {"\"format\"", "got \"video\""}},
                         {1, {"\"format\"", "got 1"}},
                         {std::nullopt, {"\"format\" is missing"}}});
}

TEST_CASE("flow definition: the rate is grain_rate for video and data, sample_rate for audio")
{
    expectFieldRejected(videoFlow(), "/grain_rate",
                        {{std::nullopt, {"\"grain_rate\" is missing", "numerator"}}, {25, {"\"grain_rate\" must be an object", "got 25"}}});
    expectFieldRejected(dataFlow(), "/grain_rate", {{std::nullopt, {"\"grain_rate\" is missing"}}});

    auto audio = audioFlow();
    audio.erase("sample_rate");
    audio["grain_rate"] = {{"numerator", 48000}};
    expectRejected(audio, {"\"sample_rate\" is missing"});
}

TEST_CASE("flow definition: the rate numerator and denominator must be positive integers")
{
    expectFieldRejected(
        videoFlow(), "/grain_rate",
        {{json{{"denominator", 1}}, {"\"grain_rate.numerator\" is missing", "positive integer"}},
         {json{{"numerator", 0}}, {"\"grain_rate.numerator\" must be a positive integer", "got 0"}},
         {json{{"numerator", -25}}, {"\"grain_rate.numerator\"", "got -25"}},
         {json{{"numerator", "25"}}, {"\"grain_rate.numerator\"", "got \"25\""}},
         {json{{"numerator", 29.97}}, {"\"grain_rate.numerator\"", "got 29.97"}},
         {json{{"numerator", 30000}, {"denominator", 0}}, {"\"grain_rate.denominator\" must be a positive integer", "got 0"}}});
    expectFieldRejected(audioFlow(), "/sample_rate", {{json{{"numerator", -48000}}, {"\"sample_rate.numerator\"", "got -48000"}}});
}

TEST_CASE("flow definition: rates are reduced, the denominator defaults to 1 and integral floats are accepted")
{
    auto flow = videoFlow();
    flow["grain_rate"] = {{"numerator", 100000}, {"denominator", 2000}};
    auto rate = parseFlowDefinition(flow.dump()).rate;
    CHECK(rate.numerator == 50);
    CHECK(rate.denominator == 1);

    flow["grain_rate"] = {{"numerator", 25}};
    rate = parseFlowDefinition(flow.dump()).rate;
    CHECK(rate.numerator == 25);
    CHECK(rate.denominator == 1);

    flow["grain_rate"] = {{"numerator", 60000.0}, {"denominator", 1001.0}};
    rate = parseFlowDefinition(flow.dump()).rate;
    CHECK(rate.numerator == 60000);
    CHECK(rate.denominator == 1001);
}

TEST_CASE("flow definition: label must be a non-empty string")
{
    expectFieldRejected(videoFlow(), "/label",
                        {{std::nullopt, {"\"label\" is missing", "non-empty string"}},
                         {"", {"\"label\" must be a non-empty string", "got \"\""}},
                         {7, {"\"label\"", "got 7"}}});
}

TEST_CASE("flow definition: tags must hold a non-empty grouphint array")
{
    expectFieldRejected(videoFlow(), "/tags",
                        {{std::nullopt, {"\"tags\" is missing", grouphint}}, {json::array(), {"\"tags\" must be an object", "got []"}}});
    expectFieldRejected(videoFlow(), grouphintField,
                        {{std::nullopt, {"\"tags.urn:x-nmos:tag:grouphint/v1.0\" is missing", "non-empty array"}},
                         {json::array(), {"\"tags.urn:x-nmos:tag:grouphint/v1.0\" must be a non-empty array", "got []"}},
                         {"Camera:Video", {"\"tags.urn:x-nmos:tag:grouphint/v1.0\"", "got \"Camera:Video\""}}});
}

TEST_CASE("flow definition: every grouphint entry is <group>:<role>[:<scope>]")
{
    auto const rejectsEntry = [](json const& entry, std::size_t index, std::string const& shown)
    {
        auto flow = videoFlow();
        flow["tags"][grouphint].push_back(entry);
        CAPTURE(shown);
        expectRejected(flow, {fmt::format("\"tags.urn:x-nmos:tag:grouphint/v1.0[{}]\"", index), "<group>:<role>", "got " + shown});
    };
    rejectsEntry("a/b/c", 1, "\"a/b/c\"");
    rejectsEntry("Camera", 1, "\"Camera\"");
    rejectsEntry(":Video", 1, "\":Video\"");
    rejectsEntry("Camera:", 1, "\"Camera:\"");
    rejectsEntry("Camera:Video:host", 1, "\"Camera:Video:host\"");
    rejectsEntry("Camera:Video:", 1, "\"Camera:Video:\"");
    rejectsEntry("Camera:Video:node:extra", 1, "\"Camera:Video:node:extra\"");
    rejectsEntry(5, 1, "5");

    auto flow = videoFlow();
    flow["tags"][grouphint] = {"Camera 1:Video", "Studio A:Program:device", "Studio A:Program:node"};
    CHECK(parseFlowDefinition(flow.dump()).groupHints ==
          std::vector<std::string>{"Camera 1:Video", "Studio A:Program:device", "Studio A:Program:node"});
}

TEST_CASE("flow definition: video frame size ranges")
{
    expectFieldRejected(videoFlow(), "/frame_width",
                        {{8000, {"flow definition: \"frame_width\" must be an integer from 2 to 7680, got 8000"}},
                         {1, {"\"frame_width\"", "got 1"}},
                         {"1920", {"\"frame_width\"", "got \"1920\""}},
                         {std::nullopt, {"\"frame_width\" is missing", "2 to 7680"}}});
    expectFieldRejected(videoFlow(), "/frame_height",
                        {{0, {"\"frame_height\" must be an integer from 1 to 4320, got 0"}},
                         {4321, {"\"frame_height\"", "got 4321"}},
                         {std::nullopt, {"\"frame_height\" is missing"}}});

    auto flow = videoFlow();
    flow["frame_width"] = 7680;
    flow["frame_height"] = 4320;
    CHECK(parseFlowDefinition(flow.dump()).grainSize == 20480 * 4320);
    flow["frame_width"] = 2;
    flow["frame_height"] = 1;
    CHECK(parseFlowDefinition(flow.dump()).grainSize == 128);
}

TEST_CASE("flow definition: interlace_mode values")
{
    expectFieldRejected(
        videoFlow(), "/interlace_mode",
        {{"interlaced_psf",
          {"\"interlace_mode\" must be \"progressive\", \"interlaced_tff\" or \"interlaced_bff\"", "got \"interlaced_psf\""}},
         {true, {"\"interlace_mode\"", "got true"}}});

    auto flow = videoFlow();
    flow.erase("interlace_mode");
    auto const progressive = parseFlowDefinition(flow.dump());
    CHECK_FALSE(progressive.interlaced);
    CHECK(progressive.totalSlices == 1080);
}

TEST_CASE("flow definition: interlaced video needs a 25 or 29.97 Hz frame rate and an even height")
{
    auto flow = videoFlow();
    flow["interlace_mode"] = "interlaced_tff";
    flow["grain_rate"] = {{"numerator", 60000}, {"denominator", 1001}};
    expectRejected(flow, {"\"grain_rate\" must be 30000/1001 or 25/1", "\"interlaced_tff\"", "got 60000/1001"});
    flow["grain_rate"] = {{"numerator", 50}};
    expectRejected(flow, {"\"grain_rate\"", "got 50/1"});

    flow["grain_rate"] = {{"numerator", 30000}, {"denominator", 1001}};
    flow["frame_height"] = 1081;
    expectRejected(flow, {"\"frame_height\" must be even for interlaced video", "got 1081"});
}

TEST_CASE("flow definition: interlaced grains are fields at twice the frame rate")
{
    auto flow = videoFlow();
    flow["interlace_mode"] = "interlaced_tff";
    auto const ntsc = parseFlowDefinition(flow.dump());
    CHECK(ntsc.interlaced);
    CHECK(ntsc.rate.numerator == 60000);
    CHECK(ntsc.rate.denominator == 1001);
    CHECK(ntsc.totalSlices == 540);
    CHECK(ntsc.grainSize == 5120 * 540);

    // 50/2 is 25/1 once reduced, so it counts as the PAL frame rate.
    flow["interlace_mode"] = "interlaced_bff";
    flow["grain_rate"] = {{"numerator", 50}, {"denominator", 2}};
    auto const pal = parseFlowDefinition(flow.dump());
    CHECK(pal.rate.numerator == 50);
    CHECK(pal.rate.denominator == 1);
    CHECK(pal.frameHeight == 1080);
}

TEST_CASE("flow definition: media_type must be v210 or v210a for video and smpte291 for data")
{
    expectFieldRejected(videoFlow(), "/media_type",
                        {{std::nullopt, {"\"media_type\" is missing", "\"video/v210\" or \"video/v210a\""}},
                         {"video/raw", {"\"media_type\" must be \"video/v210\" or \"video/v210a\" for a video flow", "got \"video/raw\""}},
                         {"video/smpte291", {"\"media_type\"", "got \"video/smpte291\""}}});
    expectFieldRejected(dataFlow(), "/media_type",
                        {{std::nullopt, {"\"media_type\" is missing", "\"video/smpte291\""}},
                         {"video/v210", {"\"media_type\" must be \"video/smpte291\" for a data flow", "got \"video/v210\""}}});
}

TEST_CASE("flow definition: audio bit_depth is 32 or 64")
{
    expectFieldRejected(audioFlow(), "/bit_depth",
                        {{std::nullopt, {"\"bit_depth\" is missing", "32 or 64"}},
                         {24, {"\"bit_depth\" must be 32 or 64", "got 24"}},
                         {48, {"\"bit_depth\"", "got 48"}},
                         {"32", {"\"bit_depth\"", "got \"32\""}}});

    auto flow = audioFlow();
    flow["bit_depth"] = 64;
    CHECK(parseFlowDefinition(flow.dump()).sampleWordBytes == 8);
    flow["bit_depth"] = 32;
    CHECK(parseFlowDefinition(flow.dump()).sampleWordBytes == 4);
}

TEST_CASE("flow definition: audio channel_count is a positive integer, one when absent")
{
    expectFieldRejected(audioFlow(), "/channel_count",
                        {{0, {"\"channel_count\" must be a positive integer", "got 0"}},
                         {-2, {"\"channel_count\"", "got -2"}},
                         {2.5, {"\"channel_count\"", "got 2.5"}},
                         {"2", {"\"channel_count\"", "got \"2\""}}});

    auto flow = audioFlow();
    flow.erase("channel_count");
    CHECK(parseFlowDefinition(flow.dump()).channelCount == 1);
}

TEST_CASE("flow definition: audio media_type is not checked, as in the SDK")
{
    auto flow = audioFlow();
    flow["media_type"] = "audio/L24";
    CHECK(parseFlowDefinition(flow.dump()).format == MXL_DATA_FORMAT_AUDIO);
    flow.erase("media_type");
    auto const audio = parseFlowDefinition(flow.dump());
    CHECK(audio.mediaType.empty());
    CHECK(audio.channelCount == 2);
    CHECK(audio.rate.numerator == 48000);
    CHECK(audio.rate.denominator == 1);
}

TEST_CASE("flow definition: fields are checked in the SDK's order")
{
    // Several faults at once: the first one in the order id, format, rate, label, tags, frame, media wins.
    auto flow = videoFlow();
    flow["label"] = "";
    flow["frame_width"] = 0;
    flow.erase("media_type");
    expectRejected(flow, {"\"label\""});
    flow["grain_rate"] = {{"numerator", 0}};
    expectRejected(flow, {"\"grain_rate.numerator\""});
    flow["id"] = "nope";
    expectRejected(flow, {"\"id\""});
}

TEST_CASE("flow definition: the parsed fields of a v210 flow")
{
    auto flow = videoFlow();
    flow["id"] = "{5FBEC3B1-1B0F-417D-9059-8B94A47197ED}";
    auto const video = parseFlowDefinition(flow.dump());
    CHECK(video.idString == "5fbec3b1-1b0f-417d-9059-8b94a47197ed");
    CHECK(video.id[0] == 0x5f);
    CHECK(video.id[15] == 0xed);
    CHECK(video.format == MXL_DATA_FORMAT_VIDEO);
    CHECK(video.label == "Test Source 1 Video");
    CHECK(video.groupHints == std::vector<std::string>{"Test Source 1:Video"});
    CHECK(video.mediaType == "video/v210");
    CHECK(video.frameWidth == 1920);
    CHECK(video.frameHeight == 1080);
    CHECK(video.sliceSizes == std::array<std::uint32_t, 4>{5120, 0, 0, 0});
    CHECK(video.totalSlices == 1080);
    CHECK(video.grainSize == 5'529'600);
}

TEST_CASE("flow definition: v210 lines are padded to 48 pixels, the v210a key to 3 samples per word")
{
    auto flow = videoFlow();
    flow["media_type"] = "video/v210a";
    auto const fillAndKey = parseFlowDefinition(flow.dump());
    CHECK(fillAndKey.sliceSizes == std::array<std::uint32_t, 4>{5120, 2560, 0, 0});
    CHECK(fillAndKey.grainSize == 8'294'400);

    flow["frame_width"] = 1280;
    flow["frame_height"] = 720;
    auto const hd720 = parseFlowDefinition(flow.dump());
    CHECK(hd720.sliceSizes == std::array<std::uint32_t, 4>{27 * 128, 427 * 4, 0, 0});
    CHECK(hd720.grainSize == (27 * 128 + 427 * 4) * 720);

    flow["media_type"] = "video/v210";
    flow["frame_width"] = 49;
    CHECK(parseFlowDefinition(flow.dump()).sliceSizes[0] == 256);
}

TEST_CASE("flow definition: an smpte291 grain is 4096 one-byte slices")
{
    auto const data = parseFlowDefinition(dataFlow().dump());
    CHECK(data.format == MXL_DATA_FORMAT_DATA);
    CHECK(data.mediaType == "video/smpte291");
    CHECK(data.sliceSizes == std::array<std::uint32_t, 4>{1, 0, 0, 0});
    CHECK(data.totalSlices == 4096);
    CHECK(data.grainSize == MXL_DATA_FORMAT_GRAIN_SIZE);
}
