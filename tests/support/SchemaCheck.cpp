#include "SchemaCheck.hpp"

#include "Process.hpp"

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <fstream>

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
        static std::atomic<unsigned> counter{0};
        auto const file = std::filesystem::temp_directory_path() / fmt::format("mxl-nmos-{}-{}.json", ::getpid(), counter++);
        std::ofstream{file} << document.dump(2);
        auto const [status, output] =
            run({"/usr/bin/python3", std::string{MXL_NMOS_VALIDATOR}, (nmosSchemaDirectory() / schema).string(), file.string()});
        std::filesystem::remove(file);
        if (status != 0 && output.empty())
        {
            return fmt::format("the validator failed (status {})", status ? *status : -1);
        }
        return status == 0 ? std::string{} : output;
    }
}
