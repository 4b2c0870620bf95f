// The address an active or passive endpoint is reachable at (fi_getname): what a ticket publishes for it.
#pragma once

#include <rdma/fabric.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace mxl::fabrics
{
    // `object` names the endpoint in the error when fi_getname fails.
    [[nodiscard]] std::vector<std::uint8_t> endpointName(fid_t endpoint, std::string_view object);
}
