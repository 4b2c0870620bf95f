#include "fabrics/backends/ucx/UcxTarget.hpp"

#include "common/Log.hpp"
#include "common/PollPacer.hpp"
#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxError.hpp"
#include "fabrics/backends/ucx/UcxImmediate.hpp"
#include "fabrics/backends/ucx/UcxLateCallbacks.hpp"
#include "fabrics/backends/ucx/UcxPlacement.hpp"

#include <poll.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

namespace mxl::fabrics::ucx
{
    namespace
    {
        // Progress steps, and arms that find events come, before arming gives up and lets the caller read (a busy worker).
        constexpr int armProgressSteps = 64;
    }

    UcxTarget::UcxTarget(UcxDomain& domain, mxlFabricsBackendSegment const* regions, std::uint32_t regionCount, std::uint64_t targetId)
        : _domain{domain}
        , _targetId{targetId}
    {
        if (domain.hostsTarget)
        {
            fail(MXL_ERR_INVALID_STATE, "ucx target {}: its domain already carries a target (one per domain)", targetId);
        }
        for (std::uint32_t index = 0; index < regionCount; ++index)
        {
            _regions.push_back(std::make_unique<UcxMemory>(domain, regions[index].base, regions[index].length, true, false));
            _published.push_back(_regions.back()->remote());
        }
        ucp_address_t* address = nullptr;
        std::size_t addressLength = 0;
        checkUcx(ucp_worker_get_address(domain.worker(), &address, &addressLength),
                 fmt::format("ucx target {}: getting the worker's address", targetId));
        auto const* bytes = reinterpret_cast<std::uint8_t const*>(address);
        _address.assign(bytes, bytes + addressLength);
        ucp_worker_release_address(domain.worker(), address);
        if (domain.sharedMemory())
        {
            _presence.emplace(_address);
        }
        checkUcx(setHandler(immediateMessageId, &UcxTarget::onImmediate),
                 fmt::format("ucx target {}: setting the handler of immediates", targetId));
        if (auto const status = setHandler(placementMessageId, &UcxTarget::onPlacement); status != UCS_OK)
        {
            // Refusing, as a closed target's does: a write that comes meanwhile must not reach this unfinished object.
            static_cast<void>(setHandler(immediateMessageId, &UcxTarget::onClosed));
            checkUcx(status, fmt::format("ucx target {}: setting the handler of ordered writes", targetId));
        }
        domain.hostsTarget = true;
    }

    UcxTarget::~UcxTarget()
    {
        // Only fails for an invalid id, which these are not. Writes that come while the target closes are refused
        // quietly (a rendezvous' sender sees its write cancelled) rather than warned about one by one by UCX.
        static_cast<void>(setHandler(immediateMessageId, &UcxTarget::onClosed));
        static_cast<void>(setHandler(placementMessageId, &UcxTarget::onClosed));
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{2};
        while (_arrivals->receiving() != 0 && std::chrono::steady_clock::now() < deadline)
        {
            ucp_worker_progress(_domain.worker());
        }
        if (_arrivals->receiving() != 0 && !abandonReceives())
        {
            // UCX may still place their bytes in the regions after the close: the application must keep that memory
            // until its initiators stop (as with every RMA target whose peers still write).
            log::warn("ucx target {}: {} writes still being received 2 s after its close; their entries are kept for UCX's callbacks",
                      _targetId, _arrivals->receiving());
            keepForLateCallbacks(std::move(_arrivals));
            _domain.keepWorker = true;
        }
        else if (_domain.sharedMemory() && _receivedWrites)
        {
            lingerForAcknowledgements();
        }
        // The refusing handlers stay set, until another target of the domain sets its own: the domain still progresses
        // the worker when it closes (UcxDomain::flushWireUp), and a write that comes then is refused as closing, not as
        // unknown. They use nothing of this target.
        _domain.hostsTarget = false;
    }

