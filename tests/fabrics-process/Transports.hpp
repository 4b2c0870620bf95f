// The ways the tests connect a target and an initiator on this machine, as mxl-fabrics-demo target arguments.
// tcp targets listen on port 0 (any free port: tests run in parallel) and the port travels in the ticket.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::test
{
    struct Transport
    {
        char const* name;
        std::vector<std::string> targetArguments;
    };

    inline Transport const tcpIpv4{"tcp 127.0.0.1", {"-p", "tcp", "-n", "127.0.0.1", "-s", "0"}};
    inline Transport const tcpIpv6{"tcp ::1", {"-p", "tcp", "-n", "::1", "-s", "0"}};
    inline Transport const sharedMemory{"shm", {"-p", "shm"}};

    // The backend the demo processes load: they are started without --backend, so MXL_FABRICS_BACKEND names it (else ofi).
    inline std::string_view demoBackend()
    {
        auto const* named = std::getenv("MXL_FABRICS_BACKEND");
        return named != nullptr && *named != '\0' ? named : "ofi";
    }

    inline std::vector<std::string> joined(std::vector<std::string> first, std::vector<std::string> const& second)
    {
        first.insert(first.end(), second.begin(), second.end());
        return first;
    }
}
