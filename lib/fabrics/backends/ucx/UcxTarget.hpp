// Where initiators write to: the regions mapped for remote writes, the worker's address, the immediates that
// initiators announce by an active message once their puts are visible here (UcxConnection.cpp says why they are), and
// the writes of ordered domains, which arrive as active messages and are placed here (UcxPlacement.hpp).
// Connectionless: a worker does not report the initiators that reach it, so no connection observer is called.
#pragma once

#include "common/PollPacer.hpp"
#include "fabrics/backends/ucx/UcxArrivals.hpp"
#include "fabrics/backends/ucx/UcxDomain.hpp"
#include "fabrics/backends/ucx/UcxMemory.hpp"
#include "fabrics/backends/ucx/UcxPresence.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxTarget
    {
    public:
        UcxTarget(UcxDomain& domain, mxlFabricsBackendSegment const* regions, std::uint32_t regionCount, std::uint64_t targetId);
        // Waits up to 2 s for rendezvous receives under way (UCX's callbacks hold their addresses), then up to 1 s more
        // while it gives up those whose senders did not finish them (abandonReceives); over shm, progresses a little
        // longer for the acknowledgements of the writes it took (lingerForAcknowledgements).
        ~UcxTarget();

        UcxTarget(UcxTarget const&) = delete;
        UcxTarget& operator=(UcxTarget const&) = delete;

        [[nodiscard]] std::vector<std::uint8_t> const& address() const noexcept
        {
            return _address;
        }

        [[nodiscard]] std::vector<mxlFabricsBackendRemoteRegion> const& regions() const noexcept
        {
            return _published;
        }

        // Hands out what one progress step queued before progressing again until the timeout; between steps that find
        // nothing, once keepPolling says to stop polling, it sleeps on the worker's descriptor where it has one (tcp),
        // else polls with short pauses.
        std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout);

        // The worker's event descriptor: readable when nextArrival may have work, once arm() said it would.
        [[nodiscard]] int waitDescriptor() const noexcept
        {
            return _domain.wakeDescriptor();
        }

        // Before waiting on the descriptor: true when it will wake for the next work, false when work may be waiting
        // (queued immediates, or events the worker has not progressed yet).
        bool arm();

    private:
        UcxDomain& _domain;
        std::uint64_t _targetId;
        std::vector<std::unique_ptr<UcxMemory>> _regions;
        std::vector<mxlFabricsBackendRemoteRegion> _published;
        std::vector<std::uint8_t> _address;
        std::optional<PresenceFile> _presence;
        std::unique_ptr<UcxArrivals> _arrivals = std::make_unique<UcxArrivals>();
        bool _toldMalformed = false;
        bool _toldOutside = false;
        // An ordered write was taken: over shm its sender waits for this worker's acknowledgement.
        bool _receivedWrites = false;
        // When a progress step last did work (keepPolling).
        std::chrono::steady_clock::time_point _workedAt{};
        static constexpr std::chrono::microseconds pollAfterWork{50};
        static constexpr std::chrono::microseconds pollWhileReceiving{1000};

        static ucs_status_t onImmediate(void* self, void const* header, std::size_t headerLength, void* data, std::size_t length,
                                        ucp_am_recv_param_t const* param) noexcept;
        // The handler of both ids while the target closes.
        static ucs_status_t onClosed(void* self, void const* header, std::size_t headerLength, void* data, std::size_t length,
                                     ucp_am_recv_param_t const* param) noexcept;
        static ucs_status_t onPlacement(void* self, void const* header, std::size_t headerLength, void* data, std::size_t length,
                                        ucp_am_recv_param_t const* param) noexcept;
        void lingerForAcknowledgements() noexcept;
        // Receives whose senders did not finish them by the close: their endpoints are closed by force, which completes
        // the receives as failed. False when some are still under way: a sender did not name its endpoint, UCX refused
        // to close one (shm), or the receives outlived the wait.
        bool abandonReceives() noexcept;
        ucs_status_t setHandler(unsigned id, ucp_am_recv_callback_t callback) noexcept;
        // Polls on rather than sleeping for pollAfterWork after a step that did work, or for pollWhileReceiving after
        // it while a rendezvous receive is under way or a placed payload's commit is still to come (the initiator
        // posts it once the payload's read completed there: a round trip away, often more than pollAfterWork, and
        // a shm target that slept through it lost 0.1-0.2 ms a grain). A grain's fragments come in bursts microseconds apart: sleeping
        // whenever one step found nothing wakes the target for every burst, each wake-up a cross-CPU interrupt paid in
        // the initiator's send (over tcp, 1080p grains one at a time then move at about half raw libfabric's rate:
        // docs/performance.md). Between transfers it sleeps, so that a flow of small units (audio batches a
        // millisecond apart) polls little longer than its transfers, and a receive whose sender stopped sending for a
        // millisecond at most.
        [[nodiscard]] bool keepPolling(std::chrono::steady_clock::time_point now) const noexcept;
        // Until the worker may have work or the deadline passes.
        void waitForWork(std::chrono::steady_clock::time_point deadline, PollPacer& pacer);
    };
}
