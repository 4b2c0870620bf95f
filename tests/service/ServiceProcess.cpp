#include "ServiceProcess.hpp"

#include "TempDomain.hpp"

namespace mxl::test
{
    namespace
    {
        std::vector<std::string> commandLine(Settings const& settings, std::vector<std::string> const& environment,
                                             std::vector<std::string> const& launcher)
        {
            std::vector<std::string> argv = launcher;
            // env sets the notify variables; sh joins stderr to stdout so that fatal messages are captured too.
            argv.insert(argv.end(), {"/usr/bin/env"});
            argv.insert(argv.end(), environment.begin(), environment.end());
            argv.insert(argv.end(), {"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", ServiceProcess::binary()});
            for (auto const& [key, value] : settings)
            {
                argv.push_back("--" + key);
                argv.push_back(value);
            }
            return argv;
        }
    }

    ServiceProcess::ServiceProcess(Settings const& settings, std::vector<std::string> const& environment,
                                   std::vector<std::string> const& launcher)
        : _process{commandLine(settings, environment, launcher)}
    {
    }

    std::optional<std::string> ServiceProcess::waitForLine(std::string const& needle, std::chrono::milliseconds timeout)
    {
        return _process.waitForLine(needle, timeout, [this](std::string const& line) { _seen += line + '\n'; });
    }

    int ServiceProcess::httpPort(std::chrono::milliseconds timeout)
    {
        auto const line = waitForLine("http: listening on ", timeout);
        if (!line)
        {
            return 0;
        }
        auto const colon = line->find(':', line->find("listening on "));
        auto const end = line->find(' ', colon);
        return std::stoi(line->substr(colon + 1, end - colon - 1));
    }

    std::string ServiceProcess::binary()
    {
        return binaryPath("tools/mxl-fabrics-service/mxl-fabrics-service").string();
    }
}
