// The placement headers of an initiator's sends in flight (msg transport, MessageFormat.hpp). The provider reads a
// send's header when it gets to the send, so each lives until its write's completion, keyed by the write id. Headers of
// writes whose connection closed before they completed stay until the initiator closes.
#pragma once

#include "fabrics/backends/ofi/MessageFormat.hpp"

#include <cstdint>
#include <unordered_map>

namespace mxl::fabrics
{
    class SentHeaders
    {
    public:
        // Stable until release(writeId): map nodes do not move.
        [[nodiscard]] MessagePlacement const& hold(std::uint64_t writeId, MessagePlacement header)
        {
            return _headers.insert_or_assign(writeId, header).first->second;
        }

        void release(std::uint64_t writeId) noexcept
        {
            _headers.erase(writeId);
        }

    private:
        std::unordered_map<std::uint64_t, MessagePlacement> _headers;
    };
}
