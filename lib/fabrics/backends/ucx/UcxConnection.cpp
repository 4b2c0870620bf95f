#include "fabrics/backends/ucx/UcxConnection.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxError.hpp"
#include "fabrics/backends/ucx/UcxImmediate.hpp"
#include "fabrics/backends/ucx/UcxInitiator.hpp"
#include "fabrics/backends/ucx/UcxMemory.hpp"
#include "fabrics/backends/ucx/UcxPresence.hpp"

#include <random>

namespace mxl::fabrics::ucx
{
    namespace
    {
        // Connection tags need only differ among the initiators one target hears at once; drawn from the system's source
        // each time (connections are few), so that forked processes do not repeat each other's.
        std::uint64_t connectionTag()
        {
            std::random_device source;
            return (std::uint64_t{source()} << 32) | source();
        }
    }

    UcxConnection::UcxConnection(UcxPeer& peer, std::uint64_t context)
        : _peer{peer}
        , _context{context}
        , _sharedMemory{peer.initiator.sharedMemory()}
        , _tag{connectionTag()}
    {
        ucp_ep_params_t params{};
        params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        params.address = reinterpret_cast<ucp_address_t const*>(peer.workerAddress.data());
        // UCX 1.13 refuses peer error handling on posix and sysv (no peer failure handler): shm uses the presence file.
        if (!_sharedMemory)
        {
            params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
            params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
            params.err_handler.cb = &UcxConnection::onError;
            params.err_handler.arg = this;
        }
        checkUcx(ucp_ep_create(peer.initiator.worker(), &params, &_endpoint),
                 fmt::format("ucx initiator: creating an endpoint to target {}", peer.targetId));
        try
        {
            for (std::size_t index = 0; index < peer.regions.size(); ++index)
            {
                ucp_rkey_h rkey = nullptr;
                checkUcx(ucp_ep_rkey_unpack(_endpoint, peer.regions[index].packedKey.data(), &rkey),
                         fmt::format("ucx initiator: unpacking the rkey of region {} of target {}", index, peer.targetId));
                _rkeys.push_back(rkey);
            }
        }
        catch (...)
        {
            release();
            throw;
        }
    }

    UcxConnection::~UcxConnection()
    {
        release();
    }

    void UcxConnection::release() noexcept
    {
        _peer.initiator.forget(*this);
        for (auto* rkey : _rkeys)
        {
            ucp_rkey_destroy(rkey);
        }
        _rkeys.clear();
        // Forced: a flush could wait for a target that is gone. Writes still under way complete as cancelled.
        ucp_request_param_t params{};
        params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        params.flags = UCP_EP_CLOSE_FLAG_FORCE;
        auto* request = ucp_ep_close_nbx(_endpoint, &params);
        if (UCS_PTR_IS_PTR(request))
        {
            while (ucp_request_check_status(request) == UCS_INPROGRESS)
            {
                ucp_worker_progress(_peer.initiator.worker());
            }
            ucp_request_free(request);
        }
    }

    void UcxConnection::onError(void* self, ucp_ep_h /*endpoint*/, ucs_status_t status) noexcept
    {
        auto& connection = *static_cast<UcxConnection*>(self);
        try
        {
            connection._ended = fmt::format("the target is gone ({})", ucs_status_string(status));
            connection._peer.initiator.connectionFailed(connection._context, *connection._ended);
        }
        catch (...)
        {
            connection._ended.emplace();
        }
    }

    std::optional<std::string> const& UcxConnection::check()
    {
        if (_sharedMemory && !_ended)
        {
            _ended = absenceOf(_peer.workerAddress);
        }
        return _ended;
    }

    void* UcxConnection::put(mxlFabricsBackendSegment const& segment, std::uint64_t remoteAddress, ucp_rkey_h rkey,
                             ucp_request_param_t params)
    {
        if (segment.memory != nullptr)
        {
            params.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
            params.memh = reinterpret_cast<UcxMemory const*>(segment.memory)->handle();
        }
        auto* request = ucp_put_nbx(_endpoint, segment.base, segment.length, remoteAddress, rkey, &params);
        if (UCS_PTR_IS_ERR(request))
        {
            checkUcx(UCS_PTR_STATUS(request), fmt::format("ucx: target {}: posting a put of {} bytes", _peer.targetId, segment.length));
        }
        return request;
    }

