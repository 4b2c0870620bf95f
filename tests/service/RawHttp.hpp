// HTTP as a hostile client speaks it: bytes written to a loopback port as they are, the answer read back without any
// HTTP library smoothing over what the server did.
#pragma once

#include <common/UniqueFd.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace mxl::test
{
    struct RawAnswer
    {
        // 0 when the server closed the connection (or stayed silent) without a status line.
        int status = 0;
        std::string head;
        std::string body;

        // The value of header `name` (case-insensitive), "" when absent.
        [[nodiscard]] std::string header(std::string const& name) const;
    };

    // A TCP connection to 127.0.0.1:`port` from 127.0.0.`fromHost` (a descriptor the caller closes), or -1.
    int connectLoopback(int port, std::uint8_t fromHost = 1);

    // Writes `bytes` to 127.0.0.1:`port` and reads one response: until its Content-Length is complete, the server closes
    // or `timeout` passes.
    RawAnswer rawExchange(int port, std::string const& bytes, std::chrono::milliseconds timeout = std::chrono::seconds{10});

    // A request with the headers every well-formed one has here (Host, Connection: close, Content-Length for a body).
    std::string rawRequest(std::string const& method, std::string const& target, std::string const& body = {},
                           std::string const& extraHeaders = {});

    // A listening socket on 127.0.0.1 at a port the kernel picks (set in `port`).
    UniqueFd listenOnLoopback(int& port);

    // Activates the one IS-05 receiver of the target service on `port` at once with the sender whose Connection API
    // listens at 127.0.0.1:`senderPort` (a fixed sender id); requires the answer 200.
    void activateWithSenderAt(int port, int senderPort);
}
