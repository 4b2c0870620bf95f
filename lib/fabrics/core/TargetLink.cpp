#include "fabrics/core/TargetLink.hpp"

#include "fabrics/protocol/Wire.hpp"

namespace mxl::fabrics
{
    void TargetLink::notePosted(Clock::time_point now) noexcept
    {
        if (outstandingWrites++ == 0)
        {
            progressAt = now;
        }
    }

    void TargetLink::noteCompleted(Clock::time_point now) noexcept
    {
        if (outstandingWrites > 0)
        {
            --outstandingWrites;
        }
        progressAt = now;
    }

    bool TargetLink::stalled(Clock::time_point now, std::chrono::milliseconds patience) const noexcept
    {
        return outstandingWrites > 0 && now - progressAt > patience;
    }

    Clock::time_point TargetLink::settledUpTo(Clock::time_point now) const noexcept
    {
        if (!transfers.empty())
        {
            return transfers.front().postedAt;
        }
        return outstandingWrites > 0 ? progressAt : now;
    }

    bool TargetLink::lagsBehind(TargetLink const& other, Clock::time_point now, std::chrono::milliseconds patience) const noexcept
    {
        return stalled(now, patience) && !other.stalled(now, patience) && other.settledUpTo(now) > settledUpTo(now) + patience;
    }

    std::uint16_t TargetLink::firstSliceFor(std::uint64_t grainIndex, std::uint16_t start) const noexcept
    {
        if (start == 0)
        {
            return 0;
        }
        auto const found = slicesSent.find(wire::slotOf(grainIndex, ticket.grainSlotCount()));
        auto const holdsEarlierSlices = found != slicesSent.end() && found->second.grainIndex == grainIndex && found->second.end == start;
        return holdsEarlierSlices ? start : 0;
    }

    void TargetLink::noteSlicesSent(std::uint64_t grainIndex, std::uint16_t end)
    {
        slicesSent[wire::slotOf(grainIndex, ticket.grainSlotCount())] = SlicesSent{grainIndex, end};
    }

    void TargetLink::forgetSlicesSent(std::uint64_t grainIndex) noexcept
    {
        slicesSent.erase(wire::slotOf(grainIndex, ticket.grainSlotCount()));
    }

    mxlFabricsTargetState TargetLink::publicState() const noexcept
    {
        struct Mapping
        {
            mxlFabricsTargetState operator()(LinkIdle const&) const noexcept
            {
                return MXL_FABRICS_TARGET_NOT_CONNECTED;
            }

            mxlFabricsTargetState operator()(LinkConnecting const&) const noexcept
            {
                return MXL_FABRICS_TARGET_CONNECTING;
            }

            mxlFabricsTargetState operator()(LinkConnected const&) const noexcept
            {
                return MXL_FABRICS_TARGET_CONNECTED;
            }

            mxlFabricsTargetState operator()(LinkDisconnected const&) const noexcept
            {
                return MXL_FABRICS_TARGET_DISCONNECTED;
            }
        };
        return std::visit(Mapping{}, state);
    }

    bool TargetLink::hasPendingWork() const noexcept
    {
        if (std::holds_alternative<LinkConnected>(state))
        {
            return !lagging && (outstandingWrites > 0 || !transfers.empty());
        }
        // A target lost after it was connected reconnects in the background and does not hold the others back.
        return !everConnected;
    }
}
