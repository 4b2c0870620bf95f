// One range registered with a transport: the protocol names it in the local segments of its writes (initiator), or
// publishes it in a ticket for peers to write into (target). The transport keeps its descriptors and keys.
#pragma once

#include "fabrics/ticket/TargetInfo.hpp"

#include <cstddef>
#include <cstdint>

namespace mxl::fabrics
{
    enum class MemoryAccess
    {
        // Read by this side's writes (an initiator's flow and staged headers).
        LocalSource,
        // Written by peers (a target's regions).
        RemoteWrite,
    };

    class TransportMemory
    {
    public:
        TransportMemory(TransportMemory const&) = delete;
        TransportMemory& operator=(TransportMemory const&) = delete;
        // Deregisters: after every write that names it has completed or its connection was closed.
        virtual ~TransportMemory() = default;

        [[nodiscard]] std::uint8_t const* base() const noexcept
        {
            return _base;
        }

        [[nodiscard]] std::size_t length() const noexcept
        {
            return _length;
        }

        // What a ticket publishes for it: the address peers add their offsets to (0 when the transport addresses by
        // offset), its length and key.
        [[nodiscard]] virtual RemoteRegion remote() const = 0;

    protected:
        TransportMemory(void const* base, std::size_t length) noexcept
            : _base{static_cast<std::uint8_t const*>(base)}
            , _length{length}
        {
        }

    private:
        std::uint8_t const* _base;
        std::size_t _length;
    };
}
