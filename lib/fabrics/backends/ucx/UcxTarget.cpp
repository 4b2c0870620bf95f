#include "fabrics/backends/ucx/UcxTarget.hpp"

#include "common/Log.hpp"
#include "common/PollPacer.hpp"
#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxError.hpp"
#include "fabrics/backends/ucx/UcxImmediate.hpp"

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
        checkUcx(setHandler(&UcxTarget::onImmediate), fmt::format("ucx target {}: setting the handler of immediates", targetId));
        domain.hostsTarget = true;
    }

    UcxTarget::~UcxTarget()
    {
        // Only fails for an invalid id, which this one is not.
        static_cast<void>(setHandler(nullptr));
        _domain.hostsTarget = false;
    }

    ucs_status_t UcxTarget::setHandler(ucp_am_recv_callback_t callback) noexcept
    {
        ucp_am_handler_param_t params{};
        params.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
        params.id = immediateMessageId;
        params.cb = callback;
        params.arg = this;
        return ucp_worker_set_am_recv_handler(_domain.worker(), &params);
    }

    ucs_status_t UcxTarget::onImmediate(void* self, void const* header, std::size_t headerLength, void* /*data*/, std::size_t /*length*/,
                                        ucp_am_recv_param_t const* /*param*/)
    {
        auto& target = *static_cast<UcxTarget*>(self);
        if (headerLength != immediateBytes)
        {
            // Not one of ours: anything that holds the address can send active messages.
            if (!std::exchange(target._toldMalformed, true))
            {
                log::warn("ucx target {}: ignored an immediate of {} bytes (expected 4; said once)", target._targetId, headerLength);
            }
            return UCS_OK;
        }
        std::uint32_t immediate = 0;
        std::memcpy(&immediate, header, sizeof(immediate));
        target._arrivals.push_back(immediate);
        return UCS_OK;
    }

    std::optional<std::uint32_t> UcxTarget::nextArrival(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        PollPacer pacer;
        for (;;)
        {
            if (!_arrivals.empty())
            {
                auto const immediate = _arrivals.front();
                _arrivals.pop_front();
                return immediate;
            }
            // One step; what it queued is handed out above before the next.
            auto const progressed = ucp_worker_progress(_domain.worker());
            if (!_arrivals.empty())
            {
                continue;
            }
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return std::nullopt;
            }
            if (progressed == 0)
            {
                waitForWork(deadline, pacer);
            }
        }
    }

    bool UcxTarget::arm()
    {
        // UCX wakes the descriptor only for events that come after the worker was progressed until idle and armed: a
        // step that did work may have left more behind it.
        for (int step = 0; step < armProgressSteps && _arrivals.empty(); ++step)
        {
            if (ucp_worker_progress(_domain.worker()) != 0)
            {
                continue;
            }
            if (!_arrivals.empty())
            {
                return false;
            }
            // Busy: events came since the last step (arming consumed their signal); progress them and arm again.
            auto const status = ucp_worker_arm(_domain.worker());
            if (status == UCS_ERR_BUSY)
            {
                continue;
            }
            checkUcx(status, fmt::format("ucx target {}: arming the worker's event descriptor", _targetId));
            return true;
        }
        return false;
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
