// The initiator side of a domain: the writes in flight (each with its single completion to come) and the completions
// ready to hand out. UCX has no transmit queue of fixed size, so the completion depth bounds the writes in flight and
// a write beyond it is refused as "queue full" until completions are polled.
#pragma once

#include "fabrics/backends/ucx/UcxDomain.hpp"
#include "fabrics/backends/ucx/UcxWrite.hpp"

#include <cstddef>
#include <deque>
#include <list>
#include <optional>
#include <string>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxInitiator
    {
    public:
        UcxInitiator(UcxDomain& domain, std::size_t completionDepth);
        // Progresses until UCX holds no write any more (its callbacks hold their addresses), for at most two seconds.
        ~UcxInitiator();

        UcxInitiator(UcxInitiator const&) = delete;
        UcxInitiator& operator=(UcxInitiator const&) = delete;

        [[nodiscard]] ucp_worker_h worker() const noexcept
        {
            return _domain.worker();
        }

        [[nodiscard]] bool sharedMemory() const noexcept
        {
            return _domain.sharedMemory();
        }

        [[nodiscard]] bool ordered() const noexcept
        {
            return _domain.ordered();
        }

        [[nodiscard]] bool full() const noexcept
        {
            return _inFlight.size() >= _depth;
        }

        UcxWrite& add(UcxConnection& connection, std::uint64_t context, mxlFabricsBackendWrite const& write);
        // The connection is closing: its writes announce nothing more and complete INTERRUPTED.
        void forget(UcxConnection const& connection) noexcept;

        // Hands out what one progress step finished before progressing again. The reason lives until the next call.
        std::optional<mxlFabricsBackendCompletion> pollCompletion();

        // A connection's endpoint failed (UCX's peer error callback, run inside a progress step): the core learns it as
        // a FAILED event even when no write of that connection is under way to fail with it.
        void connectionFailed(std::uint64_t context, std::string reason);
        // The next such event; its reason lives until the next call.
        std::optional<mxlFabricsBackendEvent> pollEvent();

    private:
        struct Finished
        {
            std::uint64_t context;
            mxlStatus status;
            std::string reason;
        };

        UcxDomain& _domain;
        std::size_t _depth;
        // In posting order: immediates are announced in it, per connection. A list, since UCX's callbacks hold each
        // write's address; finished writes' nodes wait in _spare for the next writes, so that posting allocates nothing.
        std::list<UcxWrite> _inFlight;
        std::list<UcxWrite> _spare;
        // Handed out from _nextFinished on, and emptied (keeping its room) once all were.
        std::vector<Finished> _finished;
        std::size_t _nextFinished = 0;
        Finished _handedOut{};
        // advance()'s connections with a write still flushing, kept for its room.
        std::vector<UcxConnection const*> _waiting;

        struct Failure
        {
            std::uint64_t context;
            std::string reason;
        };

        std::deque<Failure> _failures;
        Failure _failureHandedOut{};

        void advance();
        void finish(UcxWrite const& write);
    };
}
