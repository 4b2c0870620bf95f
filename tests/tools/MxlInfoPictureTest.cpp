// mxl-info --snapshot and --watch as processes: PNG pictures of grains and audio written by a real mxl-test-source,
// decoded again and checked pixel by pixel against what the source drew, and the level meter of the tone.
#include "Process.hpp"
#include "RunningSource.hpp"
#include "TempDomain.hpp"
#include "ToolRun.hpp"

#include <doctest/doctest.h>
#include <png.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <vector>

using namespace mxl::test;

namespace
{
    bool pictureContains(std::string const& text, std::string const& part)
    {
        return text.find(part) != std::string::npos;
    }

    // mxl-info --snapshot of `what` (FLOW[@INDEX]) in `domain` into `file`.
    ToolResult snapshot(TempDomain const& domain, std::string const& what, std::filesystem::path const& file)
    {
        return runTool(mxlInfoPath(), {"-d", domain.str(), "--snapshot", what, file.string()});
    }

    // mxl-test-source writing the one flow of the test data file `flowFile` (`option` -v or -a) in a domain of its own;
    // it has written grains once constructed.
    struct OneFlowSource
    {
        OneFlowSource(std::string const& tag, char const* option, char const* flowFile, std::string const& mediaType)
            : domain{tag}
            , source{domain.path(), {option, toolTestData(flowFile).string()}, 1}
            , flowId{source.flowId(mediaType)}
        {
            source.requireStats(std::chrono::seconds{10});
        }

        TempDomain domain;
        RunningSource source;
        std::string flowId;
    };

    // A snapshot that mxl-info writes: it exits 0, and what it printed is shown where it does not.
    ToolResult snapshotWritten(TempDomain const& domain, std::string const& what, std::filesystem::path const& file)
    {
        auto result = snapshot(domain, what, file);
        INFO(result.output);
        REQUIRE(result.exitCode == 0);
        return result;
    }

    // A snapshot that mxl-info refuses with `exitCode`, saying `says`.
    void checkSnapshotRefused(TempDomain const& domain, std::string const& what, std::filesystem::path const& file, int exitCode,
                              std::string const& says)
    {
        checkTool(mxlInfoPath(), {"-d", domain.str(), "--snapshot", what, file.string()}, exitCode, {says});
    }

    struct DecodedPng
    {
        std::uint32_t width = 0;
        std::uint32_t height = 0;
        std::uint32_t channels = 0;
        std::vector<std::uint8_t> pixels;

        [[nodiscard]] std::uint8_t const* at(std::uint32_t x, std::uint32_t y) const
        {
            return pixels.data() + (static_cast<std::size_t>(y) * width + x) * channels;
        }
    };

    // Decodes as stored: RGB stays RGB, RGBA stays RGBA.
    DecodedPng readPng(std::filesystem::path const& file)
    {
        png_image image{};
        image.version = PNG_IMAGE_VERSION;
        REQUIRE_MESSAGE(png_image_begin_read_from_file(&image, file.c_str()) != 0, file.string());
        DecodedPng decoded;
        decoded.width = image.width;
        decoded.height = image.height;
        decoded.channels = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0 ? 4 : 3;
        image.format = decoded.channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
        decoded.pixels.resize(PNG_IMAGE_SIZE(image));
        REQUIRE(png_image_finish_read(&image, nullptr, decoded.pixels.data(), 0, nullptr) != 0);
        return decoded;
    }

    void checkColour(DecodedPng const& picture, std::uint32_t x, std::uint32_t y, std::array<int, 3> const& expected)
    {
        auto const* pixel = picture.at(x, y);
        for (std::size_t c = 0; c < 3; ++c)
        {
            INFO("pixel ", x, ",", y, " component ", c, " is ", int{pixel[c]}, ", expected ", expected[c]);
            CHECK(std::abs(int{pixel[c]} - expected[c]) <= 2);
        }
    }

    // 75 % bars in 8-bit R'G'B' (BT.709 narrow range 75 % = 191 of 255): white, yellow, cyan, green, magenta, red, blue.
    constexpr std::array<std::array<int, 3>, 7> bars75{
        {{191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0}, {191, 0, 191}, {191, 0, 0}, {0, 0, 191}}};