    bool UcxConnection::write(mxlFabricsBackendWrite const& write, std::uint64_t context)
    {
        auto const targetId = _peer.targetId;
        if (_ended)
        {
            fail(MXL_ERR_INTERRUPTED, "ucx: target {}: the connection has ended: {}", targetId, *_ended);
        }
        if (write.remoteRegion >= _peer.regions.size())
        {
            fail(MXL_ERR_INVALID_ARG, "ucx: target {}: a write to region {}; its ticket has {} regions", targetId, write.remoteRegion,
                 _peer.regions.size());
        }
        if (write.segmentCount == 0 || write.segmentCount > UcxDomain::maxGatherSegments)
        {
            fail(MXL_ERR_INVALID_ARG, "ucx: target {}: a write of {} segments; expected 1 to {}", targetId, write.segmentCount,
                 UcxDomain::maxGatherSegments);
        }
        auto const& region = _peer.regions[write.remoteRegion];
        std::uint64_t bytes = 0;
        for (std::uint32_t index = 0; index < write.segmentCount; ++index)
        {
            bytes += write.segments[index].length;
        }
        if (write.remoteOffset > region.length || bytes > region.length - write.remoteOffset)
        {
            fail(MXL_ERR_INVALID_ARG, "ucx: target {}: a write of {} bytes at offset {} of region {}, which holds {} bytes", targetId,
                 bytes, write.remoteOffset, write.remoteRegion, region.length);
        }
        auto& initiator = _peer.initiator;
        if (initiator.full())
        {
            return false;
        }
        // Where writes arrive in order (UcxDomain::ordered), they travel as active messages the target places itself,
        // handing out an immediate only after every earlier write of the connection is in place: a payload write that
        // completes when read needs its messages sent, no more, and no write waits for a flush.
        if (initiator.ordered() &&
            (write.flags & (MXL_FABRICS_BACKEND_WRITE_IMMEDIATE | MXL_FABRICS_BACKEND_WRITE_COMPLETE_WHEN_READ)) != 0)
        {
            sendInOrder(write, context);
            return true;
        }
        auto remoteAddress = region.address + write.remoteOffset;
        for (std::uint32_t index = 0; index < write.segmentCount; ++index)
        {
            // Its completion is covered by the flush that follows the write's puts.
            if (auto* request = put(write.segments[index], remoteAddress, _rkeys[write.remoteRegion], {}); request != nullptr)
            {
                ucp_request_free(request);
            }
            remoteAddress += write.segments[index].length;
        }
        // A put completes when its source may be reused; only a flush says the bytes are in the target's memory. Its
        // completion is therefore the write's (payload writes), or what lets the immediate go (UcxInitiator::advance).
        // Elsewhere, ucp_worker_fence would save the round trip, but in UCX 1.13 it only fences each transport interface,
        // and an endpoint's puts and active messages may take different lanes: the immediate could overtake the bytes.
        auto& accepted = initiator.add(*this, context, write);
        ucp_request_param_t params{};
        params.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        params.cb.send = &UcxWrite::onRequestDone;
        params.user_data = &accepted;
        accepted.track(ucp_ep_flush_nbx(_endpoint, &params), UcxWrite::Step::Flushing);
        return true;
    }

    void UcxConnection::sendInOrder(mxlFabricsBackendWrite const& write, std::uint64_t context)
    {
        auto& accepted = _peer.initiator.add(*this, context, write);
        // By rendezvous, each: the target asks for the bytes when it reads, so a commit completes only once the target
        // took it and an initiator never runs ahead of its target by more than its writes in flight; and UCX receives
        // them in place (into device memory as well, by UCX's memory types: untested here).
        ucp_request_param_t params{};
        params.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
        params.cb.send = &UcxWrite::onSent;
        params.user_data = &accepted;
        // REPLY: the target learns its endpoint back to this sender, which it closes to give up receives a closing target
        // cannot wait for (UcxTarget::abandonReceives).
        params.flags = UCP_AM_SEND_FLAG_RNDV | UCP_AM_SEND_FLAG_REPLY;
        accepted.announced = accepted.announces;
        auto remoteAddress = _peer.regions[write.remoteRegion].address + write.remoteOffset;
        for (std::uint32_t index = 0; index < write.segmentCount; ++index)
        {
            auto const& segment = write.segments[index];
            auto& header = accepted.placements[index];
            header = {remoteAddress, _tag, write.immediate, accepted.announces && index + 1 == write.segmentCount ? 1u : 0u};
            auto* request = ucp_am_send_nbx(_endpoint, placementMessageId, &header, sizeof(header), segment.base, segment.length, &params);
            accepted.trackSent(request);
            if (UCS_PTR_IS_ERR(request))
            {
                accepted.allPosted(true);
                checkUcx(UCS_PTR_STATUS(request),
                         fmt::format("ucx: target {}: posting a write of {} bytes", _peer.targetId, segment.length));
            }
            remoteAddress += segment.length;
        }
        accepted.allPosted(false);
    }

    void UcxConnection::announce(UcxWrite& write) noexcept
    {
        ucp_request_param_t params{};
        params.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
        params.cb.send = &UcxWrite::onRequestDone;
        params.user_data = &write;
        params.flags = UCP_AM_SEND_FLAG_EAGER;
        write.announced = true;
        write.track(ucp_am_send_nbx(_endpoint, immediateMessageId, &write.immediate, immediateBytes, nullptr, 0, &params),
                    UcxWrite::Step::Announcing);
    }
}
