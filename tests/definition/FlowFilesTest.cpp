// The ready-made definitions in flows/ parse, have the geometry their names promise, and are listed in the README.
#include "TempDomain.hpp"
#include "flow/FlowDefinition.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>

namespace
{
    struct Expected
    {
        mxlDataFormat format;
        mxlRational rate;
        std::uint32_t grainSize;    // discrete
        std::uint32_t channelCount; // continuous
    };

    std::map<std::string, Expected> const expectedFlows{
        {"v210_1080p25.json", {MXL_DATA_FORMAT_VIDEO, {25, 1}, 5120 * 1080, 0}},
        {"v210_1080p50.json", {MXL_DATA_FORMAT_VIDEO, {50, 1}, 5120 * 1080, 0}},
        {"v210_1080p59.94.json", {MXL_DATA_FORMAT_VIDEO, {60000, 1001}, 5120 * 1080, 0}},
        {"v210_2160p59.94.json", {MXL_DATA_FORMAT_VIDEO, {60000, 1001}, 10240 * 2160, 0}},
        {"v210a_1080p59.94.json", {MXL_DATA_FORMAT_VIDEO, {60000, 1001}, (5120 + 2560) * 1080, 0}},
        {"audio_48k_stereo.json", {MXL_DATA_FORMAT_AUDIO, {48000, 1}, 0, 2}},
        {"audio_48k_16ch.json", {MXL_DATA_FORMAT_AUDIO, {48000, 1}, 0, 16}},
        {"smpte291_59.94.json", {MXL_DATA_FORMAT_DATA, {60000, 1001}, 4096, 0}},
    };
}

TEST_CASE("flows/: every definition parses with the geometry its name promises")
{
    auto const readme = mxl::test::readFile(mxl::test::sourcePath("flows/README.md"));
    std::set<std::string> ids;
    std::size_t files = 0;
    for (auto const& entry : std::filesystem::directory_iterator{mxl::test::sourcePath("flows")})
    {
        if (entry.path().extension() != ".json")
        {
            continue;
        }
        ++files;
        auto const name = entry.path().filename().string();
        CAPTURE(name);
        auto const found = expectedFlows.find(name);
        REQUIRE(found != expectedFlows.end());
        auto const& expected = found->second;

        auto const definition = mxl::parseFlowDefinition(mxl::test::readFile(entry.path()));
        CHECK(definition.format == expected.format);
        CHECK(definition.rate.numerator == expected.rate.numerator);
        CHECK(definition.rate.denominator == expected.rate.denominator);
        CHECK(definition.grainSize == expected.grainSize);
        CHECK(definition.channelCount == expected.channelCount);
        CHECK(definition.groupHints.size() == 1);
        CHECK(definition.groupHints[0].find(':') != std::string::npos);

        // Each file has its own id, so that several can run in one domain, and the README documents it.
        CHECK(ids.insert(definition.idString).second);
        CHECK(readme.find(name) != std::string::npos);
        CHECK(readme.find(definition.idString) != std::string::npos);
    }
    CHECK(files == expectedFlows.size());
}
