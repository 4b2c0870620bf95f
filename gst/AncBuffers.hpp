// Data buffers between the elements and a data flow's grains. A grain holds an RFC 8331 payload (Rfc8331Payload.hpp);
// the elements carry it unchanged as meta/x-mxl-rfc8331, or as GStreamer's meta/x-st-2038 (the MXL SDK plugin's caps,
// one buffer holding a frame's ST 2038 packets) converted by lib/media packet for packet.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::gst
{
    inline constexpr char const* st2038CapsName = "meta/x-st-2038";

    // ElementFailure (stream format) unless `bytes` is exactly one RFC 8331 payload, by its Length field, that fits a
    // grain: a meta/x-mxl-rfc8331 buffer must come back from mxlsrc as it went into mxlsink.
    void checkRfc8331Payload(std::span<std::uint8_t const> bytes);

    // The RFC 8331 payload of the packets of a meta/x-st-2038 buffer. mxl::media::AncFormatError when the bytes are not
    // ST 2038 packets or their payload does not fit a grain.
    std::vector<std::uint8_t> rfc8331FromSt2038(std::span<std::uint8_t const> bytes);

    // A meta/x-st-2038 buffer of the packets of a grain's RFC 8331 payload, carrying `grain`'s timestamps and offsets.
    // mxl::media::AncFormatError when the payload is not one.
    GstBuffer* st2038FromRfc8331(GstBuffer* grain);
}
