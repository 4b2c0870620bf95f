#include "FlowSynchronizationGroup.hpp"

#include "Timing.hpp"

#include <algorithm>

namespace mxl
{
    void FlowSynchronizationGroup::addReader(FlowReader& reader, std::uint16_t minValidSlices)
    {
        auto const existing = std::find_if(_members.begin(), _members.end(), [&](Member const& m) { return m.reader == &reader; });
        if (existing != _members.end())
        {
            existing->minValidSlices = minValidSlices;
            return;
        }
        _members.push_back(Member{&reader, minValidSlices, reader.info().config.common.grainRate, 0});
    }

    void FlowSynchronizationGroup::removeReader(mxlFlowReader_t const* reader) noexcept
    {
        std::erase_if(_members, [&](Member const& m) { return m.reader == reader; });
    }

    mxlStatus FlowSynchronizationGroup::waitForDataAt(std::uint64_t timestampNs, std::uint64_t timeoutNs)
    {
        auto const deadlineNs = timing::deadlineAfterNs(timeoutNs);
        for (std::size_t position = 0; position < _members.size(); ++position)
        {
            auto& member = _members[position];
            auto const index = timing::timestampToIndex(member.rate, timestampNs);
            if (index > member.reader->headIndex())
            {
                if (auto const status = waitForMember(member, index, deadlineNs); status != MXL_STATUS_OK)
                {
                    return status;
                }
            }
            auto const nowNs = timing::taiNowNs();
            auto const dueNs = timing::indexToTimestamp(member.rate, index);
            if (nowNs <= dueNs || nowNs - dueNs <= member.maxDelayNs)
            {
                continue;
            }
            member.maxDelayNs = nowNs - dueNs;
            // Moving the newly slowest flow to the front: next time the wait starts with it, and the others are then
            // usually ready. The members after this position keep their order, so the loop continues correctly.
            std::rotate(_members.begin(), _members.begin() + static_cast<std::ptrdiff_t>(position),
                        _members.begin() + static_cast<std::ptrdiff_t>(position) + 1);
        }
        return MXL_STATUS_OK;
    }

    mxlStatus FlowSynchronizationGroup::waitForMember(Member const& member, std::uint64_t index, std::uint64_t deadlineNs) const
    {
        if (auto const* discrete = dynamic_cast<DiscreteFlowReader const*>(member.reader))
        {
            return discrete->waitForGrain(index, member.minValidSlices, deadlineNs);
        }
        return dynamic_cast<ContinuousFlowReader const&>(*member.reader).waitForHead(index, deadlineNs);
    }
}
