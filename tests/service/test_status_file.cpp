// The status files the services publish in their domains (<domain>/.mxl-services/<role>-<flow id>-<pid>.json): present
// and current while a pair moves grains, gone after SIGTERM, left behind by SIGKILL and then shown stale by mxl-info,
// whose -g removes them, as does the next run of the same service; the transport of the ticket (rma by default, msg
// when both configs say transport = msg).
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <FreePort.hpp>
#include <client/ServiceStatusFile.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        std::filesystem::path statusPath(TempDomain const& domain, std::string const& role, ServiceProcess const& service)
        {
            return client::serviceStatusPath(domain.path(), role, serviceTestFlowId, service.pid());
        }

        nlohmann::json readStatus(std::filesystem::path const& path)
        {
            std::ifstream file{path};
            std::stringstream text;
            text << file.rdbuf();
            return nlohmann::json::parse(text.str(), nullptr, false);
        }

        // Reads the file until `accept` holds (the file is replaced atomically, so every read parses); the last read.
        nlohmann::json waitForStatus(std::filesystem::path const& path, std::function<bool(nlohmann::json const&)> const& accept,
                                     std::chrono::milliseconds timeout)
        {
            auto const deadline = Clock::now() + timeout;
            nlohmann::json status;
            while (Clock::now() < deadline)
            {
                status = readStatus(path);
                if (status.is_object() && accept(status))
                {
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{50});
            }
            return status;
        }

        std::string runMxlInfo(std::vector<std::string> const& arguments)
        {
            auto output = runBuildTool("tools/mxl-info/mxl-info", arguments);
            CHECK(output.exitCode == std::optional<int>{0});
            return output.text;
        }

        bool contains(std::string const& text, std::string const& part)
        {
            return text.find(part) != std::string::npos;
        }

        // Any status: the file is there and parses.
        bool written(nlohmann::json const&)
        {
            return true;
        }

        std::uint64_t grainsOf(nlohmann::json const& status)
        {
            return status.value("grains", std::uint64_t{0});
        }
    }

    TEST_CASE("a running pair publishes current status files in its domains and removes them on SIGTERM")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};

        auto const targetFile = statusPath(directories.destination, "target", target);
        auto const initiatorFile = statusPath(directories.source, "initiator", initiator);
        auto const moving = [](nlohmann::json const& status) { return status.value("state", "") == "active" && grainsOf(status) > 0; };
        auto const targetStatus = waitForStatus(targetFile, moving, std::chrono::seconds{5});
        auto const initiatorStatus = waitForStatus(initiatorFile, moving, std::chrono::seconds{5});
        INFO(target.output(), initiator.output());
        INFO(targetStatus.dump(), initiatorStatus.dump());
        REQUIRE(targetStatus.is_object());
        REQUIRE(initiatorStatus.is_object());
        CHECK(targetStatus["role"] == "target");
        CHECK(initiatorStatus["role"] == "initiator");
        CHECK(targetStatus["flow_id"] == serviceTestFlowId);
        CHECK(initiatorStatus["flow_id"] == serviceTestFlowId);
        CHECK(targetStatus["pid"] == target.pid());
        CHECK(initiatorStatus["pid"] == initiator.pid());
        CHECK(targetStatus["state"] == "active");
        CHECK(initiatorStatus["state"] == "active");
        CHECK(targetStatus["status_interval_ms"] == 200);
        // A decimal string, as in the ticket.
        CHECK(targetStatus["epoch"].get<std::string>() == std::to_string(ticketEpoch(directories.ticketFile())));
        CHECK(targetStatus["epoch"] == initiatorStatus["epoch"]);
        // Both ends on tcp with the default transport (auto): the ticket's, rma.
        CHECK(targetStatus["transport"] == "rma");
        CHECK(initiatorStatus["transport"] == "rma");
        // A host flow at both ends: no device index.
        CHECK(targetStatus["payload_location"] == "host");
        CHECK(initiatorStatus["payload_location"] == "host");
        CHECK(targetStatus["device_index"].is_null());
        CHECK(initiatorStatus["device_index"].is_null());
        REQUIRE(initiatorStatus["targets"].size() == 1);
        CHECK(initiatorStatus["targets"][0]["state"] == "connected");
        CHECK(initiatorStatus["targets"][0]["epoch"] == initiatorStatus["epoch"]);
        CHECK(targetStatus["latency_ms"]["p50"].is_number());
        CHECK(initiatorStatus["bytes"].get<std::uint64_t>() > 0);
        auto const permissions = std::filesystem::status(targetFile).permissions();
        CHECK(permissions == (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                              std::filesystem::perms::group_read | std::filesystem::perms::others_read));
        CHECK((std::filesystem::status(targetFile.parent_path()).permissions() & std::filesystem::perms::all) ==
              std::filesystem::perms{0755});

        // Current: the counts go on between two reads.
        auto const more = [&](std::uint64_t than) { return [than](nlohmann::json const& status) { return grainsOf(status) > than; }; };
        CHECK(grainsOf(waitForStatus(targetFile, more(grainsOf(targetStatus)), std::chrono::seconds{2})) > grainsOf(targetStatus));
        CHECK(grainsOf(waitForStatus(initiatorFile, more(grainsOf(initiatorStatus)), std::chrono::seconds{2})) > grainsOf(initiatorStatus));

        // mxl-info shows both, current.
        auto const listing = runMxlInfo({"-d", directories.destination.str()});
        CHECK(contains(listing, "      service target: active, grains "));

        initiator.signal(SIGTERM);
        REQUIRE(initiator.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        CHECK_FALSE(std::filesystem::exists(initiatorFile));
        target.signal(SIGTERM);
        REQUIRE(target.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        CHECK_FALSE(std::filesystem::exists(targetFile));
    }

    TEST_CASE("a pair configured with transport = msg moves grains over msg, and both status files say so")
    {
        auto const msg = [](Settings settings)
        {
            settings.emplace_back("transport", "msg");
            return settings;
        };
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{msg(targetSettings(directories))};
        ReadyService initiator{msg(initiatorSettings(directories, directories.ticketFile()))};

        auto const moving = [](nlohmann::json const& status) { return status.value("state", "") == "active" && grainsOf(status) > 0; };
        auto const targetStatus = waitForStatus(statusPath(directories.destination, "target", target), moving, std::chrono::seconds{5});
        auto const initiatorStatus = waitForStatus(statusPath(directories.source, "initiator", initiator), moving, std::chrono::seconds{5});
        INFO(target.output(), initiator.output());
        INFO(targetStatus.dump(), initiatorStatus.dump());
        CHECK(targetStatus.value("state", "") == "active");
        CHECK(initiatorStatus.value("state", "") == "active");
        CHECK(grainsOf(targetStatus) > 0);
        CHECK(targetStatus.value("transport", "") == "msg");
        CHECK(initiatorStatus.value("transport", "") == "msg");

        initiator.signal(SIGTERM);
        CHECK(initiator.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        target.signal(SIGTERM);
        CHECK(target.wait(std::chrono::seconds{5}) == std::optional<int>{0});
    }

    TEST_CASE("a service killed with SIGKILL leaves its status file, which mxl-info shows as stale and -g removes")
    {
        ServiceDirectories directories;
        ReadyService target{targetSettings(directories)};
        auto const file = statusPath(directories.destination, "target", target);
        auto const status = waitForStatus(
            file, [](nlohmann::json const& json) { return json.value("state", "") == "waiting"; }, std::chrono::seconds{2});
        REQUIRE_MESSAGE(status.is_object(), target.output());
        CHECK(status["state"] == "waiting");

        auto const pid = target.pid();
        target.signal(SIGKILL);
        REQUIRE(target.wait(std::chrono::seconds{5}));
        REQUIRE(std::filesystem::exists(file));

        auto const listing = runMxlInfo({"-d", directories.destination.str()});
        INFO(listing);
        CHECK(contains(listing, fmt::format("      service target: stale (pid {} is gone; last state waiting)", pid)));
        CHECK_FALSE(contains(listing, "service target: waiting"));

        auto const collected = runMxlInfo({"-d", directories.destination.str(), "-g"});
        INFO(collected);
        CHECK(contains(collected, fmt::format("removed service status file {} (target of flow {}, pid {} is gone)", file.string(),
                                              serviceTestFlowId, pid)));
        CHECK_FALSE(std::filesystem::exists(file));

        // Killed again, and started again from the same settings: the new run removes what the killed one left.
        std::optional<ReadyService> killed{std::in_place, targetSettings(directories)};
        auto const killedFile = statusPath(directories.destination, "target", *killed);
        REQUIRE_MESSAGE(waitForStatus(killedFile, written, std::chrono::seconds{2}).is_object(), killed->output());
        auto const killedPid = killed->pid();
        killed->signal(SIGKILL);
        REQUIRE(killed->wait(std::chrono::seconds{5}));
        killed.reset();
        REQUIRE(std::filesystem::exists(killedFile));
        ReadyService restarted{targetSettings(directories)};
        auto const restartedFile = statusPath(directories.destination, "target", restarted);
        auto const removal = restarted.waitForLine("status file: removed the one an earlier run", std::chrono::seconds{5});
        INFO(restarted.output());
        REQUIRE(removal.has_value());
        CHECK(contains(*removal, fmt::format("(pid {}, gone)", killedPid)));
        CHECK(waitForStatus(restartedFile, written, std::chrono::seconds{2}).is_object());
        CHECK_FALSE(std::filesystem::exists(killedFile));
    }

    TEST_CASE("two initiator services of one flow in one domain, both given nmos_registry: the second warns that they register as "
              "one sender, naming the first")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        // No registry listens there: registration fails and is retried, which this test does not look at.
        auto const registering = with(with(initiatorSettings(directories, directories.ticketFile()), "http_listen", "127.0.0.1:0"),
                                      "nmos_registry", fmt::format("http://127.0.0.1:{}", freeLoopbackPort()));
        // Without a target an initiator never says READY=1: its status file says it runs.
        ServiceProcess first{registering};
        REQUIRE_MESSAGE(waitForStatus(statusPath(directories.source, "initiator", first), written, std::chrono::seconds{10}).is_object(),
                        first.output());
        ServiceProcess second{registering};
        auto const warning =
            second.waitForLine("nmos: another initiator service of this flow runs in this domain", std::chrono::seconds{10});
        INFO("first:\n", first.output(), "\nsecond:\n", second.output());
        REQUIRE(warning.has_value());
        CHECK(contains(*warning, fmt::format("(pid {}, settings from the command line)", first.pid())));
        CHECK(contains(*warning, "as the same NMOS node and sender: give nmos_registry to one of them only"));
        CHECK_FALSE(contains(first.output(), "nmos: another initiator service"));
    }
}
