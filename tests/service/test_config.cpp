// Bad configuration, the keys of every service: roles, domains, providers, listening, NMOS, timeouts and log levels.
// Each row must be refused with exit code 78 and a message naming the file, the key and the value (BadConfigs.hpp).
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
        checkRefused({
            {"unknown key", "target", {}, {"colour"}, "colour = red\n"},
            {"line without =", "target", {}, {"this line has no equals sign"}, "this line has no equals sign\n"},
            {"key given twice", "target", {}, {"key 'role' is given twice", "'initiator'"}, "role = initiator\n"},
            {"unknown role", "target", {{"role", "sender"}}, {"key 'role' value 'sender'"}},
            {"no role", "target", {{"role", std::nullopt}}, {"key 'role' is missing"}},
            {"no domain", "target", {{"domain", std::nullopt}}, {"key 'domain' is missing"}},
            {"missing domain",
             "target",
             {{"domain", "/nonexistent/mxl-domain"}},
             {"key 'domain' value '/nonexistent/mxl-domain'", "not an existing directory"}},
            {"unknown provider", "target", {{"provider", "udp"}}, {"key 'provider' value 'udp'"}},
            {"port out of range", "target", {{"service", "70000"}}, {"key 'service' value '70000'"}},
            {"http_listen without port", "target", {{"http_listen", "localhost"}}, {"key 'http_listen' value 'localhost'", "host:port"}},
            {"http_listen port out of range",
             "target",
             {{"http_listen", "127.0.0.1:99999"}},
             {"key 'http_listen' value '127.0.0.1:99999'"}},
            {"http_listen on a foreign address",
             "target",
             {{"http_listen", "203.0.113.7:0"}},
             {"key 'http_listen' value '203.0.113.7:0'", "cannot listen there"}},
            {"nmos_registry neither http nor https",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_registry", "ftp://registry.example:8235"}},
             {"key 'nmos_registry' value 'ftp://registry.example:8235'",
              "expected http://host:port or https://host:port of an IS-04 Registration API"}},
            {"nmos_registry port out of range",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_registry", "http://127.0.0.1:99999/x-nmos/registration/v1.3"}},
             {"key 'nmos_registry' value 'http://127.0.0.1:99999/x-nmos/registration/v1.3'"}},
            {"nmos_registry without http_listen",
             "initiator",
             {{"nmos_registry", "http://127.0.0.1:8235"}},
             {"key 'nmos_registry' value 'http://127.0.0.1:8235'", "needs 'http_listen'"}},
            {"nmos_query not http",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_query", "ftp://registry.example:8235"}},
             {"key 'nmos_query' value 'ftp://registry.example:8235'",
              "expected http://host:port or https://host:port of an IS-04 Query API"}},
            {"nmos_query without http_listen",
             "target",
             {{"nmos_query", "http://127.0.0.1:8235/x-nmos/query/v1.3"}},
             {"key 'nmos_query' value 'http://127.0.0.1:8235/x-nmos/query/v1.3'", "needs 'http_listen'"}},
            {"nmos_query on an initiator",
             "initiator",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_query", "http://127.0.0.1:8235"}},
             {"key 'nmos_query' value 'http://127.0.0.1:8235'", "not a setting of an initiator"}},
            {"nmos heartbeat too long",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_registry", "http://127.0.0.1:8235"}, {"nmos_heartbeat_s", "12"}},
             {"key 'nmos_heartbeat_s' value '12'", "seconds from 1 to 10"}},
            {.name = "nmos heartbeat without a registry",
             .role = "target",
             .changes = {{"nmos_heartbeat_s", "2"}},
             .expected = {"key 'nmos_heartbeat_s' value '2'", "only takes effect with 'nmos_registry'"},
             .onCommandLine = true},
            {"node not on this host", "target", {{"node", "203.0.113.9"}}, {"key 'node' value '203.0.113.9'", "no tcp interface"}},
            {"stall timeout not a number",
             "target",
             {{"stall_timeout_ms", "abc"}},
             {"key 'stall_timeout_ms' value 'abc'", "500 to 600000"}},
            {"stall timeout too short", "target", {{"stall_timeout_ms", "10"}}, {"key 'stall_timeout_ms' value '10'"}},
            {"unknown log level", "target", {{"log_level", "loud"}}, {"key 'log_level' value 'loud'"}},
        });
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
