// A failed UCX call as the table reports it: a fabrics API status and a text naming the call and UCX's words.
#pragma once

#include <mxl/mxl.h>

#include <ucs/type/status.h>

#include <string_view>

namespace mxl::fabrics::ucx
{
    // INTERRUPTED for the statuses that mean the peer or the path is gone, NOT_READY for a busy resource.
    [[nodiscard]] mxlStatus statusOf(ucs_status_t status) noexcept;

    // Throws the Error of a failed call; returns when `status` is UCS_OK.
    void checkUcx(ucs_status_t status, std::string_view what);
}
