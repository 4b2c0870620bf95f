// Driving tests/flow/flow-peer (a writer or reader in a process of its own) from a test built with MXL_FLOW_PEER, its
// path: the command line, and the numbers of the lines it prints.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace mxl::test
{
    inline std::vector<std::string> peer(std::vector<std::string> arguments)
    {
        arguments.insert(arguments.begin(), MXL_FLOW_PEER);
        return arguments;
    }

    // "grain <index> <status> <validSlices> <flags> <checksum> ..." or "wrote <index> <checksum> ...": the numbers after
    // the first word.
    inline std::vector<std::uint64_t> fields(std::string const& line)
    {
        std::istringstream in{line};
        std::string word;
        in >> word;
        std::vector<std::uint64_t> values;
        for (std::uint64_t value = 0; in >> value;)
        {
            values.push_back(value);
        }
        return values;
    }
}
