#include "BadConfigs.hpp"

#include "ServiceTestData.hpp"
#include "TempDomain.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace mxl::test
{
    namespace
    {
        // A row of the table, read from the file: what bad-configs.json's "about" describes.
        struct BadConfig
        {
            std::string name;
            std::string role;
            std::map<std::string, std::optional<std::string>> changes;
            std::vector<std::string> expected;
            std::string extraLines;
            bool onCommandLine = false;
            bool namesOrigin = true;
        };

        std::vector<BadConfig> readTable(std::string const& name)
        {
            auto const path = std::filesystem::path{MXL_SERVICE_TEST_DATA} / "bad-configs.json";
            std::ifstream in{path};
            auto const document = nlohmann::json::parse(in);
            std::vector<BadConfig> table;
            for (auto const& row : document.at(name))
            {
                BadConfig bad{.name = row.at("name"),
                              .role = row.at("role"),
                              .changes = {},
                              .expected = row.at("expected"),
                              .extraLines = row.value("extraLines", ""),
                              .onCommandLine = row.value("onCommandLine", false),
                              .namesOrigin = row.value("namesOrigin", true)};
                for (auto const& [key, value] : row.at("changes").items())
                {
                    bad.changes[key] = value.is_null() ? std::nullopt : std::optional<std::string>{value.get<std::string>()};
                }
                table.push_back(std::move(bad));
            }
            REQUIRE_MESSAGE(!table.empty(), "no rows in table '", name, "' of ", path.string());
            return table;
        }

        std::string expand(std::string text, std::string const& file, std::string const& dir)
        {
            std::pair<std::string, std::string> const names[] = {
                {"{file}", file}, {"{dir}", dir}, {"{flowId}", serviceTestFlowId}, {"{audioFlow}", serviceAudioFlow().string()}};
            for (auto const& [key, value] : names)
            {
                for (auto at = text.find(key); at != std::string::npos; at = text.find(key))
                {
                    text.replace(at, key.size(), value);
                }
            }
            return text;
        }

        // A domain, the folder of files for the rows to name, and a valid configuration per role.
        struct BadConfigFiles
        {
            TempDomain domain{"svc-config"};
            TempDomain files{"svc-config-files"};
            std::string dir = files.str();
            std::map<std::string, std::map<std::string, std::string>> valid;

            BadConfigFiles()
            {
                std::ofstream{files.path() / "not-json.json"} << "this is not json\n";
                auto const looseKey = files.path() / "loose.key";
                std::ofstream{looseKey} << R"({"id": "k", "key": "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s="})";
                std::filesystem::permissions(looseKey, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                                           std::filesystem::perms::group_read | std::filesystem::perms::others_read);
                std::ofstream{files.path() / "mux.json"}
                    << R"({"id": "0d6a7f3e-2b1c-4e5d-8f90-a1b2c3d4e5f6", "format": "urn:x-nmos:format:mux"})" << '\n';
                // Flow options that name another location, or another device, than 'device = 0'.
                std::ofstream{files.path() / "host.json"} << R"({"payloadLocation": "host"})";
                std::ofstream{files.path() / "device-1.json"} << R"({"payloadLocation": "device", "deviceIndex": 1})";
                // Definitions and options that are hostile rather than mistaken: nested past any sane depth, larger than any
                // definition, or accepted by the service's own check and refused by libmxl.
                std::ofstream{files.path() / "deep.json"} << std::string(500000, '[') << std::string(500000, ']');
                std::ofstream{files.path() / "big.json"} << "{\"label\": \"" << std::string(2 * 1024 * 1024, 'x') << "\"}";
                {
                    std::ifstream in{serviceTestFlow()};
                    std::stringstream definition;
                    definition << in.rdbuf();
                    auto wide = definition.str();
                    wide.replace(wide.find("\"frame_width\": 320"), 18, "\"frame_width\": 100000");
                    std::ofstream{files.path() / "wide.json"} << wide;
                }
                std::ofstream{files.path() / "array.json"} << "[1, 2]";

                valid = {
                    {"target",
                     {{"role", "target"},
                      {"domain", domain.str()},
                      {"flow_definition", serviceTestFlow().string()},
                      {"ticket_file", dir + "/t.json"}}},
                    {"initiator",
                     {{"role", "initiator"}, {"domain", domain.str()}, {"flow_id", serviceTestFlowId}, {"ticket", dir + "/t.json"}}},
                };
            }
        };
    }

    void checkRefusedTable(std::string const& name)
    {
        BadConfigFiles const fixture;
        int row = 0;
        for (auto const& bad : readTable(name))
        {
            auto const file = fmt::format("{}/case-{}.conf", fixture.dir, row++);
            auto const expanded = [&](std::string const& text) { return expand(text, file, fixture.dir); };
            auto settings = fixture.valid.at(bad.role);
            Settings commandLine;
            for (auto const& [key, value] : bad.changes)
            {
                if (bad.onCommandLine)
                {
                    commandLine.emplace_back(key, expanded(*value));
                }
                else if (value)
                {
                    settings[key] = expanded(*value);
                }
                else
                {
                    settings.erase(key);
                }
            }
            {
                std::ofstream out{file};
                for (auto const& [key, value] : settings)
                {
                    out << key << " = " << value << '\n';
                }
                out << expanded(bad.extraLines);
            }
            commandLine.insert(commandLine.begin(), {"config", file});
            std::vector<std::string> expected;
            if (bad.namesOrigin)
            {
                expected.push_back(bad.onCommandLine ? "the command line: " : expanded("file '{file}': "));
            }
            for (auto const& text : bad.expected)
            {
                expected.push_back(expanded(text));
            }
            INFO("row: ", bad.name);
            checkRefused(commandLine, expected);
        }
    }

    void checkRefused(Settings const& commandLine, std::vector<std::string> const& expected)
    {
        ServiceProcess service{commandLine};
        auto const status = service.wait(std::chrono::seconds{10});
        auto const output = service.output();
        INFO("output: ", output);
        CHECK(status == std::optional<int>{78});
        for (auto const& text : expected)
        {
            INFO("expected: ", text);
            CHECK(output.find(text) != std::string::npos);
        }
    }
}