    // Row 6 of 60 is in the bars (top 2/3) and above the moving box (centred in the bars, 1/6 high).
    void checkBars(DecodedPng const& picture)
    {
        for (std::uint32_t bar = 0; bar < 7; ++bar)
        {
            checkColour(picture, (2 * bar + 1) * picture.width / 14, 6, bars75[bar]);
        }
    }
}

TEST_CASE("mxl-info --snapshot writes a v210 grain as the colour bars the source drew")
{
    OneFlowSource const running{"tools-info-picture-v210", "-v", "video_v210_100x60p25.json", "video/v210"};

    auto const file = running.domain.path() / "bars.png";
    auto const result = snapshotWritten(running.domain, running.flowId, file);
    INFO(result.output);
    CHECK(pictureContains(result.output, "of flow " + running.flowId + ": 100x60 video/v210 BT709, written to " + file.string()));

    auto const picture = readPng(file);
    CHECK(picture.width == 100);
    CHECK(picture.height == 60);
    CHECK(picture.channels == 3);
    checkBars(picture);
    // The bottom quarter starts with black for 1 1/4 bars, then 100 % white.
    checkColour(picture, 5, 55, {0, 0, 0});
    checkColour(picture, 25, 55, {255, 255, 255});
}

TEST_CASE("mxl-info --snapshot of a v210a grain carries the key as alpha, and FLOW@INDEX names the grain")
{
    OneFlowSource running{"tools-info-picture-v210a", "-v", "video_v210a_100x60p25.json", "video/v210a"};
    FlowReaderFixture const flow{running.domain.path(), running.flowId};
    // The five-grain ring holds a grain for 200 ms, less than mxl-info may take to start on a loaded machine: the
    // source is stopped while mxl-info reads the grain behind the head.
    running.source.process().signal(SIGSTOP);
    auto const index = flow.info().runtime.headIndex - 1;

    auto const file = running.domain.path() / "keyed.png";
    auto const result = snapshot(running.domain, running.flowId + "@" + std::to_string(index), file);
    running.source.process().signal(SIGCONT);
    INFO(result.output);
    REQUIRE(result.exitCode == 0);
    CHECK(pictureContains(result.output, "grain " + std::to_string(index) + " of flow " + running.flowId + ": 100x60 video/v210a BT709"));

    auto const picture = readPng(file);
    REQUIRE(picture.channels == 4);
    checkBars(picture);
    // The bars show through at about half: key 502 of 64-940 is alpha 128.
    CHECK(std::abs(int{picture.at(50, 6)[3]} - 128) <= 1);
}

TEST_CASE("mxl-info --snapshot of an audio flow pictures the tone at its peak level and prints the peaks")
{
    OneFlowSource const running{"tools-info-picture-audio", "-a", "audio_48k_2ch.json", "audio/float32"};

    auto const file = running.domain.path() / "tone.png";
    auto const result = snapshotWritten(running.domain, running.flowId, file);
    INFO(result.output);
    // The test flow's ring holds 19456 samples: half of it can be read at once.
    CHECK(pictureContains(result.output, "(9728 per channel, 2 channels), written to " + file.string()));
    CHECK(pictureContains(result.output, "channel  1: peak 0.500000 (-6.02 dBFS)"));
    CHECK(pictureContains(result.output, "channel  2: peak 0.500000 (-6.02 dBFS)"));

    // Layout (AudioPicture.hpp): 1000 wide, strips of 121 rows (zero at row 60, full scale 60 rows away) and one
    // separating row. The tone's amplitude 0.5 puts the red peak marks 30 rows above and below zero, and nothing green
    // outside them.
    auto const picture = readPng(file);
    REQUIRE(picture.width == 1000);
    REQUIRE(picture.height == 2 * 122 - 1);
    for (std::uint32_t channel = 0; channel < 2; ++channel)
    {
        auto const top = channel * 122;
        std::set<std::uint32_t> redRows;
        std::uint32_t highestGreen = picture.height;
        std::uint32_t lowestGreen = 0;
        for (std::uint32_t y = top; y < top + 121; ++y)
        {
            for (std::uint32_t x = 0; x < picture.width; ++x)
            {
                auto const* pixel = picture.at(x, y);
                if (pixel[0] > 200 && pixel[1] < 100)
                {
                    redRows.insert(y - top);
                }
                if (pixel[1] > 150 && pixel[0] < 100)
                {
                    highestGreen = std::min(highestGreen, y - top);
                    lowestGreen = std::max(lowestGreen, y - top);
                }
            }
        }
        CHECK(redRows == std::set<std::uint32_t>{30, 90});
        CHECK(highestGreen == 31);
        CHECK(lowestGreen == 89);
    }
}

