// The bad-configuration tables of test_config*.cpp: each row is a config file or command line the service must refuse
// with exit code 78 and a message naming where the setting came from, the key and the value. The files the rows name
// are made once per table, in the folder "{dir}" stands for: not-json.json, array.json, deep.json (nested 500000 arrays
// deep), big.json (2 MiB), wide.json (a flow definition libmxl refuses), mux.json (a flow of another format), host.json
// and device-1.json (flow options) and loose.key (readable by others).
#pragma once

#include "ServiceProcess.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    // In every text of a row, "{file}" stands for the row's config file and "{dir}" for the folder of files.
    struct BadConfig
    {
        char const* name;
        // "target" or "initiator": which valid configuration the row starts from.
        char const* role;
        // Changes to it: a value, or nullopt to leave the key out.
        std::map<std::string, std::optional<std::string>> changes;
        // Every one must appear in the output.
        std::vector<std::string> expected;
        // Lines appended to the file.
        std::string extraLines{};
        // Given on the command line instead of in the file.
        bool onCommandLine = false;
        // The message begins "file '{file}': " or "the command line: ", as every refusal of a setting does; a flow that
        // libmxl refuses once the settings were read is named by its setting alone.
        bool namesOrigin = true;
    };

    // Runs every row as a service process and CHECKs its exit code and output, naming the row.
    void checkRefused(std::vector<BadConfig> const& table);

    // Runs the service with `commandLine` and CHECKs that it exits with code 78 and prints every one of `expected`.
    void checkRefused(Settings const& commandLine, std::vector<std::string> const& expected);
}
