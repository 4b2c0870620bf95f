// A ticket of a target that is not there: a real tcp target's ticket made another incarnation (its epoch and id
// changed) at a loopback port that refuses connections. The port is held bound and never listened on, so that no other
// program takes it while the ticket is in use.
#pragma once

#include <common/UniqueFd.hpp>

#include <cstdint>
#include <string>

namespace mxl::test
{
    class UnreachableTicket
    {
    public:
        // `ticket`: the JSON text of a tcp target's ticket (an IPv4 address).
        explicit UnreachableTicket(std::string const& ticket);

        [[nodiscard]] std::string const& json() const noexcept
        {
            return _json;
        }

        [[nodiscard]] std::uint64_t epoch() const noexcept
        {
            return _epoch;
        }

    private:
        // In network byte order; set while _port is made.
        std::uint16_t _portNumber = 0;
        UniqueFd _port;
        std::uint64_t _epoch = 0;
        std::string _json;
    };
}
