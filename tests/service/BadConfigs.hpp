// The bad-configuration tables of test_config*.cpp: each row is a config file or command line the service must refuse
// with exit code 78 and a message naming where the setting came from, the key and the value. The files the rows name
// (not JSON, hostile, readable by others) are made once per table.
#pragma once

#include "ServiceProcess.hpp"
#include "TempDomain.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    struct BadConfig
    {
        char const* name;
        // "target" or "initiator": which valid configuration the row starts from.
        char const* role;
        // Changes to it: a value, or nullopt to leave the key out.
        std::map<std::string, std::optional<std::string>> changes;
        // Lines appended to the file as they are.
        std::string extraLines;
        // Given on the command line instead of in the file.
        bool onCommandLine;
        // Every one must appear in the output; "{file}", "{dir}" are replaced.
        std::vector<std::string> expected;
    };

    // A domain, a folder of files for the rows to name, and a valid configuration per role.
    struct BadConfigFiles
    {
        BadConfigFiles();

        TempDomain domain{"svc-config"};
        TempDomain files{"svc-config-files"};
        std::string dir = files.str();
        std::filesystem::path notJson;
        std::filesystem::path multiplexed;
        std::filesystem::path looseKey;
        std::map<std::string, std::map<std::string, std::string>> valid;
    };

    // Runs every row as a service process and CHECKs its exit code and output.
    void checkRefused(BadConfigFiles const& fixture, std::vector<BadConfig> const& table);
}
