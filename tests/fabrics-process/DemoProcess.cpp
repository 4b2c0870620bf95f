#include "DemoProcess.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

namespace mxl::test
{
    namespace
    {
        // "1,2,3" -> {1, 2, 3}; "" -> {}.
        std::vector<std::uint64_t> parseCounts(std::string const& list)
        {
            std::vector<std::uint64_t> result;
            std::istringstream stream{list};
            for (std::string count; std::getline(stream, count, ',');)
            {
                result.push_back(std::stoull(count));
            }
            return result;
        }

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
        auto const status = _process.wait(timeout);
        if (!status)
        {
            // A demo that outlived the deadline: where each of its threads is goes into its stderr log, which the failing
            // check prints (where gdb is installed).
            auto const command = fmt::format("command -v gdb >/dev/null && gdb -p {} -batch -ex 'thread apply all bt' >>'{}' 2>&1",
                                             _process.pid(), (_logDirectory.path() / "stderr").string());
            static_cast<void>(std::system(command.c_str()));
        }
        return status;
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

    std::optional<std::vector<std::string>> DemoProcess::newestMatch(std::string const& needle, std::regex const& pattern)
    {
        // Stats lines are cumulative, but the newest one already printed may predate the grains a checker has just looked
        // at: a loss in the last second would be missed. So the lines waiting in the pipe are read first, and then the
        // first one printed after this call began is waited for. A process starved of CPU prints its once-a-second line
        // late (a fixed wait of 1.3 s once took an old line and called a reported loss silent), hence the long deadline.
        std::optional<std::vector<std::string>> groups;
        auto const take = [&](std::string const& line)
        {
            if (std::smatch match; std::regex_search(line, match, pattern))
            {
                groups.emplace(match.begin(), match.end());
            }
        };
        // Every line already printed: what is buffered, then what the pipe holds (readLine polls it only while time is
        // left, counted in whole milliseconds, so 1 ms would often not poll at all).
        while (auto const waiting = _process.readLine(std::chrono::milliseconds{10}))
        {
            if (waiting->find(needle) != std::string::npos)
            {
                take(*waiting);
            }
        }
        if (auto const fresh = _process.waitForLine(needle, std::chrono::seconds{10}))
        {
            take(*fresh);
        }
        return groups;
    }

    std::optional<ReportedLosses> DemoProcess::reportedLosses()
    {
        static std::regex const pattern{R"(\blost=(\d+) skipped=([\d,]*)(?: invalidated=([\d,]*))?)"};
        auto const groups = newestMatch("stats:", pattern);
        if (!groups)
        {
            return std::nullopt;
        }
        return ReportedLosses{std::stoull((*groups)[1]), parseCounts((*groups)[2]), parseCounts((*groups)[3])};
    }

    std::optional<PathReport> DemoProcess::pathReport()
    {
        static std::regex const pattern{R"(paths: first=([\d,]*) late=([\d,]*) missing=([\d,]*) dropped=([\d,]*))"};
        auto const groups = newestMatch("paths:", pattern);
        if (!groups)
        {
            return std::nullopt;
        }
        return PathReport{parseCounts((*groups)[1]), parseCounts((*groups)[2]), parseCounts((*groups)[3]), parseCounts((*groups)[4])};
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
