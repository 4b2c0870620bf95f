// Configuration of the service: the tables of bad settings in data/bad-configs.json ("keys": roles, domains,
// providers, listening, NMOS, timeouts and log levels; "files": flow definitions and options, ticket locations, the
// command line and CUDA devices; "security": etcd and its TLS, ticket keys and proofs, HTTPS, IS-10 authorization,
// allowed initiators and redundant paths), each row refused with exit code 78 and a message naming the file, the key
// and the value; an audio flow accepted; --help; config files that are devices or missing.
#include "BadConfigs.hpp"
#include "Process.hpp"
#include "ServiceTestData.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>

namespace mxl::test
{
    TEST_CASE("bad configurations are refused with exit code 78 naming the file, the key and the value")
    {
        checkRefusedTable("keys");
    }

    TEST_CASE("bad flow, ticket-location and command-line settings are refused with exit code 78 naming the file, the key and the value")
    {
        checkRefusedTable("files");
    }

    TEST_CASE("bad security, ticket and path settings are refused with exit code 78 naming the file, the key and the value")
    {
        checkRefusedTable("security");
    }

    TEST_CASE("an audio flow definition is accepted: the target receives into it and its ticket names a bounce buffer")
    {
        TempDomain domain{"svc-config-audio"};
        TempDomain files{"svc-config-audio-files"};
        auto const file = files.path() / "audio-target.conf";
        auto const ticket = files.path() / "t.json";
        std::ofstream{file} << "role = target\ndomain = " << domain.str() << "\nflow_definition = " << serviceAudioFlow().string()
                            << "\nticket_file = " << ticket.string() << "\nnode = 127.0.0.1\n";
        ServiceProcess service{{{"config", file.string()}}};
        auto const ready = service.waitForLine("ready: waiting for an initiator", std::chrono::seconds{10});
        INFO(service.output());
        REQUIRE(ready);
        CHECK(readFile(ticket).find("\"bounceBufferInfo\"") != std::string::npos);
        CHECK(std::filesystem::exists(domain.path() / fmt::format("{}.mxl-flow", serviceAudioFlowId)));
        service.signal(SIGTERM);
        CHECK(service.wait(std::chrono::seconds{5}) == std::optional<int>{0});
    }

    TEST_CASE("--help lists the target's optional 'device' key with its range and what it cannot combine with")
    {
        Process help{{ServiceProcess::binary(), "--help"}};
        auto const wrapped = help.drainOutput(std::chrono::seconds{10});
        INFO(wrapped);
        CHECK(help.wait(std::chrono::seconds{10}) == std::optional<int>{0});
        // The help is wrapped to the terminal's width wherever a word ends: read it unwrapped.
        std::string text;
        for (std::size_t at = 0; at < wrapped.size(); ++at)
        {
            if (wrapped[at] == '\n' && at + 1 < wrapped.size() && wrapped[at + 1] == ' ')
            {
                text += text.ends_with(' ') ? "" : " ";
                while (at + 1 < wrapped.size() && wrapped[at + 1] == ' ')
                {
                    ++at;
                }
                continue;
            }
            text += wrapped[at];
        }
        for (auto const* expected : {"--device arg", "target, optional: create the flow", "CUDA device N (0-2147483647", "with 'path'"})
        {
            CHECK(text.find(expected) != std::string::npos);
        }
    }

    TEST_CASE("a config file that is a device is refused at once with exit code 78, not read without end")
    {
        checkRefused({{"config", "/dev/zero"}}, {"option --config value '/dev/zero': it is a character device, not a regular file"});
    }

    TEST_CASE("a missing config file is refused with exit code 78 naming the option and the path")
    {
        checkRefused({{"config", "/nonexistent/mxl/service.conf"}}, {"option --config value '/nonexistent/mxl/service.conf'"});
    }
}
