// The outcome of one write an initiator posted, as the transport classified it: the initiator only decides what a
// failure means for the target, never which provider error numbers mean a lost peer.
#pragma once

#include <mxl/mxl.h>

#include <cstdint>
#include <string>

namespace mxl::fabrics
{
    struct WriteCompletion
    {
        // The id the write was posted with.
        std::uint64_t writeId = 0;
        // MXL_ERR_INTERRUPTED when the peer is gone.
        mxlStatus status = MXL_STATUS_OK;
        // Failed writes only: the transport's explanation.
        std::string reason;
    };
}
