// mxl-test-source as a process: what it writes into real flows, read back with the public API and compared with the
// generators' output for the same grain or sample index.
#include "Checksum.hpp"
#include "RunningSource.hpp"
#include "TempDomain.hpp"
#include "ToolRun.hpp"
#include <patterns/SineTone.hpp>
#include <patterns/TestPatternRenderer.hpp>
#include <patterns/TimecodePacket.hpp>

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <media/Rfc8331.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ranges>
#include <vector>

using namespace mxl::test;
using namespace mxl::patterns;

namespace
{
    constexpr std::uint64_t waitNs = 2'000'000'000;

    std::uint64_t expectedChecksum(TestPatternRenderer const& renderer, std::uint64_t index, std::uint32_t lines)
    {
        std::vector<std::uint8_t> grain(renderer.grainBytes());
        renderer.render(index, 0, lines, grain);
        return fnv1a(grain.data(), std::size_t{renderer.fillLineBytes()} * lines);
    }

    // Reads three commit batches (10 ms each) of a 2-channel float tone flow, all later than the source's first batch so
    // that every sample was written, and checks each channel against the tone sample by sample. A batch the source
    // wrote after its deadline had passed is silence by design (its stats count it invalid): on a loaded machine one was
    // seen here, 480 zero samples. Such a batch, all zeros on both channels, is not compared; at least one whole batch of
    // tone must be there, and every other sample must be the tone's, bit for bit.
    void checkToneOnBothChannels(FlowReaderFixture const& flow)
    {
        auto const info = flow.info();
        auto const rate = info.config.common.grainRate;
        std::uint64_t const batch = std::max<std::uint32_t>(1, info.config.common.maxCommitBatchSizeHint);
        auto const end = mxlGetCurrentIndex(&rate) + 2400;
        std::size_t const count = 1440;
        mxlWrappedMultiBufferSlice slices{};
        REQUIRE(mxlFlowReaderGetSamples(flow.reader, end, count, waitNs, &slices) == MXL_STATUS_OK);
        REQUIRE(slices.count == 2);
        std::array<std::vector<float>, 2> samples;
        for (std::uint32_t channel = 0; channel < 2; ++channel)
        {
            for (auto const& fragment : slices.base.fragments)
            {
                auto const* values =
                    reinterpret_cast<float const*>(static_cast<std::uint8_t const*>(fragment.pointer) + channel * slices.stride);
                samples[channel].insert(samples[channel].end(), values, values + fragment.size / sizeof(float));
            }
            REQUIRE(samples[channel].size() == count);
        }
        // Batch k holds samples (k - 1) * batch + 1 .. k * batch (the writer's batches end on multiples of its size).
        auto const first = end - count + 1;
        auto const batchOf = [&](std::size_t i) { return (first + i + batch - 1) / batch; };
        std::map<std::uint64_t, bool> silentBatches;
        for (std::size_t i = 0; i < count; ++i)
        {
            auto const silent = samples[0][i] == 0.0F && samples[1][i] == 0.0F;
            auto const entry = silentBatches.try_emplace(batchOf(i), silent).first;
            entry->second = entry->second && silent;
        }
        std::size_t toneSamples = 0;
        for (std::uint32_t channel = 0; channel < 2; ++channel)
        {
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < count; ++i)
            {
                if (silentBatches[batchOf(i)])
                {
                    continue;
                }
                auto const expected = static_cast<float>(toneSample(channel, first + i, rate));
                mismatches += samples[channel][i] == expected ? 0 : 1;
                toneSamples += channel == 0 ? 1 : 0;
            }
            INFO("channel ", channel);
            CHECK(mismatches == 0);
        }
        auto const silent = std::ranges::count(silentBatches | std::views::values, true);
        if (silent > 0)
        {
            MESSAGE(silent, " batch(es) of ", batch, " samples written late, as silence");
        }
        CHECK(toneSamples >= batch);
    }
}

