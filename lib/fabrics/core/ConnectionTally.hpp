// The initiators' connections to a target as its transport reports them (connection-oriented transports only): how many
// are up now, and how many came up while another was up. One ticket is for one initiator: a second one connected beside
// the first writes into the same ring, and the two streams of grains interleave.
#pragma once

#include "fabrics/core/TargetTransport.hpp"

#include <atomic>
#include <cstdint>
#include <set>

namespace mxl::fabrics
{
    class ConnectionTally
    {
    public:
        struct Counts
        {
            std::uint64_t connected = 0;
            std::uint64_t joinedWhileConnected = 0;
        };

        // On the thread that reads the target's arrivals. A new setup's connections start from none, the counts go on.
        void changed(ConnectionChange const& change);
        void restart();

        // From any thread.
        [[nodiscard]] Counts counts() const noexcept;

    private:
        std::set<std::uint64_t> _live;
        std::atomic<std::uint64_t> _connected{0};
        std::atomic<std::uint64_t> _joinedWhileConnected{0};
    };
}