TEST_CASE("mxl-info --snapshot refuses what it cannot picture with a message naming the value")
{
    TempDomain const domain{"tools-info-picture-bad"};
    RunningSource source{
        domain.path(), {"-v", toolTestData("video_v210_100x60p25.json").string(), "-D", toolTestData("data_smpte291_25.json").string()}, 2};
    auto const& videoId = source.flowId("video/v210");
    auto const& dataId = source.flowId("video/smpte291");
    source.requireStats(std::chrono::seconds{10});
    auto const file = (domain.path() / "x.png").string();

    checkSnapshotRefused(domain, dataId, file, 2,
                         "flow " + dataId + " is video/smpte291: mxl-info makes pictures of video/v210, video/v210a and audio flows");
    checkSnapshotRefused(domain, videoId + "@5", file, 1, "grain 5 of flow " + videoId + " was overwritten");
    checkSnapshotRefused(domain, videoId + "@next", file, 2, "the index \"next\" is not an unsigned integer");

    checkTool(mxlInfoPath(), {"-d", domain.str(), "--snapshot", videoId}, 2,
              {"--snapshot takes two values, FLOW[@INDEX] and FILE.png; got 1"});

    checkSnapshotRefused(domain, videoId, "/nonexistent/dir/x.png", 1, "cannot write the picture /nonexistent/dir/x.png: ");
    checkSnapshotRefused(domain, "5b3a1e0c-0000-4000-8000-000000000000", file, 4, "flow 5b3a1e0c-0000-4000-8000-000000000000 not found");
}

TEST_CASE("mxl-info --watch repeats the list with a level meter per audio flow until interrupted")
{
    OneFlowSource const running{"tools-info-watch", "-a", "audio_48k_2ch.json", "audio/float32"};

    Process watcher{{mxlInfoPath().string(), "-d", running.domain.str(), "--watch", "0.2"}};
    REQUIRE(watcher.waitForLine(running.flowId, std::chrono::seconds{10}).has_value());
    auto const meter = watcher.waitForLine("level [", std::chrono::seconds{10});
    REQUIRE(meter.has_value());
    INFO(*meter);
    // Both channels at amplitude 0.5 (-6.02 dBFS): the seventh of eight blocks (-12 to -6 dBFS), twice.
    CHECK(pictureContains(*meter, "level [\u2587\u2587] loudest -6.0 dBFS (channel 1), last 100 ms"));
    // The list comes again, meter included.
    REQUIRE(watcher.waitForLine("domain " + running.domain.str(), std::chrono::seconds{10}).has_value());
    REQUIRE(watcher.waitForLine("level [", std::chrono::seconds{10}).has_value());

    watcher.signal(SIGINT);
    CHECK(watcher.wait(std::chrono::seconds{10}) == 0);
}

TEST_CASE("mxl-info --watch refuses periods out of range and modes it cannot repeat")
{
    TempDomain const domain{"tools-info-watch-bad"};
    auto const period = runTool(mxlInfoPath(), {"-d", domain.str(), "--watch=0"});
    CHECK(period.exitCode == 2);
    CHECK(pictureContains(period.output, "--watch 0: the period must be 0.1 to 3600 seconds"));
    auto const collect = runTool(mxlInfoPath(), {"-d", domain.str(), "-g", "--watch"});
    CHECK(collect.exitCode == 2);
    CHECK(pictureContains(collect.output, "--watch repeats the list or the described flows; it cannot be combined with --snapshot or -g"));
}