TEST_CASE("mxl-test-source: v210 grains in index order, committed in slices, equal to the generator's picture")
{
    TempDomain const domain{"tools-video"};
    RunningSource source{domain.path(),
                         {"-v", toolTestData("video_v210_100x60p25.json").string(), "--flow-options",
                          toolTestData("slices_30.json").string(), "--slices", "15"},
                         1};
    FlowReaderFixture const flow{domain.path(), source.flowId("video/v210")};
    auto const info = flow.info();
    REQUIRE(info.config.discrete.sliceSizes[0] == 384);
    REQUIRE(info.config.common.maxCommitBatchSizeHint == 30);

    TestPatternRenderer const renderer{100, 60, false};
    auto const first = mxlGetCurrentIndex(&info.config.common.grainRate) + 1;
    std::size_t partialSeen = 0;
    std::size_t verified = 0;
    for (auto index = first; index < first + 6; ++index)
    {
        INFO("grain ", index);
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowReaderGetGrainSlice(flow.reader, index, 15, waitNs, &grain, &payload) == MXL_STATUS_OK);
        CHECK(grain.index == index);
        CHECK(grain.totalSlices == 60);
        if ((grain.flags & MXL_GRAIN_FLAG_INVALID) != 0)
        {
            continue;
        }
        // Slices arrive in batches of 15 lines, and the lines already there are final.
        CHECK(grain.validSlices % 15 == 0);
        CHECK(grain.validSlices >= 15);
        partialSeen += grain.validSlices < grain.totalSlices ? 1 : 0;
        CHECK(fnv1a(payload, std::size_t{384} * grain.validSlices) == expectedChecksum(renderer, index, grain.validSlices));

        REQUIRE(mxlFlowReaderGetGrain(flow.reader, index, waitNs, &grain, &payload) == MXL_STATUS_OK);
        CHECK(grain.validSlices == 60);
        CHECK(grain.grainSize == 384 * 60);
        CHECK(fnv1a(payload, grain.grainSize) == expectedChecksum(renderer, index, 60));
        ++verified;
    }
    CHECK(verified >= 4);
    CHECK(partialSeen >= 1);
}

TEST_CASE("mxl-test-source: v210a, audio and data flows at once, each matching its generator")
{
    TempDomain const domain{"tools-all"};
    RunningSource source{domain.path(),
                         {"-v", toolTestData("video_v210a_100x60p25.json").string(), "-a", toolTestData("audio_48k_2ch.json").string(),
                          "-D", toolTestData("data_smpte291_25.json").string(), "--group-hint", "Tools Group"},
                         3};

    SUBCASE("v210a fill and key")
    {
        FlowReaderFixture const flow{domain.path(), source.flowId("video/v210a")};
        auto const info = flow.info();
        TestPatternRenderer const renderer{100, 60, true};
        REQUIRE(info.config.discrete.sliceSizes[1] == renderer.keyLineBytes());
        auto const index = mxlGetCurrentIndex(&info.config.common.grainRate) + 1;
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowReaderGetGrain(flow.reader, index, waitNs, &grain, &payload) == MXL_STATUS_OK);
        REQUIRE(grain.grainSize == renderer.grainBytes());
        std::vector<std::uint8_t> expected(renderer.grainBytes());
        renderer.render(index, 0, 60, expected);
        CHECK(fnv1a(payload, grain.grainSize) == fnv1a(expected.data(), expected.size()));
    }

    SUBCASE("audio tone on both channels, continuous across batches")
    {
        checkToneOnBothChannels(FlowReaderFixture{domain.path(), source.flowId("audio/float32")});
    }

    SUBCASE("data grains carry the RFC 8331 time code packet of their index")
    {
        FlowReaderFixture const flow{domain.path(), source.flowId("video/smpte291")};
        auto const info = flow.info();
        auto const rate = info.config.common.grainRate;
        auto const first = mxlGetCurrentIndex(&rate) + 1;
        for (auto index = first; index < first + 3; ++index)
        {
            INFO("grain ", index);
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            REQUIRE(mxlFlowReaderGetGrain(flow.reader, index, waitNs, &grain, &payload) == MXL_STATUS_OK);
            CHECK(grain.index == index);
            CHECK(grain.grainSize == 4096);
            std::array const packets{grainTimecodePacket(index, rate)};
            auto const expected = mxl::media::writeRfc8331(packets);
            CHECK(std::vector<std::uint8_t>(payload, payload + expected.size()) == expected);
            CHECK(payload[expected.size()] == 0);
        }
    }

    SUBCASE("the group hint replaces the definitions' grouphint")
    {
        FlowReaderFixture const flow{domain.path(), source.flowId("video/smpte291")};
        std::vector<char> definition(8192);
        auto size = definition.size();
        REQUIRE(mxlGetFlowDef(flow.instance, source.flowId("video/smpte291").c_str(), definition.data(), &size) == MXL_STATUS_OK);
        std::string const text{definition.data()};
        CHECK(text.find("Tools Group:data") != std::string::npos);
        CHECK(text.find("Tools Test:Data") == std::string::npos);
    }

    SUBCASE("one stats line a second names every flow")
    {
        auto const line = source.process().waitForLine("stats ", std::chrono::milliseconds{2500});
        REQUIRE(line.has_value());
        CHECK(line->find("video written=") != std::string::npos);
        CHECK(line->find("audio written=") != std::string::npos);
        CHECK(line->find("data written=") != std::string::npos);
    }
}

