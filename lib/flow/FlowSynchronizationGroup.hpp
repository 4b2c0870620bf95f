// Waits until every member flow has data for one timestamp (docs/flow-behaviour.md, "Synchronization groups"), so a
// consumer takes video, audio and data of the same instant. Not thread-safe, like the SDK's: one consumer thread owns
// a group.
#pragma once

#include "ContinuousFlowReader.hpp"
#include "DiscreteFlowReader.hpp"

#include <mxl/rational.h>

#include <cstdint>
#include <vector>

namespace mxl
{
    class FlowSynchronizationGroup
    {
    public:
        // Adding a reader again only updates its minValidSlices (ignored for continuous readers).
        void addReader(FlowReader& reader, std::uint16_t minValidSlices);

        void removeReader(mxlFlowReader_t const* reader) noexcept;

        // OK once every member has data for `timestampNs` (TAI), or the first member's failure (TOO_EARLY at the
        // deadline, FLOW_INVALID). One deadline covers all members.
        mxlStatus waitForDataAt(std::uint64_t timestampNs, std::uint64_t timeoutNs);

    private:
        struct Member
        {
            FlowReader* reader;
            std::uint16_t minValidSlices;
            mxlRational rate;
            // The largest lateness observed for this flow; the latest flows are waited on first.
            std::uint64_t maxDelayNs;
        };

        mxlStatus waitForMember(Member const& member, std::uint64_t index, std::uint64_t deadlineNs) const;

        std::vector<Member> _members;
    };
}

struct mxlFlowSynchronizationGroup_t final : mxl::FlowSynchronizationGroup
{
};
