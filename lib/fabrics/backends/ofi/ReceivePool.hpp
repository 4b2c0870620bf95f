// The receive buffers a msg target keeps posted on one endpoint (MessageFormat.hpp). Each completed receive is placed
// into the target's regions (one copy: tcp's FI_EP_MSG endpoints have no FI_TAGGED, so the buffer cannot be chosen per
// grain) and its buffer posted again; one that is not a whole send of the protocol is counted, logged and dropped, so
// that no torn write is reported as arrived.
#pragma once

#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/MessageFormat.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace mxl::fabrics
{
    class ReceivePool
    {
    public:
        // `count` buffers of messageReceiveBytes; `owner` (a connection id, below 2^40) goes into each receive's context so
        // that a completion finds its pool.
        ReceivePool(std::size_t count, std::uint64_t owner, std::uint64_t targetId);

        void postAll(Endpoint& endpoint);
        // Places the receive `completion` names, posts its buffer again on `endpoint` and returns the send's immediate
        // data if it carried one. Failed or malformed receives return nothing.
        std::optional<std::uint32_t> arrive(Completion const& completion, Endpoint& endpoint, MessageRegions const& regions);

        [[nodiscard]] std::uint64_t dropped() const noexcept
        {
            return _dropped;
        }

        // The pool a receive completion's context names.
        [[nodiscard]] static std::uint64_t ownerOf(void* context) noexcept;

    private:
        std::size_t _count;
        std::uint64_t _owner;
        std::uint64_t _targetId;
        std::unique_ptr<std::uint8_t[]> _buffers;
        std::uint64_t _dropped = 0;

        [[nodiscard]] std::span<std::uint8_t> buffer(std::size_t index) const noexcept;
        void post(Endpoint& endpoint, std::size_t index);
        void drop(std::string const& why);
    };
}
