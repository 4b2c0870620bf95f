// A live path to a target: one endpoint created from the target's worker address (peer error handling, so that a
// vanished target fails the endpoint instead of hanging it) and the target's rkeys unpacked for that endpoint.
#pragma once

#include "fabrics/backends/ucx/UcxPeer.hpp"
#include "fabrics/backends/ucx/UcxWrite.hpp"

#include <ucp/api/ucp.h>

#include <optional>
#include <string>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxConnection
    {
    public:
        // `context`: what the core gave connection_open, carried by the event that reports the endpoint failed.
        UcxConnection(UcxPeer& peer, std::uint64_t context);
        // Cancels what is still under way: those writes complete INTERRUPTED.
        ~UcxConnection();

        UcxConnection(UcxConnection const&) = delete;
        UcxConnection& operator=(UcxConnection const&) = delete;

        // False when the initiator's queue of writes in flight is full.
        bool write(mxlFabricsBackendWrite const& write, std::uint64_t context);
        // Posts the active message of a flushed write: called in posting order, so immediates arrive in that order.
        void announce(UcxWrite& write) noexcept;

        // Why the target is gone, once the endpoint failed (tcp) or its presence file is no longer held (shm).
        [[nodiscard]] std::optional<std::string> const& ended() const noexcept
        {
            return _ended;
        }

        // ended(), after looking at a shm target's presence file.
        std::optional<std::string> const& check();

        [[nodiscard]] std::uint64_t targetId() const noexcept
        {
            return _peer.targetId;
        }

    private:
        UcxPeer& _peer;
        std::uint64_t _context;
        ucp_ep_h _endpoint = nullptr;
        std::vector<ucp_rkey_h> _rkeys;
        std::optional<std::string> _ended;
        bool _sharedMemory;
        // Names this connection's ordered writes at the target, which keeps each connection's order apart.
        std::uint64_t _tag;

        static void onError(void* self, ucp_ep_h endpoint, ucs_status_t status) noexcept;
        void release() noexcept;
        // Posts a put; `params` may carry a callback. The request, or null when it completed at once; throws on failure.
        void* put(mxlFabricsBackendSegment const& segment, std::uint64_t remoteAddress, ucp_rkey_h rkey, ucp_request_param_t params);
        // An ordered domain's write: an active message per segment that the target places (UcxPlacement.hpp), posted at
        // once; complete once UCX completed them all.
        void sendInOrder(mxlFabricsBackendWrite const& write, std::uint64_t context);
    };
}
