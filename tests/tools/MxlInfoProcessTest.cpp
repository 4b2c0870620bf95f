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
    source.requireStats(std::chrono::milliseconds{2500});

    auto const listing = checkTool(
        mxlInfoPath(), {"-d", domain.str()}, 0,
        {"label:       Test Domain", "group Info Group: mxl://" + domain.str() + "?id=", "video : " + videoId + " - Tools Test Bars",
         "audio : " + audioId + " - Tools Test Tone", "format video/v210, rate 25/1 (25 Hz), head ", "active true", " ms)", " samples ("});
    INFO(listing.output);
    CHECK(numberAfter(listing.output, "rate 25/1 (25 Hz), head ") > 1'000'000'000ULL);
    CHECK(numberAfter(listing.output, "rate 48000/1 (48000 Hz), head ") > 1'000'000'000'000ULL);
}

TEST_CASE("mxl-info describes one flow, by -f or by mxl:// address")
{
    TempDomain const domain{"tools-info-detail"};
    RunningSource source{domain.path(), sourceArguments(), 2};
    auto const& videoId = source.flowId("video/v210");
    auto const& audioId = source.flowId("audio/float32");
    source.requireStats(std::chrono::milliseconds{2500});

    auto const video = checkTool(mxlInfoPath(), {"-d", domain.str(), "-f", videoId}, 0,
                                 {"Version           : 1", "Struct size       : 2048 bytes", "Format            : video (video/v210)",
                                  "Grain rate        : 25/1 (25 Hz)", "Commit batch size : 60 slices", "Payload location  : host memory",
                                  "Device index      : -1", "Flags             : 0x00000000", "Grain count       : 5",
                                  "Slice sizes       : 384 0 0 0 bytes",
                                  "Last write time   : ", "Last read time    : ", "Latency           : ", "Active            : true"});
    CHECK_MESSAGE(numberAfter(video.output, "Head index        : ") > 1'000'000'000ULL, video.output);

    auto const audio = checkTool(
        mxlInfoPath(), {"mxl://" + domain.str() + "?id=" + audioId}, 0,
        {"Sample rate       : 48000/1 (48000 Hz)", "Channel count     : 2", "Buffer length     : 19456 samples per channel", " samples ("});
    CHECK_MESSAGE(!contains(audio.output, "Last write time"), audio.output);
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

    checkTool(mxlInfoPath(), {"-d", domain.str(), "-g"}, 0, {"removed " + videoId, "removed " + audioId, "removed 2 of 2 flows"});
    CHECK_FALSE(std::filesystem::exists(domain.path() / (videoId + ".mxl-flow")));

    auto const empty = runTool(mxlInfoPath(), {"-d", domain.str()});
    CHECK(contains(empty.output, "no flows"));
}

TEST_CASE("mxl-info -g keeps flows whose writer is alive")
{
    TempDomain const domain{"tools-info-gc-live"};
    RunningSource source{domain.path(), {"-a", toolTestData("audio_48k_2ch.json").string()}, 1};
    checkTool(mxlInfoPath(), {"-d", domain.str(), "-g"}, 0, {"removed 0 of 1 flows"});
    CHECK(std::filesystem::exists(domain.path() / (source.flowId("audio/float32") + ".mxl-flow")));
}

TEST_CASE("mxl-info refuses bad input with a documented exit status and a message naming the value")
{
    TempDomain const domain{"tools-info-bad"};

    checkTool(mxlInfoPath(), {"-d", "/nonexistent/mxl"}, 3, {"mxl-info: domain '/nonexistent/mxl' does not exist"});
    checkTool(mxlInfoPath(), {"-d", domain.str(), "-f", "not-a-uuid"}, 2, {"mxl-info: flow id 'not-a-uuid' is not a UUID"});
    checkTool(mxlInfoPath(), {"-d", domain.str(), "-f", "5fbec3b1-1b0f-417d-9059-8b94a47197ed"}, 4,
              {"mxl-info: flow 5fbec3b1-1b0f-417d-9059-8b94a47197ed not found in domain '" + domain.str() + "'"});
    checkTool(mxlInfoPath(), {"mxl://studio/dev/shm/mxl"}, 2, {"mxl-info: address 'mxl://studio/dev/shm/mxl' names the host 'studio'"});
    checkTool(mxlInfoPath(), {"http:///dev/shm/mxl"}, 2, {"'http:///dev/shm/mxl' is not an mxl:// address"});
    checkTool(mxlInfoPath(), {"--frobnicate"}, 2, {"frobnicate"});
}

TEST_CASE("mxl-info --help explains every option and the exit status, and --version names both versions")
{
    checkTool(mxlInfoPath(), {"--help"}, 0,
              {"-d [ --domain ]", "-f [ --flow ]", "-l [ --list ]", "-g [ --garbage-collect ]", "--version", "-h [ --help ]", "ADDRESS",
               "mxl:///", "Exit status"});
    checkTool(mxlInfoPath(), {"--version"}, 0, {"mxl-info 1.2.0", "libmxl 1.2.0"});
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
