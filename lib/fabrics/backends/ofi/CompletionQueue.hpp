// fid_cq: completions of local writes (initiator) and arrivals of remote CQ data (target).
#pragma once

#include "fabrics/backends/ofi/Domain.hpp"

#include <rdma/fi_eq.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    struct Completion
    {
        void* context = nullptr;
        std::uint64_t flags = 0;
        std::uint64_t data = 0;
        // Bytes received (receive completions only).
        std::size_t length = 0;
        // 0 for success; otherwise the positive errno of a failed operation and the provider's explanation.
        int error = 0;
        std::string errorText;
    };

    class CompletionQueue
    {
    public:
        // `waitable` asks for a wait object so that readBlocking can sleep in the kernel; shm's sread never honours
        // its timeout in libfabric 1.17 (it spins in sched_yield), so shm queues are opened without one and polled.
        CompletionQueue(Domain const& domain, std::size_t depth, bool waitable);

        [[nodiscard]] fid_cq* get() const noexcept
        {
            return _queue.get();
        }

        [[nodiscard]] bool waitable() const noexcept
        {
            return _waitable;
        }

        // Polls readable when completions may be ready, once fi_trywait allowed the wait; -1 where the queue has none.
        [[nodiscard]] int descriptor() const noexcept
        {
            return _descriptor;
        }

        // Completions taken from the provider and not handed out yet: read() has more without progress.
        [[nodiscard]] bool holdsTaken() const noexcept
        {
            return _takenNext != _takenCount;
        }

        [[nodiscard]] std::size_t depth() const noexcept
        {
            return _depth;
        }

        // One completion, or nothing when none is ready. Reading also drives the provider's progress. Every completion
        // ready is taken from the provider at once and handed out before the provider is read (and so progressed) again:
        // a target handles each arrival while its slot still holds what that progress placed. Were they taken one per
        // progress, a target a few completions behind could find the commit of a later grain placed over the slot an
        // older completion names (docs/fabrics.md, "Read safety").
        std::optional<Completion> read();
        // Sleeps up to `timeout` for one completion; only on waitable queues.
        std::optional<Completion> readBlocking(std::chrono::milliseconds timeout);

    private:
        Fid<fid_cq> _queue;
        std::size_t _depth;
        bool _waitable;
        int _descriptor = -1;
        // Completions taken from the provider and not handed out yet: [_takenNext, _takenCount).
        std::vector<fi_cq_data_entry> _taken;
        std::size_t _takenNext = 0;
        std::size_t _takenCount = 0;

        std::optional<Completion> nextTaken() noexcept;
        Completion keep(std::size_t count) noexcept;

        std::optional<Completion> readError();
    };
}
