#include "ServiceScenario.hpp"

#include <client/ServiceStatusFile.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mxl::test
{
    Settings targetSettings(ServiceDirectories const& directories, std::string const& node, std::filesystem::path const& definition)
    {
        return {{"role", "target"},
                {"domain", directories.destination.str()},
                {"node", node},
                {"service", "0"},
                {"flow_definition", definition.string()},
                {"ticket_file", directories.ticketFile()},
                {"http_listen", node + ":0"},
                {"stall_timeout_ms", "2000"},
                {"status_interval_ms", "200"}};
    }

    Settings initiatorSettings(ServiceDirectories const& directories, std::string const& ticket, std::string const& flowId)
    {
        return {
            {"role", "initiator"},        {"domain", directories.source.str()}, {"flow_id", flowId},           {"ticket", ticket},
            {"ticket_poll_ms", "200"},    {"connect_timeout_ms", "3000"},       {"backoff_initial_ms", "100"}, {"backoff_max_ms", "1000"},
            {"stall_timeout_ms", "2000"}, {"status_interval_ms", "200"}};
    }

    Settings with(Settings settings, std::string const& key, std::string const& value)
    {
        std::erase_if(settings, [&](auto const& setting) { return setting.first == key; });
        settings.emplace_back(key, value);
        return settings;
    }

    Settings overSharedMemory(Settings settings)
    {
        std::erase_if(settings, [](auto const& setting) { return setting.first == "node" || setting.first == "service"; });
        settings.emplace_back("provider", "shm");
        return settings;
    }

    ReadyService::ReadyService(Settings const& settings, std::chrono::milliseconds timeout)
        : ServiceProcess{settings, notifyEnvironment(notify)}
    {
        REQUIRE(notify.waitFor("READY=1", timeout));
    }

    std::vector<std::string> notifyEnvironment(NotifySocket const& socket, unsigned watchdogUsec)
    {
        std::vector<std::string> environment{"NOTIFY_SOCKET=" + socket.path()};
        if (watchdogUsec != 0)
        {
            environment.push_back(fmt::format("WATCHDOG_USEC={}", watchdogUsec));
        }
        return environment;
    }

    ToolOutput runBuildTool(std::string const& relative, std::vector<std::string> const& arguments)
    {
        std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", binaryPath(relative).string()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        Process process{argv};
        auto text = process.drainOutput(std::chrono::seconds{10});
        return ToolOutput{process.wait(std::chrono::seconds{10}), std::move(text)};
    }

    void writeTicketFile(std::string const& path, std::string const& text)
    {
        auto const aside = path + ".new";
        std::ofstream{aside} << text;
        std::filesystem::rename(aside, path);
    }

    std::string ownTicketFile(ServiceDirectories const& directories, std::string const& text)
    {
        auto path = (directories.tickets.path() / "initiator.ticket.json").string();
        writeTicketFile(path, text);
        return path;
    }

    std::uint64_t initiatorLostSoFar(ServiceDirectories const& directories, std::string const& flowId)
    {
        std::uint64_t lost = 0;
        for (auto const& entry : client::readServiceStatusFiles(directories.source.path()))
        {
            auto const* status = std::get_if<client::ServiceStatus>(&entry.content);
            if (status != nullptr && status->role == "initiator" && status->flowId == flowId)
            {
                lost = std::max(lost, status->counters.lost);
            }
        }
        return lost;
    }

    std::size_t occurrences(std::string const& output, std::string const& text)
    {
        std::size_t found = 0;
        for (auto at = output.find(text); at != std::string::npos; at = output.find(text, at + 1))
        {
            ++found;
        }
        return found;
    }

    std::uint64_t ticketEpoch(std::string const& path)
    {
        std::ifstream file{path};
        std::stringstream text;
        text << file.rdbuf();
        auto const content = text.str();
        auto const key = content.find("\"epoch\":\"");
        if (key == std::string::npos)
        {
            return 0;
        }
        return std::stoull(content.substr(key + 9));
    }
}