TEST_CASE("mxl-test-source: --prerendered paints each video ring slot once and then only commits, and audio is still the tone")
{
    TempDomain const domain{"tools-prerendered"};
    mxlRational const videoRate{25, 1};
    // The source's first grain comes after this index; every slot's picture is that of a grain after it.
    auto const before = mxlGetCurrentIndex(&videoRate);
    RunningSource source{
        domain.path(),
        {"-v", toolTestData("video_v210_100x60p25.json").string(), "-a", toolTestData("audio_48k_2ch.json").string(), "--prerendered"},
        2};

    SUBCASE("grain i shows the picture of the first grain of its ring slot")
    {
        FlowReaderFixture const flow{domain.path(), source.flowId("video/v210")};
        auto const info = flow.info();
        auto const ring = info.config.discrete.grainCount;
        REQUIRE(ring >= 2);
        TestPatternRenderer const renderer{100, 60, false};
        auto const first = mxlGetCurrentIndex(&videoRate) + 1;
        std::size_t verified = 0;
        std::size_t repeated = 0;
        for (auto index = first; index < first + 3 * ring; ++index)
        {
            INFO("grain ", index, ", ring ", ring);
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            REQUIRE(mxlFlowReaderGetGrain(flow.reader, index, waitNs, &grain, &payload) == MXL_STATUS_OK);
            if ((grain.flags & MXL_GRAIN_FLAG_INVALID) != 0)
            {
                continue;
            }
            auto const checksum = fnv1a(payload, grain.grainSize);
            // The slot's first painted grain: index itself, or one whole ring earlier, or two, ... but not before the source started.
            std::optional<std::uint64_t> passesBack;
            for (std::uint64_t k = 0; index - k * ring > before && !passesBack; ++k)
            {
                if (checksum == expectedChecksum(renderer, index - k * ring, 60))
                {
                    passesBack = k;
                }
            }
            REQUIRE(passesBack.has_value());
            ++verified;
            // The moving box makes neighbouring rings' pictures differ, so a repeat shows the slot was not painted again.
            if (*passesBack > 0 && expectedChecksum(renderer, index, 60) != checksum)
            {
                ++repeated;
            }
        }
        // From the second pass over the ring on (at least the last two of the three rings read) grains are repeats.
        CHECK(verified >= 2 * ring);
        CHECK(repeated >= ring);
    }

    SUBCASE("audio samples are the tone's, bit for bit")
    {
        checkToneOnBothChannels(FlowReaderFixture{domain.path(), source.flowId("audio/float32")});
    }
}

TEST_CASE("mxl-test-source: --count stops after N grains, releases the flow and exits 0")
{
    TempDomain const domain{"tools-count"};
    RunningSource source{domain.path(), {"-D", toolTestData("data_smpte291_25.json").string(), "--count", "5"}, 1};
    auto const id = source.flowId("video/smpte291");
    auto const output = source.process().drainOutput(std::chrono::seconds{3});
    REQUIRE(source.process().wait(std::chrono::seconds{2}) == 0);
    // 5 grains at 25 Hz: the final stats line counts each once, written or invalid.
    auto const stats = output.find("stats data written=");
    REQUIRE(stats != std::string::npos);
    unsigned written = 0;
    unsigned late = 0;
    unsigned invalid = 0;
    REQUIRE(std::sscanf(output.c_str() + stats, "stats data written=%u late=%u invalid=%u", &written, &late, &invalid) == 3);
    CHECK(written + invalid == 5);
    CHECK_FALSE(std::filesystem::exists(domain.path() / (id + ".mxl-flow")));
}

TEST_CASE("mxl-test-source: SIGTERM ends it cleanly and deletes its flows")
{
    TempDomain const domain{"tools-term"};
    RunningSource source{domain.path(), {"-a", toolTestData("audio_48k_2ch.json").string()}, 1};
    auto const id = source.flowId("audio/float32");
    REQUIRE(std::filesystem::exists(domain.path() / (id + ".mxl-flow")));
    source.process().signal(SIGTERM);
    CHECK(source.process().wait(std::chrono::seconds{2}) == 0);
    CHECK_FALSE(std::filesystem::exists(domain.path() / (id + ".mxl-flow")));
}