    bool UcxTarget::abandonReceives() noexcept
    {
        try
        {
            // One more pass: receives of endpoints UCX has failed meanwhile may complete in it (it narrows, not closes, the
            // window in which an endpoint UCX is discarding could be closed again).
            ucp_worker_progress(_domain.worker());
            if (_arrivals->receiving() == 0)
            {
                return true;
            }
            std::vector<ucp_ep_h> senders;
            if (!_arrivals->receivingFrom(senders))
            {
                return false;
            }
            for (auto* const sender : senders)
            {
                ucp_request_param_t params{};
                params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
                params.flags = UCP_EP_CLOSE_FLAG_FORCE;
                auto* const request = ucp_ep_close_nbx(sender, &params);
                if (UCS_PTR_IS_ERR(request))
                {
                    // UCX closes by force only endpoints with peer error handling, which shm's are not.
                    log::warn("ucx target {}: cannot give up the writes still being received 2 s after its close: {}", _targetId,
                              ucs_status_string(UCS_PTR_STATUS(request)));
                    return false;
                }
                if (UCS_PTR_IS_PTR(request))
                {
                    ucp_request_free(request);
                }
            }
            log::warn("ucx target {}: gave up the writes still being received 2 s after its close, closing their {} sender endpoints",
                      _targetId, senders.size());
            // A forced close fails the endpoint's requests once its lanes are discarded, which takes progress.
            auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{1};
            while (_arrivals->receiving() != 0 && std::chrono::steady_clock::now() < deadline)
            {
                ucp_worker_progress(_domain.worker());
            }
            return _arrivals->receiving() == 0;
        }
        catch (...)
        {
            // Out of memory: the receives stay as they are.
            return false;
        }
    }

    void UcxTarget::lingerForAcknowledgements() noexcept
    {
        // Over shm a rendezvous completes at its initiator by this worker's acknowledgement, which UCX sends once the
        // bytes are pulled, and queues while the initiator's FIFO is full. A worker flush does not wait for it (UCX 1.13
        // counts remote memory operations only), so the worker is progressed until it has sent nothing for 100 ms, for
        // at most 250 ms. Best effort: an acknowledgement still queued then is lost, and its initiator completes that
        // write INTERRUPTED, not OK, once it sees the target gone.
        constexpr auto quiet = std::chrono::milliseconds{100};
        auto const start = std::chrono::steady_clock::now();
        auto const end = start + std::chrono::milliseconds{250};
        auto lastWork = start;
        for (auto now = start; now - lastWork < quiet && now < end; now = std::chrono::steady_clock::now())
        {
            if (ucp_worker_progress(_domain.worker()) != 0)
            {
                lastWork = now;
            }
        }
    }

    ucs_status_t UcxTarget::setHandler(unsigned id, ucp_am_recv_callback_t callback) noexcept
    {
        ucp_am_handler_param_t params{};
        params.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
        params.id = id;
        params.cb = callback;
        params.arg = this;
        return ucp_worker_set_am_recv_handler(_domain.worker(), &params);
    }

    ucs_status_t UcxTarget::onImmediate(void* self, void const* header, std::size_t headerLength, void* /*data*/, std::size_t /*length*/,
                                        ucp_am_recv_param_t const* /*param*/) noexcept
    {
        auto& target = *static_cast<UcxTarget*>(self);
        if (headerLength != immediateBytes)
        {
            // Not one of ours: anything that holds the address can send active messages.
            if (!std::exchange(target._toldMalformed, true))
            {
                log::warn("ucx target {}: ignored an immediate of {} bytes (expected {}; said once)", target._targetId, headerLength,
                          immediateBytes);
            }
            return UCS_OK;
        }
        std::uint32_t immediate = 0;
        std::memcpy(&immediate, header, sizeof(immediate));
        try
        {
            target._arrivals->announce(immediate);
        }
        catch (...)
        {
            // Out of memory: the grain stays uncommitted, as when a write is lost.
        }
        return UCS_OK;
    }

    ucs_status_t UcxTarget::onClosed(void* /*self*/, void const* /*header*/, std::size_t /*headerLength*/, void* /*data*/,
                                     std::size_t /*length*/, ucp_am_recv_param_t const* param) noexcept
    {
        return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 ? UCS_ERR_CANCELED : UCS_OK;
    }

