// Bytes that are not the ancillary data form they were read as. The message names the form, the packet (counted from
// 1), the byte it starts at, the field and its value, e.g. "ST 2038 packet 2 at byte 17: data_count 300 (44 user
// data words) runs past the buffer's 40 bytes".
#pragma once

#include <stdexcept>

namespace mxl::media
{
    class AncFormatError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };
}
