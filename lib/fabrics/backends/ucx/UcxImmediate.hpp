// How an immediate travels: an active message of this id whose 4-byte header is the value (host byte order: UCX
// connects hosts of one architecture here) and which carries no data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl::fabrics::ucx
{
    inline constexpr unsigned immediateMessageId = 1;
    inline constexpr std::size_t immediateBytes = sizeof(std::uint32_t);
}
