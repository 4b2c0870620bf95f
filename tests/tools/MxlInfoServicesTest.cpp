// mxl-info on the status files of fabrics services (<domain>/.mxl-services), written here by hand: a fresh one, one
// stale by age, one whose pid is gone, and malformed ones.
#include "RunningSource.hpp"
#include "TempDomain.hpp"
#include "ToolRun.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <mxl/time.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace mxl::test;

namespace
{
    bool servicesContains(std::string const& text, std::string const& part)
    {
        return text.find(part) != std::string::npos;
    }

    // The initiator's file was written 12 s old; mxl-info may read it seconds later on a loaded machine.
    constexpr char const* staleAge = "not updated for (1[2-9]|[2-9][0-9]) s";

    bool servicesMatch(std::string const& text, std::string const& pattern)
    {
        return std::regex_search(text, std::regex{pattern});
    }

    // A pid that existed a moment ago and exists no more.
    pid_t deadPid()
    {
        auto const child = ::fork();
        if (child == 0)
        {
            ::_exit(0);
        }
        ::waitpid(child, nullptr, 0);
        return child;
    }

    std::string statusJson(std::string const& role, std::string const& flowId, pid_t pid, std::string const& state, std::uint64_t ageMs)
    {
        auto const updatedAt = ::mxlGetTime() - ageMs * 1'000'000;
        return fmt::format(R"({{"format": 1, "role": "{}", "flow_id": "{}", "pid": {}, "config": "file '/etc/mxl/a.conf'",
  "state": "{}", "epoch": "77", "transport": "msg", "updated_at": {}, "status_interval_ms": 1000, "grains": 1234, "bytes": 5678000,
  "late": 3, "lost": 2, "reconnects": 1, "stalls": 4, "grain_rate": 50.0, "byte_rate": 2300000.0,
  "latency_ms": {{"p50": 1.5, "p90": 2.25, "p99": null}},
  "targets": [{{"epoch": 77, "state": "connected", "reason": "", "for_ms": 4200}}]}})",
                           role, flowId, pid, state, updatedAt);
    }

    void writeFile(std::filesystem::path const& path, std::string const& text)
    {
        std::filesystem::create_directories(path.parent_path());
        std::ofstream{path} << text;
    }

    constexpr char const* goneFlowId = "0e6f4a57-1b39-4a8e-9d07-3c5b2a1f9e88";
}

TEST_CASE("mxl-info shows the services of each flow from their status files, and old or orphaned files show as stale")
{
    TempDomain const domain{"tools-info-services"};
    RunningSource source{domain.path(), {"-v", toolTestData("video_v210_100x60p25.json").string()}, 1};
    auto const& videoId = source.flowId("video/v210");
    auto const services = domain.path() / ".mxl-services";
    writeFile(services / ("target-" + videoId + ".json"), statusJson("target", videoId, ::getpid(), "active", 100));
    writeFile(services / ("initiator-" + videoId + ".json"), statusJson("initiator", videoId, ::getpid(), "active", 12'000));
    auto const dead = deadPid();
    auto const orphan = services / fmt::format("initiator-{}.json", goneFlowId);
    writeFile(orphan, statusJson("initiator", goneFlowId, dead, "connecting", 0));
    writeFile(services / "target-broken.json", "{\"role\": \"target\",\n \"flow_id\": ");
    writeFile(services / "target-incomplete.json", R"({"role": "target", "flow_id": "x", "pid": 1})");

    SUBCASE("list")
    {
        auto const listing = runTool(mxlInfoPath(), {"-d", domain.str()});
        INFO(listing.output);
        CHECK(listing.exitCode == 0);
        CHECK(servicesContains(listing.output, "Video : " + videoId));
        // The ages count from when the files were written: mxl-info may start seconds later on a loaded machine.
        CHECK(servicesMatch(
            listing.output,
            R"(      service target: active, grains 1234, rate 50\.0/s, lost 2, reconnects 1, latency p50 1\.50 ms, updated [0-2]\.\d s ago)"));
        CHECK(servicesMatch(listing.output,
                            fmt::format("      service initiator: stale \\({}, status interval 1000 ms; last state active\\), "
                                        "grains 1234, rate -, lost 2",
                                        staleAge)));
        CHECK(servicesContains(listing.output, "services of flows not in this domain:"));
        CHECK(servicesContains(
            listing.output,
            fmt::format("  initiator : {} - stale (pid {} is gone; last state connecting), grains 1234, rate -", goneFlowId, dead)));
        CHECK(servicesContains(listing.output,
                               fmt::format("mxl-info: warning: service status file '{}' is unreadable (not valid JSON); ignored\n",
                                           (services / "target-broken.json").string())));
        CHECK(servicesContains(listing.output, fmt::format("mxl-info: warning: service status file '{}' is unreadable (",
                                                           (services / "target-incomplete.json").string())));
        // Neither a stale service nor a broken file is ever shown as healthy.
        CHECK_FALSE(servicesContains(listing.output, "service initiator: active"));
        CHECK_FALSE(servicesContains(listing.output, "target-broken.json' is unreadable (not valid JSON); ignored\n "));
    }

    SUBCASE("detail")
    {
        auto const detail = runTool(mxlInfoPath(), {"-d", domain.str(), "-f", videoId});
        INFO(detail.output);
        CHECK(detail.exitCode == 0);
        for (auto const* line :
             {"Services\n", "  target (", "    State           : active\n", "    Config          : file '/etc/mxl/a.conf'\n",
              "    Ticket epoch    : 77\n", "    Transport       : msg\n", "    Grains          : 1234\n",
              "    Bytes           : 5678000\n", "    Rate            : 50.0 grains/s, 2.30 MB/s\n", "    Late            : 3\n",
              "    Lost            : 2\n", "    Reconnects      : 1\n", "    Stalls          : 4\n",
              "    Latency         : p50 1.50 ms, p90 2.25 ms, p99 n/a\n", "    Target          : epoch 77: connected for 4200 ms\n"})
        {
            CHECK(servicesContains(detail.output, line));
        }
        CHECK(servicesMatch(detail.output, fmt::format(R"(    State           : stale \({})", staleAge)));
        CHECK(servicesContains(detail.output, fmt::format("    Pid             : {}\n", ::getpid())));
        CHECK_FALSE(servicesContains(detail.output, goneFlowId));
    }

    SUBCASE("-g removes the files whose pid is gone, and says so")
    {
        auto const collected = runTool(mxlInfoPath(), {"-d", domain.str(), "-g"});
        INFO(collected.output);
        CHECK(collected.exitCode == 0);
        CHECK(servicesContains(collected.output, fmt::format("removed service status file {} (initiator of flow {}, pid {} is gone)",
                                                             orphan.string(), goneFlowId, dead)));
        CHECK(servicesContains(collected.output, "removed 1 service status files of stopped services"));
        CHECK_FALSE(std::filesystem::exists(orphan));
        CHECK(std::filesystem::exists(services / ("target-" + videoId + ".json")));
        CHECK(std::filesystem::exists(services / "target-broken.json"));
        // The flow's writer is alive.
        CHECK(servicesContains(collected.output, "removed 0 of 1 flows"));
    }
}