    ucs_status_t UcxTarget::onPlacement(void* self, void const* header, std::size_t headerLength, void* data, std::size_t length,
                                        ucp_am_recv_param_t const* param) noexcept
    {
        auto& target = *static_cast<UcxTarget*>(self);
        auto& arrivals = *target._arrivals;
        // A rendezvous refused with an error completes the sender's write with it; an eager message cannot be refused.
        auto const rendezvous = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
        auto const refused = rendezvous ? UCS_ERR_INVALID_PARAM : UCS_OK;
        UcxPlacementHeader placement{};
        if (headerLength != sizeof(placement))
        {
            if (!std::exchange(target._toldMalformed, true))
            {
                log::warn("ucx target {}: ignored a write whose header has {} bytes (expected {}; said once)", target._targetId,
                          headerLength, sizeof(placement));
            }
            return refused;
        }
        std::memcpy(&placement, header, sizeof(placement));
        try
        {
            // Ours always come by rendezvous, which UCX receives into place, device memory included.
            if (!rendezvous || !target._domain.writable(placement.address, length))
            {
                if (!std::exchange(target._toldOutside, true))
                {
                    log::warn("ucx target {}: ignored a write of {} bytes to {:#x}: {} (said once)", target._targetId, length,
                              placement.address, rendezvous ? "outside the memory registered for writes" : "not by rendezvous");
                }
                arrivals.ignored(placement);
                return refused;
            }
            auto& entry = arrivals.add(placement);
            if ((param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0)
            {
                entry.sender = param->reply_ep;
            }
            target._receivedWrites = true;
            // Over tcp UCX copies each fragment into place from its receive buffer (the sender sends from its source without a
            // copy); over shm it pulls the bytes from the sender's memory by cma.
            ucp_request_param_t params{};
            params.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
            params.cb.recv_am = &UcxArrivals::onReceived;
            params.user_data = &entry;
            auto* request = ucp_am_recv_data_nbx(target._domain.worker(), data,
                                                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(placement.address)), length, &params);
            if (UCS_PTR_IS_PTR(request))
            {
                arrivals.awaitReceive();
            }
            else
            {
                arrivals.placed(entry, UCS_PTR_IS_ERR(request));
            }
            return UCS_OK;
        }
        catch (...)
        {
            // Out of memory: the write is dropped (and its sender told, where it can be), and its grain with it. Where
            // the write was entered and only handing out an immediate failed, that drops a grain more: never one too few.
            arrivals.lostUnrecorded(placement);
            return rendezvous ? UCS_ERR_NO_MEMORY : UCS_OK;
        }
    }

    std::optional<std::uint32_t> UcxTarget::nextArrival(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        PollPacer pacer;
        for (;;)
        {
            if (!_arrivals->empty())
            {
                return _arrivals->take();
            }
            // One step; what it queued is handed out above before the next.
            auto const progressed = ucp_worker_progress(_domain.worker());
            auto const now = std::chrono::steady_clock::now();
            if (progressed != 0)
            {
                _workedAt = now;
            }
            if (!_arrivals->empty())
            {
                continue;
            }
            if (now >= deadline)
            {
                return std::nullopt;
            }
            if (progressed == 0 && !keepPolling(now))
            {
                waitForWork(deadline, pacer);
            }
        }
    }

    bool UcxTarget::arm()
    {
        // UCX wakes the descriptor only for events that come after the worker was progressed until idle and armed: a
        // step that did work may have left more behind it.
        for (int step = 0; step < armProgressSteps && _arrivals->empty(); ++step)
        {
            if (ucp_worker_progress(_domain.worker()) != 0)
            {
                continue;
            }
            if (!_arrivals->empty())
            {
                return false;
            }
            // Busy: events came since the last step (arming consumed their signal); progress them and arm again.
            auto const status = ucp_worker_arm(_domain.worker());
            if (status == UCS_ERR_BUSY)
            {
                continue;
            }
            if (status != UCS_OK)
            {
                // Formatted only here: a waiting target arms many times a grain, and the text would allocate each time.
                checkUcx(status, fmt::format("ucx target {}: arming the worker's event descriptor", _targetId));
            }
            return true;
        }
        return false;
    }

    bool UcxTarget::keepPolling(std::chrono::steady_clock::time_point now) const noexcept
    {
        return now - _workedAt < (_arrivals->receiving() > 0 || _arrivals->commitDue() ? pollWhileReceiving : pollAfterWork);
    }

    void UcxTarget::waitForWork(std::chrono::steady_clock::time_point deadline, PollPacer& pacer)
    {
        auto const descriptor = waitDescriptor();
        if (descriptor < 0)
        {
            pacer.pause(deadline);
            return;
        }
        if (!arm())
        {
            return;
        }
        // Sleeps in the kernel until the worker has work; a signal only ends the sleep early.
        auto const left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd ready{descriptor, POLLIN, 0};
        auto const timeoutMs = std::clamp<std::chrono::milliseconds::rep>(left.count(), 0, std::numeric_limits<int>::max());
        static_cast<void>(::poll(&ready, 1, static_cast<int>(timeoutMs)));
    }
}
