// One interface opened for one role: a UCP context restricted to the provider's transports and the one worker that
// drives everything opened over it (memory, a target or an initiator). Configured through ucp_config_modify over what
// UCX read from its environment, so that two domains of one process may use different transports and devices; the
// environment is never changed.
#pragma once

#include "fabrics/transport/fabrics_backend.h"

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxDomain
    {
    public:
        // `deviceMemory`: one that registers CUDA device memory too (its cuda transports added), or host memory in its
        // place under the test knob MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1; UNSUPPORTED_OPERATION where UCX has no CUDA.
        // A tcp target's domain (host memory) has a worker that wakes a descriptor (UCP_FEATURE_WAKEUP, which leaves
        // UCX's choice of transports as it is: an initiator's endpoint to it takes the same lanes).
        UcxDomain(mxlFabricsInterfaceConfig const& config, mxlFabricsBackendRole role, bool deviceMemory);
        ~UcxDomain();

        UcxDomain(UcxDomain const&) = delete;
        UcxDomain& operator=(UcxDomain const&) = delete;

        [[nodiscard]] ucp_context_h context() const noexcept
        {
            return _context;
        }

        [[nodiscard]] ucp_worker_h worker() const noexcept
        {
            return _worker;
        }

        // shm: no transport of it reports a vanished peer, a presence file does (UcxPresence.hpp).
        [[nodiscard]] bool sharedMemory() const noexcept
        {
            return _sharedMemory;
        }

        // Opened for device memory (memory_register_device takes it).
        [[nodiscard]] bool deviceMemory() const noexcept
        {
            return _deviceMemory;
        }

        // The descriptor that polls readable when the worker has work, once ucp_worker_arm said it would; -1 where the
        // worker has none (initiators, shm, CUDA transports).
        [[nodiscard]] int wakeDescriptor() const noexcept
        {
            return _wakeDescriptor;
        }

        // Writes of one endpoint reach the target in posting order (one lane; below).
        [[nodiscard]] bool ordered() const noexcept
        {
            return _ordered;
        }

        // What the protocol plans with: connectionless (the core's probe confirms a path), polled, and ordered where
        // ordered() is.
        [[nodiscard]] mxlFabricsBackendDomainInfo info() const noexcept;

        // Segments one write may gather.
        static constexpr std::uint32_t maxGatherSegments = 16;

        // A worker has one handler per active-message id, so a domain carries at most one target.
        bool hostsTarget = false;
        // The worker still has receives UCX could not be made to give up: destroying it would abort the process (UCX
        // 1.13 asserts that the endpoints it destroys track no requests), so the domain leaves it, and its context, be.
        bool keepWorker = false;

        // The ranges registered for remote writes: ordered writes land only inside one (UcxTarget::onPlacement). A
        // registration removes exactly the range it added.
        void addWritable(std::uintptr_t base, std::size_t length);
        void removeWritable(std::uintptr_t base, std::size_t length) noexcept;
        // [address, address + length) lies inside one range.
        [[nodiscard]] bool writable(std::uint64_t address, std::size_t length) const noexcept;

    private:
        // UCX before 1.14 aborts (an assertion) when it destroys an endpoint whose wire-up reply to a connecting tcp
        // peer is still queued, as when a target closes just as an initiator connects: the worker is flushed first,
        // which sends the reply once the peer's connection is up. False when the flush, which waits for every tcp send
        // and connection of the worker, took longer than a second (a peer that stopped): the worker must be kept.
        [[nodiscard]] bool flushWireUp() noexcept;

        // Workers kept for the life of the process, counted in the warning each keep logs.
        static inline std::atomic<std::size_t> keptWorkers{0};

        ucp_context_h _context = nullptr;
        ucp_worker_h _worker = nullptr;
        bool _sharedMemory;
        bool _deviceMemory;
        bool _ordered = false;
        // A tcp target's domain under UCX before 1.14 (flushWireUp).
        bool _acceptsOverTcp = false;
        int _wakeDescriptor = -1;
        // Registered by the application's threads, looked up by the worker's.
        mutable std::mutex _writableLock;
        std::vector<std::pair<std::uintptr_t, std::size_t>> _writable;
    };
}
