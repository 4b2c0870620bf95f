// What an MXL data grain (video/smpte291) carries: the RFC 8331 payload from its Length field on (docs/tools.md,
// "Data"): Length (16 bits, big-endian: the bytes of the ANC packets that follow), ANC_Count (8), F (2), reserved (22),
// then the packets, each padded to 32 bits. The grain is a fixed 4096 bytes; what follows the payload is not part of
// it. Both elements carry the payload unchanged, one buffer a grain, as caps meta/x-mxl-rfc8331, or converted as
// meta/x-st-2038 (AncBuffers.hpp, docs/gstreamer.md).
#pragma once

#include <media/Rfc8331.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace mxl::gst
{
    inline constexpr char const* rfc8331CapsName = "meta/x-mxl-rfc8331";
    using media::rfc8331HeaderBytes;

    // The bytes of the payload at the start of `bytes` as its Length field declares them (header included); nullopt when
    // `bytes` is shorter than the header.
    inline std::optional<std::size_t> rfc8331PayloadBytes(std::span<std::uint8_t const> bytes)
    {
        if (bytes.size() < rfc8331HeaderBytes)
        {
            return std::nullopt;
        }
        return rfc8331HeaderBytes + (std::size_t{bytes[0]} << 8U | std::size_t{bytes[1]});
    }
}
