// What a flow carries, seen from both sides: an NMOS flow definition (libmxl) and GStreamer caps. mxlsink turns the
// negotiated caps into a definition, mxlsrc a flow's definition into caps, and both check one against the other.
#pragma once

#include <mxl/dataformat.h>
#include <mxl/rational.h>

#include <gst/gst.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mxl::gst
{
    // Media that cannot travel between a flow and GStreamer; the message names the value and what was expected.
    class FormatError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    struct FlowFormat
    {
        mxlDataFormat format = MXL_DATA_FORMAT_UNSPECIFIED;
        // The grain rate (video, data) or the sample rate (audio), reduced.
        mxlRational rate{0, 1};
        std::uint32_t width = 0;
        std::uint32_t height = 0;
        // NMOS "colorspace" and "transfer_characteristic" (e.g. "BT709", "SDR"); empty when not known.
        std::string colorspace;
        std::string transfer;
        std::uint32_t channels = 0;
        // 4 (float32) or 8 (float64).
        std::uint32_t sampleBytes = 0;
    };

    // How messages and NMOS group hints name a flow's media; any format other than video and data is audio here.
    struct MediaNames
    {
        // "video", "audio", "data"
        char const* kind;
        // The role part of a group hint: "Video", "Audio", "Data".
        char const* role;
    };

    MediaNames mediaNames(mxlDataFormat format) noexcept;

    // Fixed caps as mxlsink receives them.
    FlowFormat formatFromCaps(GstCaps const* caps);

    FlowFormat formatFromDefinition(std::string const& definitionJson);

    // mxlsrc's caps for a flow: v210 video, float audio offered interleaved first and non-interleaved second, or data at
    // the grain rate as RFC 8331 payloads (meta/x-mxl-rfc8331) and as ST 2038 packets (meta/x-st-2038), the latter first
    // when `st2038First`.
    GstCaps* capsFromFormat(FlowFormat const& format, bool st2038First = false);

    // An NMOS flow definition for mxlsink to create its flow with when it was given none; an empty `description` keeps
    // the one made from the format.
    std::string definitionFromFormat(FlowFormat const& format, std::string const& id, std::string const& label,
                                     std::string const& groupHint, std::string const& description);

    // Empty when the two describe the same media, otherwise what differs, e.g. "width 64 against 1920".
    std::string formatDifference(FlowFormat const& ours, FlowFormat const& flow);
}