TEST_CASE("mxl-test-source: bad input is refused with the exit status and a message naming it")
{
    TempDomain const domain{"tools-bad-source"};
    auto const video = toolTestData("video_v210_100x60p25.json").string();

    auto const missingDomain = runTool(testSourcePath(), {"-d", "/nonexistent/mxl", "-v", video});
    CHECK(missingDomain.exitCode == 3);
    CHECK(missingDomain.output.find("domain '/nonexistent/mxl' does not exist") != std::string::npos);

    auto const wrongKind = runTool(testSourcePath(), {"-d", domain.str(), "-v", toolTestData("audio_48k_2ch.json").string()});
    CHECK(wrongKind.exitCode == 2);
    CHECK(wrongKind.output.find("audio_48k_2ch.json' has format 'urn:x-nmos:format:audio' (expected urn:x-nmos:format:video)") !=
          std::string::npos);

    auto const tooManySlices = runTool(testSourcePath(), {"-d", domain.str(), "-v", video, "--slices", "61", "--count", "1"});
    CHECK(tooManySlices.exitCode == 2);
    CHECK(tooManySlices.output.find("--slices 61 does not fit the 60 lines") != std::string::npos);

    auto const aboveHint = runTool(testSourcePath(), {"-d", domain.str(), "-v", video, "--flow-options",
                                                      toolTestData("slices_30.json").string(), "--slices", "40", "--count", "1"});
    CHECK(aboveHint.exitCode == 2);
    CHECK(aboveHint.output.find("exceeds the maxCommitBatchSizeHint 30") != std::string::npos);

    auto const missingFile = runTool(testSourcePath(), {"-d", domain.str(), "-a", "/nonexistent/audio.json"});
    CHECK(missingFile.exitCode == 2);
    CHECK(missingFile.output.find("cannot read the audio flow definition '/nonexistent/audio.json'") != std::string::npos);

    // Hostile definitions: nested 500000 arrays deep (refused without a crash), and a device, refused at once.
    auto const deep = domain.path().parent_path() / (domain.path().filename().string() + "-deep.json");
    std::ofstream{deep} << std::string(500000, '[') << std::string(500000, ']');
    auto const deepDefinition = runTool(testSourcePath(), {"-d", domain.str(), "-v", deep.string(), "--count", "1"});
    std::filesystem::remove(deep);
    CHECK(deepDefinition.exitCode == 2);
    auto const device = runTool(testSourcePath(), {"-d", domain.str(), "-v", "/dev/zero", "--count", "1"});
    CHECK(device.exitCode == 2);
    CHECK(device.output.find("'/dev/zero': it is a character device, not a regular file") != std::string::npos);

    // --device is refused before any device is touched where the flow options name another location.
    auto const hostOptions = domain.path().parent_path() / (domain.path().filename().string() + "-host.json");
    std::ofstream{hostOptions} << R"({"payloadLocation": "host"})";
    auto const otherLocation =
        runTool(testSourcePath(), {"-d", domain.str(), "-v", video, "--flow-options", hostOptions.string(), "--device", "0"});
    std::filesystem::remove(hostOptions);
    CHECK(otherLocation.exitCode == 2);
    CHECK(otherLocation.output.find(
              R"(--flow-options has "payloadLocation": "host", but --device 0 asks for "payloadLocation": "device")") != std::string::npos);

    auto const nothing = runTool(testSourcePath(), {"-d", domain.str()});
    CHECK(nothing.exitCode == 2);
    CHECK(nothing.output.find("nothing to write") != std::string::npos);

    // Refused flows are not left behind.
    CHECK(std::filesystem::is_empty(domain.path()));
}

TEST_CASE("mxl-test-source: --help explains every option")
{
    auto const help = runTool(testSourcePath(), {"--help"});
    CHECK(help.exitCode == 0);
    for (auto const* option : {"--domain", "-d [", "--video", "-v [", "--audio", "-a [", "--data", "-D [", "--flow-options", "--count",
                               "--slices", "--prerendered", "--group-hint", "--help", "Exit status"})
    {
        INFO(option);
        CHECK(help.output.find(option) != std::string::npos);
    }
}
