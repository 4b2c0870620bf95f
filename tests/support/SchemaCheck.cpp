#include "SchemaCheck.hpp"

#include "Process.hpp"

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <regex>

#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        // Exit status and output of a short command.
        std::pair<std::optional<int>, std::string> run(std::vector<std::string> const& command)
        {
            std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh"};
            argv.insert(argv.end(), command.begin(), command.end());
            Process process{argv};
            auto output = process.drainOutput(std::chrono::seconds{60});
            return {process.wait(std::chrono::seconds{60}), std::move(output)};
        }
    }

    std::filesystem::path nmosSchemaDirectory()
    {
        return std::filesystem::path{MXL_NMOS_SCHEMA_DIR};
    }

    std::optional<std::string> schemaCheckUnavailable()
    {
        if (!std::filesystem::is_directory(nmosSchemaDirectory() / "is-04-v1.3"))
        {
            return fmt::format("the AMWA schemas are not at {}", nmosSchemaDirectory().string());
        }
        if (run({"/usr/bin/python3", "-c", "import jsonschema"}).first != 0)
        {
            return std::string{"python3-jsonschema is not installed (scripts/install-deps.sh installs it)"};
        }
        return std::nullopt;
    }

    std::string schemaErrors(std::string const& schema, nlohmann::json const& document)
    {
        return schemaErrorsOfEach(schema, {document}).front();
    }

    std::vector<std::string> schemaErrorsOfEach(std::string const& schema, std::vector<nlohmann::json> const& documents)
    {
        static std::atomic<unsigned> counter{0};
        std::vector<std::string> command{"/usr/bin/python3", std::string{MXL_NMOS_VALIDATOR}, (nmosSchemaDirectory() / schema).string()};
        for (auto const& document : documents)
        {
            auto const file = std::filesystem::temp_directory_path() / fmt::format("mxl-nmos-{}-{}.json", ::getpid(), counter++);
            std::ofstream{file} << document.dump(2);
            command.push_back(file.string());
        }
        auto const [status, output] = run(command);
        // The validator says of each document, on a line of its own, "<file>: ok" or "<file>: invalid against ...";
        // a document it said nothing of was not validated (it failed on the way), which is no pass.
        std::vector<std::string> errors(documents.size());
        for (std::size_t i = 0; i < documents.size(); ++i)
        {
            auto const& file = command[i + 3];
            std::filesystem::remove(file);
            auto const prefix = file + ": ";
            auto verdict = fmt::format("not validated (status {}): {}", status ? *status : -1, output);
            for (auto at = output.find(prefix); at != std::string::npos; at = output.find(prefix, at + 1))
            {
                if (at == 0 || output[at - 1] == '\n')
                {
                    auto const line = output.substr(at, output.find('\n', at) - at);
                    verdict = line == prefix + "ok" ? std::string{} : line;
                }
            }
            errors[i] = std::move(verdict);
        }
        return errors;
    }

    std::string mxlConnectionErrors(std::string const& schema, nlohmann::json const& document, bool autoAllowed)
    {
        static std::regex const uuid{"^[0-9a-f]{8}-[0-9a-f]{4}-[1-9a-f][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"};
        // A PATCH body may name some parameters only; a document the API answers with names them all.
        bool const partial =
            schema.find("-stage-schema.json") != std::string::npos || schema.find("-post-schema.json") != std::string::npos;
        bool const receivers = schema.find("receiver") != std::string::npos;
        std::string errors;
        auto const setAside = [&](nlohmann::json& settings)
        {
            if (!settings.is_object() || !settings.contains("transport_params") || !settings["transport_params"].is_array())
            {
                return;
            }
            for (auto& leg : settings["transport_params"])
            {
                for (auto const* name : {"mxl_domain_id", "mxl_flow_id"})
                {
                    if (!leg.is_object() || !leg.contains(name))
                    {
                        errors += partial ? "" : fmt::format("a leg has no {}\n", name);
                        continue;
                    }
                    auto const& value = leg[name];
                    bool const takesAuto = autoAllowed && !(receivers && std::string{name} == "mxl_flow_id");
                    if (!(value.is_null() || (value == "auto" && takesAuto) ||
                          (value.is_string() && std::regex_match(value.get<std::string>(), uuid))))
                    {
                        errors += fmt::format("{} is {}: not null{} or a lowercase UUID (BCP-007-03)\n", name, value.dump(),
                                              takesAuto ? ", \"auto\"" : "");
                    }
                    leg.erase(name);
                }
            }
        };
        auto is05 = document;
        if (is05.is_array())
        {
            for (auto& entry : is05)
            {
                if (entry.is_object() && entry.contains("params"))
                {
                    setAside(entry["params"]);
                }
            }
        }
        else
        {
            setAside(is05);
        }
        // BCP-007-03's rules need no schema files; IS-05's schemas are checked where they are.
        return errors + (schemaCheckUnavailable() ? std::string{} : schemaErrors(schema, is05));
    }
}
