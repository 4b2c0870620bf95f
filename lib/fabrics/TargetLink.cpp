#include "TargetLink.hpp"

namespace mxl::fabrics
{
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
            return outstandingWrites > 0 || !heldWrites.empty();
        }
        // A target lost after it was connected reconnects in the background and does not hold the others back.
        return !everConnected;
    }
}
