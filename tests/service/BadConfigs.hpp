// The bad-configuration tables of data/bad-configs.json: each row is a config file or command line the service must
// refuse with exit code 78 and a message naming where the setting came from, the key and the value. The files the rows
// name are made once per table, in the folder "{dir}" stands for: not-json.json, array.json, deep.json (nested 500000
// arrays deep), big.json (2 MiB), wide.json (a flow definition libmxl refuses), mux.json (a flow of another format),
// host.json and device-1.json (flow options) and loose.key (readable by others).
#pragma once

#include "ServiceProcess.hpp"

#include <string>
#include <vector>

namespace mxl::test
{
    // Runs every row of the table `name` of data/bad-configs.json as a service process and CHECKs its exit code and
    // output, naming the row.
    void checkRefusedTable(std::string const& name);

    // Runs the service with `commandLine` and CHECKs that it exits with code 78 and prints every one of `expected`.
    void checkRefused(Settings const& commandLine, std::vector<std::string> const& expected);
}
