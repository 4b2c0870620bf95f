// One accepted write on its way to its single completion. The initiator owns it (UCX's callbacks hold its address,
// and may come after its connection was closed); the connection that posted it drives its steps.
#pragma once

#include <ucs/type/status.h>

#include <cstdint>

namespace mxl::fabrics::ucx
{
    class UcxConnection;

    struct UcxWrite
    {
        enum class Step
        {
            Reading,    // a payload write that completes when read: its puts posted, waiting until their sources are free
            Flushing,   // puts posted, then a flush of the endpoint: its completion says they are visible at the target
            Flushed,    // waits to announce its immediate behind the writes posted before it on the same connection
            Announcing, // the active message carrying the immediate is under way
            Done,
        };

        std::uint64_t context = 0;
        std::uint64_t targetId = 0;
        // Null once the connection is closed: nothing is announced any more.
        UcxConnection* connection = nullptr;
        bool announces = false;
        // Its active message was posted: the immediate left even if the connection is closed before the send completes.
        bool announced = false;
        // The active message's header: it must live until the send completes.
        std::uint32_t immediate = 0;
        Step step = Step::Flushing;
        ucs_status_t status = UCS_OK;
        // Reading: the puts whose sources are not free yet.
        std::uint32_t unreadPuts = 0;
        // Its post threw: the core never took it, so it ends without a completion (kept only for its puts' callbacks).
        bool refused = false;

        // UCX's completion callback of a flush or an active message (user data: the write).
        static void onRequestDone(void* request, ucs_status_t status, void* write) noexcept;
        // A request call's result: done at once (NULL), failed, or under way (its callback moves the step on).
        void track(void* request, Step next) noexcept;
        // UCX's completion callback of a put of a Reading write (user data: the write): its source is free.
        static void onPutRead(void* request, ucs_status_t status, void* write) noexcept;
        // A put of a Reading write was posted: `request` as ucp_put_nbx returned it.
        void trackPut(void* request) noexcept;
        // Every put of a Reading write was posted: done once none is unread.
        void allPutsPosted() noexcept;
    };
}
