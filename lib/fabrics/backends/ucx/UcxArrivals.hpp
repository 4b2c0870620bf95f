// What a target hands out: immediates, each once the bytes before it are in place. The put path's immediates are
// ready when they come (UcxConnection flushes before announcing). An ordered domain's writes (UcxPlacement.hpp) are
// kept per sending connection in the order they came (one lane: the order they were posted in); a rendezvous write is
// placed when UCX has received its data, and an immediate is ready once its write and every earlier write of its
// connection are in place, whatever order UCX completes them in. A write of a connection that failed or was ignored
// costs the next immediate of that connection: the grain it belongs to stays uncommitted.
#pragma once

#include "fabrics/backends/ucx/UcxPlacement.hpp"

#include <ucp/api/ucp_def.h>
#include <ucs/type/status.h>

#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxArrivals
    {
    public:
        // `markAge`: how long a forgotten connection's lost mark lives at least (below); tests shorten or lengthen it.
        explicit UcxArrivals(std::chrono::milliseconds markAge = std::chrono::seconds{2}) noexcept
            : _markAge{markAge}
        {
        }

        struct Entry
        {
            UcxArrivals* owner;
            std::uint64_t connection;
            std::uint32_t immediate;
            bool announces;
            bool placed;
            bool failed;
            // The target's endpoint to the sender, on which UCX tracks the entry's rendezvous receive; null when the
            // sender did not say (UCP_AM_SEND_FLAG_REPLY).
            ucp_ep_h sender = nullptr;
        };

        [[nodiscard]] bool empty() const noexcept
        {
            return _ready.empty();
        }

        // The oldest ready immediate; not empty().
        std::uint32_t take() noexcept;

        // An immediate of the put path: ready now.
        void announce(std::uint32_t immediate)
        {
            _ready.push_back(immediate);
        }

        // An ordered write came: its place in its connection's order. Its address stays valid until it is placed.
        Entry& add(UcxPlacementHeader const& header);
        // Its data is in place (`failed`: it is not, and its grain's immediate is dropped).
        void placed(Entry& entry, bool failed);
        // An ordered write was ignored: as one that failed, it costs its grain's immediate.
        void ignored(UcxPlacementHeader const& header);
        // An ordered write could not be entered in its connection's order (out of memory): its grain is not announced,
        // nor, where its place among the writes still queued is unknown, the grains of those writes.
        void lostUnrecorded(UcxPlacementHeader const& header) noexcept;

        // The idle connections the table keeps at most; more are forgotten (makeRoom), so that a sender flooding new
        // connection tags cannot grow it without bound.
        static constexpr std::size_t maxConnections = 4096;

        // Connections in the table: at most maxConnections idle ones, and those with writes still being placed.
        [[nodiscard]] std::size_t connections() const noexcept
        {
            return _connections.size();
        }

        // The entry's data comes by a rendezvous receive now under way: onReceived places it.
        void awaitReceive() noexcept
        {
            ++_receiving;
        }

        // UCX's completion callback of a rendezvous receive (user data: the entry).
        static void onReceived(void* request, ucs_status_t status, std::size_t length, void* entry) noexcept;

        // Rendezvous receives UCX has not completed: their callbacks hold entries' addresses.
        [[nodiscard]] std::size_t receiving() const noexcept
        {
            return _receiving;
        }

        // The last write released in its connection's order was a payload write: its grain's commit is still to come
        // (of the connection that wrote last; a hint for how long the target polls, not a count).
        [[nodiscard]] bool commitDue() const noexcept
        {
            return _commitDue;
        }

        // The endpoints the receives under way come through, each once; false where one came without its endpoint.
        [[nodiscard]] bool receivingFrom(std::vector<ucp_ep_h>& senders) const;

    private:
        struct Connection
        {
            // deque: adding at the back and removing at the front leave the other entries where they are.
            std::deque<Entry> order;
            // How many of the next announcements to drop: a write of the grain being announced next is missing (1), or
            // one whose place in the order is unknown (lostUnrecorded) is.
            std::size_t losing = 0;
        };

        using Connections = std::unordered_map<std::uint64_t, Connection>;

        std::deque<std::uint32_t> _ready;
        Connections _connections;
        std::size_t _receiving = 0;
        bool _commitDue = false;
        static constexpr std::size_t minSweep = 64;
        std::size_t _sweepAt = minSweep;
        // The lost marks of forgotten connections, by a hash of the tag: a connection that comes again, or a new one
        // whose tag shares the bit, starts with its next grain lost; the price of a shared bit is a grain of that other
        // connection. A mark lives _markAge at least (about three times that at most while connections come), far
        // longer than the writes of a grain take to come one after the other, so that a flood's marks cost other
        // connections grains only while it lasts. 16 KiB, whatever a flood sends.
        static constexpr std::size_t forgottenBits = 65536;
        std::chrono::milliseconds _markAge;
        std::bitset<forgottenBits> _marks;
        // The marks of the period before _marksSince.
        std::bitset<forgottenBits> _olderMarks;
        std::chrono::steady_clock::time_point _marksSince{};
        // When the last marks were set; empty while none is.
        std::optional<std::chrono::steady_clock::time_point> _markedAt;

        // The connection of `tag`, added to the table where it is not there.
        Connections::iterator connectionOf(std::uint64_t tag);
        // Releases what is placed at the front of the connection's order.
        void release(Connections::iterator connection);
        // A connection is kept while idle, so that its writes do not make its entry again each time its order empties
        // (with one grain in flight, every grain). Before another connection is added, the idle ones are forgotten
        // once the table has doubled since the last sweep (at least minSweep, at most maxConnections): a sweep's cost
        // is spread over the connections that grew it. Idle ones that lost a write are forgotten too, into _marks, once
        // the others are gone and the table still holds maxConnections.
        void makeRoom();
        // Remembers that `tag`'s next grain is lost, for a connection the table no longer holds.
        void markForgotten(std::uint64_t tag, std::chrono::steady_clock::time_point now) noexcept;
        // Clears the marks that have lived _markAge: starts a period once the current one is that old, keeping the
        // current one's marks as the older.
        void ageMarks(std::chrono::steady_clock::time_point now) noexcept;
        [[nodiscard]] static std::size_t forgottenBit(std::uint64_t tag) noexcept;
    };
}
