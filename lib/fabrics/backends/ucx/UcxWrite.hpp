// One accepted write on its way to its single completion. The initiator owns it (UCX's callbacks hold its address,
// and may come after its connection was closed); the connection that posted it drives its steps.
#pragma once

#include "fabrics/backends/ucx/UcxDomain.hpp"
#include "fabrics/backends/ucx/UcxPlacement.hpp"

#include <ucs/type/status.h>

#include <array>
#include <cstdint>

namespace mxl::fabrics::ucx
{
    class UcxConnection;

    struct UcxWrite
    {
        enum class Step
        {
            Sending,    // an ordered domain's write: its active messages posted at once, done once UCX completed them all
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
        // An ordered write carries its immediate in the message of its last segment: set with its posting.
        bool announced = false;
        // The active message's header: it must live until the send completes.
        std::uint32_t immediate = 0;
        // An ordered domain's write: the headers of its active messages, one per segment, living until they are sent.
        std::array<UcxPlacementHeader, UcxDomain::maxGatherSegments> placements{};
        Step step = Step::Flushing;
        ucs_status_t status = UCS_OK;
        // Sending: the requests UCX has not completed yet.
        std::uint32_t outstanding = 0;
        // Its posting failed, so the core never took it: it completes nothing, and lives on only for its requests' callbacks.
        bool refused = false;

        // UCX's completion callback of a flush or an active message (user data: the write).
        static void onRequestDone(void* request, ucs_status_t status, void* write) noexcept;
        // A request call's result: done at once (NULL), failed, or under way (its callback moves the step on).
        void track(void* request, Step next) noexcept;
        // UCX's completion callback of a Sending write's active message (user data: the write).
        static void onSent(void* request, ucs_status_t status, void* write) noexcept;
        // A Sending write's request, as the posting call returned it: counted until its callback, unless done at once.
        void trackSent(void* request) noexcept;
        // A write fails with the first error any of its requests reports.
        void keepFirstError(ucs_status_t error) noexcept
        {
            if (status == UCS_OK)
            {
                status = error;
            }
        }
        // A write's requests are all posted (`failed`: its posting failed part way): Sending, or done once none is
        // outstanding. Until then its step is not Sending, so that no callback ends it early.
        void allPosted(bool failed) noexcept;
    };
}
