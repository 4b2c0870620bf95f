// A target's ticket handed to an initiator in another process through memory both map (SharedArena): the target's
// process publishes it once, the others wait until it is there and read it. It lives in that memory, so it holds
// plain bytes and an atomic only.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace mxl::bench
{
    template <std::size_t Capacity>
    class SharedTicket
    {
    public:
        // Throws std::runtime_error naming both sizes when `ticket` does not fit.
        void publish(std::vector<char> const& ticket)
        {
            if (ticket.size() > Capacity)
            {
                throw std::runtime_error{fmt::format("a ticket of {} bytes; at most {} fit in the shared memory", ticket.size(), Capacity)};
            }
            std::memcpy(_text, ticket.data(), ticket.size());
            _bytes.store(static_cast<std::uint32_t>(ticket.size()), std::memory_order_release);
        }

        [[nodiscard]] bool published() const noexcept
        {
            return _bytes.load(std::memory_order_acquire) != 0;
        }

        // Empty while the ticket is not published.
        [[nodiscard]] std::vector<char> read() const
        {
            return {_text, _text + _bytes.load(std::memory_order_acquire)};
        }

    private:
        std::atomic<std::uint32_t> _bytes;
        char _text[Capacity];
    };
}
