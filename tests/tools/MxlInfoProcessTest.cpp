// mxl-info as a process, on flows written by a real mxl-test-source.
#include "RunningSource.hpp"
#include "TempDomain.hpp"
#include "ToolRun.hpp"

#include <doctest/doctest.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <fstream>

#include <sys/timex.h>

using namespace mxl::test;

namespace
{
    bool contains(std::string const& text, std::string const& part)
    {
        return text.find(part) != std::string::npos;
    }

    // The number after `label` in `text`, or 0.
    unsigned long long numberAfter(std::string const& text, std::string const& label)
    {
        auto const at = text.find(label);
        return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + label.size(), nullptr, 10);
    }

    std::vector<std::string> sourceArguments()
    {
        return {"-v",           toolTestData("video_v210_100x60p25.json").string(),
                "-a",           toolTestData("audio_48k_2ch.json").string(),
                "--group-hint", "Info Group"};
    }
}

TEST_CASE("mxl-info lists a domain's flows by group with id, label, role, rate, head, activity and latency")
{
    TempDomain const domain{"tools-info-list"};
    std::ofstream{domain.path() / "domain_def.json"} << R"({"id": "domain-1", "label": "Test Domain", "description": "for mxl-info"})";
    RunningSource source{domain.path(), sourceArguments(), 2};
    auto const& videoId = source.flowId("video/v210");
    auto const& audioId = source.flowId("audio/float32");
    // Let a few grains through so that the heads are set.
    REQUIRE(source.process().waitForLine("stats", std::chrono::milliseconds{2500}).has_value());

    auto const listing = runTool(mxlInfoPath(), {"-d", domain.str()});
    INFO(listing.output);
    CHECK(listing.exitCode == 0);
    CHECK(contains(listing.output, "label:       Test Domain"));
    CHECK(contains(listing.output, "group Info Group: mxl://" + domain.str() + "?id="));
    CHECK(contains(listing.output, "video : " + videoId + " - Tools Test Bars"));
    CHECK(contains(listing.output, "audio : " + audioId + " - Tools Test Tone"));
    CHECK(contains(listing.output, "format video/v210, rate 25/1 (25 Hz), head "));
    CHECK(numberAfter(listing.output, "rate 25/1 (25 Hz), head ") > 1'000'000'000ULL);
    CHECK(numberAfter(listing.output, "rate 48000/1 (48000 Hz), head ") > 1'000'000'000'000ULL);
    CHECK(contains(listing.output, "active true"));
    CHECK(contains(listing.output, " ms)"));
    CHECK(contains(listing.output, " samples ("));
}

TEST_CASE("mxl-info describes one flow, by -f or by mxl:// address")
{
    TempDomain const domain{"tools-info-detail"};
    RunningSource source{domain.path(), sourceArguments(), 2};
    auto const& videoId = source.flowId("video/v210");
    auto const& audioId = source.flowId("audio/float32");
    REQUIRE(source.process().waitForLine("stats", std::chrono::milliseconds{2500}).has_value());

    auto const video = runTool(mxlInfoPath(), {"-d", domain.str(), "-f", videoId});
    INFO(video.output);
    CHECK(video.exitCode == 0);
    for (auto const* row :
         {"Version           : 1", "Struct size       : 2048 bytes", "Format            : video (video/v210)",
          "Grain rate        : 25/1 (25 Hz)", "Commit batch size : 60 slices", "Payload location  : host memory", "Device index      : -1",
          "Flags             : 0x00000000", "Grain count       : 5", "Slice sizes       : 384 0 0 0 bytes",
          "Last write time   : ", "Last read time    : ", "Latency           : ", "Active            : true"})
    {
        CHECK(contains(video.output, row));
    }
    CHECK(numberAfter(video.output, "Head index        : ") > 1'000'000'000ULL);

    auto const audio = runTool(mxlInfoPath(), {"mxl://" + domain.str() + "?id=" + audioId});
    INFO(audio.output);
    CHECK(audio.exitCode == 0);
    CHECK(contains(audio.output, "Sample rate       : 48000/1 (48000 Hz)"));
    CHECK(contains(audio.output, "Channel count     : 2"));
    CHECK(contains(audio.output, "Buffer length     : 19456 samples per channel"));
    CHECK(contains(audio.output, " samples ("));
    CHECK_FALSE(contains(audio.output, "Last write time"));
}

TEST_CASE("mxl-info -g removes the flows of a writer killed with SIGKILL")
{
    TempDomain const domain{"tools-info-gc"};
    RunningSource source{domain.path(), sourceArguments(), 2};
    auto const videoId = source.flowId("video/v210");
    auto const audioId = source.flowId("audio/float32");
    source.process().signal(SIGKILL);
    REQUIRE(source.process().wait(std::chrono::seconds{2}).has_value());
    REQUIRE(std::filesystem::exists(domain.path() / (videoId + ".mxl-flow")));

    auto const stale = runTool(mxlInfoPath(), {"-d", domain.str(), "-f", videoId});
    CHECK(contains(stale.output, "Active            : false"));

    auto const collected = runTool(mxlInfoPath(), {"-d", domain.str(), "-g"});
    INFO(collected.output);
    CHECK(collected.exitCode == 0);
    CHECK(contains(collected.output, "removed " + videoId));
    CHECK(contains(collected.output, "removed " + audioId));
    CHECK(contains(collected.output, "removed 2 of 2 flows"));
    CHECK_FALSE(std::filesystem::exists(domain.path() / (videoId + ".mxl-flow")));

    auto const empty = runTool(mxlInfoPath(), {"-d", domain.str()});
    CHECK(contains(empty.output, "no flows"));
}

TEST_CASE("mxl-info -g keeps flows whose writer is alive")
{
    TempDomain const domain{"tools-info-gc-live"};
    RunningSource source{domain.path(), {"-a", toolTestData("audio_48k_2ch.json").string()}, 1};
    auto const collected = runTool(mxlInfoPath(), {"-d", domain.str(), "-g"});
    CHECK(collected.exitCode == 0);
    CHECK(contains(collected.output, "removed 0 of 1 flows"));
    CHECK(std::filesystem::exists(domain.path() / (source.flowId("audio/float32") + ".mxl-flow")));
}

TEST_CASE("mxl-info refuses bad input with a documented exit status and a message naming the value")
{
    TempDomain const domain{"tools-info-bad"};

    auto const missingDomain = runTool(mxlInfoPath(), {"-d", "/nonexistent/mxl"});
    CHECK(missingDomain.exitCode == 3);
    CHECK(contains(missingDomain.output, "mxl-info: domain '/nonexistent/mxl' does not exist"));

    auto const badUuid = runTool(mxlInfoPath(), {"-d", domain.str(), "-f", "not-a-uuid"});
    CHECK(badUuid.exitCode == 2);
    CHECK(contains(badUuid.output, "mxl-info: flow id 'not-a-uuid' is not a UUID"));

    auto const unknownFlow = runTool(mxlInfoPath(), {"-d", domain.str(), "-f", "5fbec3b1-1b0f-417d-9059-8b94a47197ed"});
    CHECK(unknownFlow.exitCode == 4);
    CHECK(contains(unknownFlow.output, "mxl-info: flow 5fbec3b1-1b0f-417d-9059-8b94a47197ed not found in domain '" + domain.str() + "'"));

    auto const withHost = runTool(mxlInfoPath(), {"mxl://studio/dev/shm/mxl"});
    CHECK(withHost.exitCode == 2);
    CHECK(contains(withHost.output, "mxl-info: address 'mxl://studio/dev/shm/mxl' names the host 'studio'"));

    auto const notMxl = runTool(mxlInfoPath(), {"http:///dev/shm/mxl"});
    CHECK(notMxl.exitCode == 2);
    CHECK(contains(notMxl.output, "'http:///dev/shm/mxl' is not an mxl:// address"));

    auto const unknownOption = runTool(mxlInfoPath(), {"--frobnicate"});
    CHECK(unknownOption.exitCode == 2);
    CHECK(contains(unknownOption.output, "frobnicate"));
}

TEST_CASE("mxl-info --help explains every option and the exit status, and --version names both versions")
{
    auto const help = runTool(mxlInfoPath(), {"--help"});
    CHECK(help.exitCode == 0);
    for (auto const* option : {"-d [ --domain ]", "-f [ --flow ]", "-l [ --list ]", "-g [ --garbage-collect ]", "--version",
                               "-h [ --help ]", "ADDRESS", "mxl:///", "Exit status"})
    {
        INFO(option);
        CHECK(contains(help.output, option));
    }

    auto const version = runTool(mxlInfoPath(), {"--version"});
    CHECK(version.exitCode == 0);
    CHECK(contains(version.output, "mxl-info 1.2.0"));
    CHECK(contains(version.output, "libmxl 1.2.0"));
}

TEST_CASE("mxl-info says once at start that the kernel's TAI offset is unset, and MXL_LOG_LEVEL=error silences it")
{
    timex query{};
    REQUIRE(::adjtimex(&query) != -1);
    TempDomain const domain{"tools-info-tai"};
    auto const count = [](std::string const& text)
    {
        std::size_t found = 0;
        for (auto at = text.find("TAI offset is 0"); at != std::string::npos; at = text.find("TAI offset is 0", at + 1))
        {
            ++found;
        }
        return found;
    };
    auto const listing = runTool(mxlInfoPath(), {"-d", domain.str()});
    INFO(listing.output);
    CHECK(listing.exitCode == 0);
    CHECK(count(listing.output) == (query.tai == 0 ? 1U : 0U));
    auto const quiet = runTool("/usr/bin/env", {"MXL_LOG_LEVEL=error", mxlInfoPath().string(), "-d", domain.str()});
    INFO(quiet.output);
    CHECK(quiet.exitCode == 0);
    CHECK(count(quiet.output) == 0);
}
