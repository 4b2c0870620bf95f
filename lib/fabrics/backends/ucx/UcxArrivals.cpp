#include "fabrics/backends/ucx/UcxArrivals.hpp"

#include <ucp/api/ucp.h>

#include <algorithm>

namespace mxl::fabrics::ucx
{
    std::uint32_t UcxArrivals::take() noexcept
    {
        auto const immediate = _ready.front();
        _ready.pop_front();
        return immediate;
    }

    UcxArrivals::Entry& UcxArrivals::add(UcxPlacementHeader const& header)
    {
        auto& order = connectionOf(header.connection)->second.order;
        order.push_back(Entry{this, header.connection, header.immediate, header.announces == 1, false, false});
        return order.back();
    }

    void UcxArrivals::placed(Entry& entry, bool failed)
    {
        entry.placed = true;
        entry.failed = failed;
        release(_connections.find(entry.connection));
    }

    void UcxArrivals::ignored(UcxPlacementHeader const& header)
    {
        auto const connection = connectionOf(header.connection);
        // It stands in its connection's order as a write that failed: behind the writes still being placed.
        connection->second.order.push_back(Entry{this, header.connection, header.immediate, header.announces == 1, true, true});
        release(connection);
    }

    void UcxArrivals::lostUnrecorded(UcxPlacementHeader const& header) noexcept
    {
        if (header.announces == 1)
        {
            // A commit: its grain's immediate is simply never handed out.
            return;
        }
        auto const connection = _connections.find(header.connection);
        if (connection == _connections.end())
        {
            // Nothing of the connection is queued: its next grain is this write's. Marked as a forgotten connection's.
            markForgotten(header.connection, std::chrono::steady_clock::now());
            return;
        }
        // It came after every write queued, and its grain's commit will come after theirs: dropping the announcements
        // of the grains queued as well as the next one drops it, whichever of them it belongs to.
        auto& [order, losing] = connection->second;
        auto const queued =
            static_cast<std::size_t>(std::count_if(order.begin(), order.end(), [](Entry const& entry) { return entry.announces; }));
        losing = std::max(losing, queued + 1);
    }

    UcxArrivals::Connections::iterator UcxArrivals::connectionOf(std::uint64_t tag)
    {
        auto connection = _connections.find(tag);
        if (connection == _connections.end())
        {
            makeRoom();
            connection = _connections.try_emplace(tag).first;
            ageMarks(std::chrono::steady_clock::now());
            auto const bit = forgottenBit(tag);
            connection->second.losing = _marks.test(bit) || _olderMarks.test(bit) ? 1 : 0;
        }
        return connection;
    }

    void UcxArrivals::release(Connections::iterator connection)
    {
        auto& [order, losing] = connection->second;
        while (!order.empty() && order.front().placed)
        {
            auto const released = order.front();
            order.pop_front();
            _commitDue = !released.announces;
            if (!released.announces)
            {
                if (released.failed)
                {
                    losing = std::max<std::size_t>(losing, 1);
                }
                continue;
            }
            auto const complete = losing == 0 && !released.failed;
            losing -= losing > 0 ? 1 : 0;
            if (complete)
            {
                _ready.push_back(released.immediate);
            }
        }
    }

    bool UcxArrivals::receivingFrom(std::vector<ucp_ep_h>& senders) const
    {
        bool known = true;
        for (auto const& [id, connection] : _connections)
        {
            for (auto const& entry : connection.order)
            {
                if (entry.placed)
                {
                    continue;
                }
                known = known && entry.sender != nullptr;
                if (entry.sender != nullptr && std::find(senders.begin(), senders.end(), entry.sender) == senders.end())
                {
                    senders.push_back(entry.sender);
                }
            }
        }
        return known;
    }

    void UcxArrivals::makeRoom()
    {
        if (_connections.size() < _sweepAt)
        {
            return;
        }
        std::erase_if(_connections,
                      [](auto const& connection) { return connection.second.order.empty() && connection.second.losing == 0; });
        if (_connections.size() >= maxConnections)
        {
            auto const now = std::chrono::steady_clock::now();
            std::erase_if(_connections,
                          [&](auto const& connection)
                          {
                              if (!connection.second.order.empty())
                              {
                                  return false;
                              }
                              markForgotten(connection.first, now);
                              return true;
                          });
        }
        _sweepAt = std::clamp<std::size_t>(2 * _connections.size(), minSweep, maxConnections);
    }

    void UcxArrivals::markForgotten(std::uint64_t tag, std::chrono::steady_clock::time_point now) noexcept
    {
        ageMarks(now);
        _markedAt = now;
        _marks.set(forgottenBit(tag));
    }

    void UcxArrivals::ageMarks(std::chrono::steady_clock::time_point now) noexcept
    {
        if (!_markedAt)
        {
            return;
        }
        // Each mark lives _markAge at least: every one once the last was set that long ago, or through the period
        // after its own.
        if (now - *_markedAt >= _markAge)
        {
            _marks.reset();
            _olderMarks.reset();
            _markedAt.reset();
        }
        else if (now - _marksSince >= _markAge)
        {
            _olderMarks = _marks;
            _marks.reset();
            _marksSince = now;
        }
    }

    std::size_t UcxArrivals::forgottenBit(std::uint64_t tag) noexcept
    {
        // Fibonacci hashing: the top bits of the product, so that tags that differ in any bits spread.
        static_assert(forgottenBits == std::size_t{1} << 16);
        return static_cast<std::size_t>((tag * 0x9E3779B97F4A7C15ull) >> 48);
    }

    void UcxArrivals::onReceived(void* request, ucs_status_t status, std::size_t /*length*/, void* user) noexcept
    {
        auto& entry = *static_cast<Entry*>(user);
        auto& arrivals = *entry.owner;
        --arrivals._receiving;
        ucp_request_free(request);
        try
        {
            arrivals.placed(entry, status != UCS_OK);
        }
        catch (...)
        {
            // Only the ready queue allocates: that immediate is lost, as when the receive fails.
        }
    }
}
