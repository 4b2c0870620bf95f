// An initiator's writes in flight, by the id each was posted with: which connection attempt posted it and for which
// transfer, so that a completion finds its transfer, and the completions of a dropped attempt are recognised.
#pragma once

#include "fabrics/core/TransportConnection.hpp"
#include "fabrics/protocol/RemoteWrite.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>

#include <boost/container/flat_map.hpp>

namespace mxl::fabrics
{
    // Who posted a write: the link's connection attempt (its token) and the transfer, 0 for a probe.
    struct WriteOwner
    {
        std::uint64_t token = 0;
        std::uint64_t transferId = 0;
        bool commit = false;
        // Payload writes: the flow's bytes the write carries (its length without the protocol's marks).
        std::uint64_t bytes = 0;
    };

    class WriteLedger
    {
    public:
        // Posts `write` on `connection` under a new id, recorded for `owner`; false when the transmit queue is full.
        bool post(TransportConnection& connection, RemoteWrite const& write, WriteOwner const& owner)
        {
            auto const id = ++_lastWrite;
            if (!connection.write(write, id))
            {
                return false;
            }
            _writes.emplace(id, owner);
            return true;
        }

        // The owner of a completed write, forgotten from now on; nullopt for a write of a dropped attempt.
        std::optional<WriteOwner> complete(std::uint64_t writeId)
        {
            auto const found = _writes.find(writeId);
            if (found == _writes.end())
            {
                return std::nullopt;
            }
            auto const owner = found->second;
            _writes.erase(found);
            return owner;
        }

        // The connection attempt `token` was dropped: its writes' completions are ignored from now on.
        void forget(std::uint64_t token)
        {
            for (auto entry = _writes.begin(); entry != _writes.end();)
            {
                entry = entry->second.token == token ? _writes.erase(entry) : std::next(entry);
            }
        }

    private:
        std::uint64_t _lastWrite = 0;
        // Ids only grow, so a write is recorded at the end of a sorted array whose room stays: after the first transfers
        // posting and completing allocate nothing.
        boost::container::flat_map<std::uint64_t, WriteOwner> _writes;
    };
}
