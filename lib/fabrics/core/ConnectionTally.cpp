#include "fabrics/core/ConnectionTally.hpp"

namespace mxl::fabrics
{
    void ConnectionTally::changed(ConnectionChange const& change)
    {
        if (!change.connected)
        {
            _live.erase(change.connectionId);
        }
        else if (_live.insert(change.connectionId).second && _live.size() > 1)
        {
            _joinedWhileConnected.fetch_add(1, std::memory_order_relaxed);
        }
        _connected.store(_live.size(), std::memory_order_relaxed);
    }

    void ConnectionTally::restart()
    {
        _live.clear();
        _connected.store(0, std::memory_order_relaxed);
    }

    ConnectionTally::Counts ConnectionTally::counts() const noexcept
    {
        return {_connected.load(std::memory_order_relaxed), _joinedWhileConnected.load(std::memory_order_relaxed)};
    }
}
