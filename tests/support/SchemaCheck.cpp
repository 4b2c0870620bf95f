#include "SchemaCheck.hpp"

#include "Process.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <regex>

namespace mxl::test
{
    namespace
    {
        // One validator a test process (tests/nmos/validate.py --serve): Python and jsonschema take a few tenths of a
        // second of CPU to start, a document a few milliseconds to check, and a test checks dozens.
        class Validator
        {
        public:
            Validator()
            {
                if (!std::filesystem::is_directory(nmosSchemaDirectory() / "is-04-v1.3"))
                {
                    _unavailable = fmt::format("the AMWA schemas are not at {}", nmosSchemaDirectory().string());
                    return;
                }
                _process.emplace(std::vector<std::string>{"/usr/bin/python3", std::string{MXL_NMOS_VALIDATOR}, "--serve"},
                                 Process::Input::Written);
                if (_process->readLine(answerDeadline) != "ready")
                {
                    _process.reset();
                    _unavailable = "python3-jsonschema is not installed (scripts/install-deps.sh installs it)";
                }
            }

            std::optional<std::string> const& unavailable() const noexcept
            {
                return _unavailable;
            }

            std::string check(std::string const& schema, nlohmann::json const& document)
            {
                std::lock_guard lock{_mutex};
                if (!_process)
                {
                    return fmt::format("not validated: {}", _unavailable.value_or("the validator stopped answering"));
                }
                auto const request = fmt::format("{}\t{}\n", (nmosSchemaDirectory() / schema).string(), document.dump());
                auto answer = _process->writeInput(request) ? _process->readLine(answerDeadline) : std::nullopt;
                if (!answer)
                {
                    // Its answers would no longer match the requests.
                    _process.reset();
                    return fmt::format("not validated: the validator gave no answer within {} s", answerDeadline.count());
                }
                return *answer == "ok" ? std::string{} : *answer;
            }

        private:
            static constexpr std::chrono::seconds answerDeadline{60};
            std::mutex _mutex;
            std::optional<Process> _process;
            std::optional<std::string> _unavailable;
        };

        Validator& validator()
        {
            static Validator instance;
            return instance;
        }
    }

    std::filesystem::path nmosSchemaDirectory()
    {
        return std::filesystem::path{MXL_NMOS_SCHEMA_DIR};
    }

    std::optional<std::string> schemaCheckUnavailable()
    {
        return validator().unavailable();
    }

    std::string schemaErrors(std::string const& schema, nlohmann::json const& document)
    {
        return validator().check(schema, document);
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
