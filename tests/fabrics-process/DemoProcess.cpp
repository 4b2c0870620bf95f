#include "DemoProcess.hpp"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <regex>
#include <sstream>

namespace mxl::test
{
    namespace
    {
        std::vector<std::string> commandLine(std::string const& log, std::vector<std::string> const& launcher,
                                             std::vector<std::string> const& arguments)
        {
            // The shell only redirects stderr and then becomes the launcher or the demo: signals reach the demo.
            std::vector<std::string> argv{"/bin/sh", "-c", "log=$1; shift; exec \"$@\" 2>>\"$log\"", "sh", log};
            argv.insert(argv.end(), launcher.begin(), launcher.end());
            argv.push_back(DemoProcess::binary());
            argv.insert(argv.end(), arguments.begin(), arguments.end());
            return argv;
        }
    }

    DemoProcess::DemoProcess(std::vector<std::string> const& arguments, std::vector<std::string> const& launcher)
        : _process{commandLine((_logDirectory.path() / "stderr").string(), launcher, arguments)}
    {
    }

    std::string DemoProcess::binary()
    {
        return binaryPath("tools/mxl-fabrics-demo/mxl-fabrics-demo").string();
    }

    std::string DemoProcess::waitForTicket(std::chrono::milliseconds timeout)
    {
        static std::string const prefix = "Target info: ";
        auto const line = _process.waitForLine(prefix, timeout);
        return line ? line->substr(line->find(prefix) + prefix.size()) : std::string{};
    }

    std::optional<int> DemoProcess::stop(std::chrono::milliseconds timeout)
    {
        _process.signal(SIGTERM);
        return _process.wait(timeout);
    }

    std::optional<int> DemoProcess::kill()
    {
        _process.signal(SIGKILL);
        auto const status = _process.wait(std::chrono::seconds{5});
        for (auto const* role : {"initiator", "target"})
        {
            auto const prefix = fmt::format("mxl-{}-{}-", role, _process.pid());
            std::error_code ignored;
            for (auto const& entry : std::filesystem::directory_iterator{"/dev/shm", ignored})
            {
                if (entry.path().filename().string().starts_with(prefix))
                {
                    std::filesystem::remove(entry.path(), ignored);
                }
            }
        }
        return status;
    }

    std::optional<DemoSummary> DemoProcess::summary()
    {
        static std::regex const pattern{R"(summary: (?:moved|received) (\d+) grains, (\d+) bytes, (\d+) lost)"};
        auto const line = _process.waitForLine("summary:", std::chrono::seconds{5});
        std::smatch match;
        if (!line || !std::regex_search(*line, match, pattern))
        {
            return std::nullopt;
        }
        return DemoSummary{std::stoull(match[1]), std::stoull(match[2]), std::stoull(match[3])};
    }

    std::optional<ReportedLosses> DemoProcess::reportedLosses()
    {
        // Stats lines are cumulative and come once a second, so the last one read in a little over a second was printed
        // after this call began, and covers every grain a checker looked at before it.
        static std::regex const pattern{R"(\blost=(\d+) skipped=([\d,]*)(?: invalidated=([\d,]*))?)"};
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds{1300};
        std::optional<ReportedLosses> losses;
        for (auto left = std::chrono::milliseconds{1300}; left.count() > 0;
             left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()))
        {
            auto const line = _process.waitForLine("stats:", left);
            std::smatch match;
            if (!line)
            {
                break;
            }
            if (std::regex_search(*line, match, pattern))
            {
                auto const counts = [](std::string const& list)
                {
                    std::vector<std::uint64_t> result;
                    std::istringstream stream{list};
                    for (std::string count; std::getline(stream, count, ',');)
                    {
                        result.push_back(std::stoull(count));
                    }
                    return result;
                };
                losses = ReportedLosses{std::stoull(match[1]), counts(match[2].str()), counts(match[3].str())};
            }
        }
        return losses;
    }

    std::string DemoProcess::errors() const
    {
        try
        {
            return readFile(_logDirectory.path() / "stderr");
        }
        catch (std::exception const&)
        {
            return {};
        }
    }

    int runDemo(std::vector<std::string> const& arguments, std::string& errors, std::chrono::milliseconds timeout)
    {
        DemoProcess demo{arguments};
        auto const status = demo.wait(timeout);
        errors = demo.errors();
        return status.value_or(-1);
    }
}
