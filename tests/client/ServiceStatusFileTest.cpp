// The status file a fabrics service writes, read back as mxl-info reads it: the keys added after its first version.
#include "TempDomain.hpp"

#include <client/ServiceStatusFile.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mxl::client;
using mxl::test::readFile;
using mxl::test::TempDomain;

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

TEST_CASE("service status files: a target's concurrent initiators are written and read back, and files without the key read 0")
{
    auto status = someStatus();
    status.concurrentInitiators = 3;
    auto json = nlohmann::json::parse(serviceStatusJson(status));
    CHECK(json["concurrent_initiators"] == 3);
    CHECK(parseServiceStatus(json.dump()).concurrentInitiators == 3);
    json.erase("concurrent_initiators");
    CHECK(parseServiceStatus(json.dump()).concurrentInitiators == 0);
}

TEST_CASE("service status files: a link planted in a shared domain leads the write nowhere else")
{
    TempDomain domain{"status-links"};
    TempDomain elsewhere{"status-victim"};
    auto const victim = elsewhere.path() / "secret.txt";
    std::ofstream{victim} << "secret\n";
    ::chmod(victim.c_str(), 0600);
    auto const status = someStatus();
    auto const directory = serviceStatusDirectory(domain.path());
    std::filesystem::create_directory(directory);
    // The temporary file's name, with this process's pid, as a link to the victim.
    auto const temporary =
        directory /
        fmt::format(".{}.{}.tmp", serviceStatusPath(domain.path(), status.role, status.flowId, status.pid).filename().string(), ::getpid());
    std::filesystem::create_symlink(victim, temporary);
    writeServiceStatusFile(domain.path(), status);
    CHECK(readFile(victim) == "secret\n");
    struct stat mode
    {
    };
    REQUIRE(::stat(victim.c_str(), &mode) == 0);
    CHECK((mode.st_mode & 0777) == 0600);
    CHECK(parseServiceStatus(readFile(serviceStatusPath(domain.path(), status.role, status.flowId, status.pid))).state == "active");

    // The status directory itself a link to another directory: refused.
    std::filesystem::remove_all(directory);
    std::filesystem::create_directory_symlink(elsewhere.path(), directory);
    CHECK_THROWS_WITH_AS(writeServiceStatusFile(domain.path(), status), doctest::Contains("is not a directory"), std::runtime_error);
    CHECK_FALSE(
        std::filesystem::exists(elsewhere.path() / serviceStatusPath(domain.path(), status.role, status.flowId, status.pid).filename()));
}

TEST_CASE("service status files: two services of one flow and role have a file each, a service starting removes only the files "
          "its own earlier runs left, and finds the other one running")
{
    TempDomain domain{"status-left"};
    // A pid that was and is no more: a child that has ended and been reaped.
    auto const child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0)
    {
        ::_exit(0);
    }
    REQUIRE(::waitpid(child, nullptr, 0) == child);
    REQUIRE_FALSE(processExists(child));

    auto const withOrigin = [](std::string config, pid_t pid, std::string flowId = "5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b")
    {
        auto status = someStatus();
        status.role = "initiator";
        status.config = std::move(config);
        status.pid = pid;
        status.flowId = std::move(flowId);
        return status;
    };
    auto const path1 = "file '/etc/mxl/path-1.conf'";
    auto const path2 = "file '/etc/mxl/path-2.conf'";
    auto const starting = withOrigin(path1, ::getpid());
    auto const leftByEarlierRun = withOrigin(path1, child);
    auto const otherPathGone = withOrigin(path2, child);
    auto const otherPathRunning = withOrigin(path2, ::getppid());
    auto const otherFlowGone = withOrigin(path1, child, "0d0e1a4b-6f51-4c4e-a1cf-2bd0e6a8c3f7");
    auto const olderName = serviceStatusDirectory(domain.path()) / fmt::format("initiator-{}.json", starting.flowId);
    for (auto const& status : {leftByEarlierRun, otherPathRunning, otherFlowGone})
    {
        writeServiceStatusFile(domain.path(), status);
    }
    // Two of one flow, role and pid cannot be: the other gone path's file is written by hand, as is one of the name
    // the files had before the pid was part of it.
    auto const otherPathGoneFile = serviceStatusDirectory(domain.path()) / "initiator-of-the-other-path.json";
    std::ofstream{otherPathGoneFile} << serviceStatusJson(otherPathGone);
    std::ofstream{olderName} << serviceStatusJson(leftByEarlierRun);
    CHECK(readServiceStatusFiles(domain.path()).size() == 5);

    auto const removed = removeLeftServiceStatusFiles(domain.path(), starting);
    CHECK(removed.size() == 2);
    for (auto const& status : removed)
    {
        CHECK(status.pid == child);
        CHECK(status.config == path1);
        CHECK(status.flowId == starting.flowId);
    }
    CHECK_FALSE(std::filesystem::exists(serviceStatusPath(domain.path(), "initiator", starting.flowId, child)));
    CHECK_FALSE(std::filesystem::exists(olderName));
    CHECK(std::filesystem::exists(otherPathGoneFile));
    CHECK(std::filesystem::exists(serviceStatusPath(domain.path(), "initiator", starting.flowId, ::getppid())));
    CHECK(std::filesystem::exists(serviceStatusPath(domain.path(), "initiator", otherFlowGone.flowId, child)));

    // The starting service's own file and the running other path's sit side by side.
    writeServiceStatusFile(domain.path(), starting);
    std::set<pid_t> pids;
    for (auto const& entry : readServiceStatusFiles(domain.path()))
    {
        auto const* status = std::get_if<ServiceStatus>(&entry.content);
        REQUIRE(status != nullptr);
        if (status->flowId == starting.flowId)
        {
            pids.insert(status->pid);
        }
    }
    CHECK(pids == std::set<pid_t>{::getpid(), ::getppid(), child});
    // Of those, the one running beside the starting service: the other path's.
    auto const running = otherRunningServices(domain.path(), starting);
    REQUIRE(running.size() == 1);
    CHECK(running.front().pid == ::getppid());
    CHECK(running.front().config == path2);
}
