#include "WriteFlow.hpp"

#include "AncBuffers.hpp"
#include "ElementFailure.hpp"
#include "MappedBuffer.hpp"
#include "MappedMedia.hpp"

#include <media/AncFormatError.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

namespace mxl::gst
{
    void WriteFlow::write(GstElement* element, GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced)
    {
        switch (format.format)
        {
        case MXL_DATA_FORMAT_VIDEO:
            writeVideo(buffer, index, paced);
            break;
        case MXL_DATA_FORMAT_DATA:
            writeData(element, buffer, index, paced);
            break;
        default:
            writeAudio(buffer, index, paced);
            break;
        }
    }

    void WriteFlow::writeVideo(GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced)
    {
        MappedVideoFrame const mapped{videoInfo, buffer};
        if (!mapped.mapped())
        {
            throw formatFailure(
                fmt::format("a buffer of {} bytes is not a {}x{} v210 frame", gst_buffer_get_size(buffer), format.width, format.height));
        }
        // A grain is one line per slice; GStreamer's v210 lines are the same 128-byte-aligned size unless a buffer
        // carries its own stride (video meta), hence the copy line by line.
        auto const copyLines = [&frame = mapped.get()](std::uint8_t* payload, mxlGrainInfo const& info)
        {
            auto const sliceBytes = std::size_t{info.grainSize / info.totalSlices};
            auto const* const source = static_cast<std::uint8_t const*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
            auto const stride = static_cast<std::size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
            auto const lineBytes = std::min(sliceBytes, stride);
            auto const lines = std::min<std::size_t>(info.totalSlices, GST_VIDEO_FRAME_HEIGHT(&frame));
            for (std::size_t line = 0; line < lines; ++line)
            {
                std::memcpy(payload + line * sliceBytes, source + line * stride, lineBytes);
            }
        };
        grains->write(index, paced, copyLines);
    }

    // A meta/x-st-2038 buffer that is not ST 2038 packets, or too many for a grain, becomes a gap (an invalid grain) and a
    // warning: ANC data from a stream is often damaged, and the next frame's may be whole again.
    void WriteFlow::writeData(GstElement* element, GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced)
    {
        MappedBuffer const map{buffer};
        if (!map.mapped())
        {
            throw formatFailure(fmt::format("a data buffer of {} bytes cannot be read", gst_buffer_get_size(buffer)));
        }
        std::vector<std::uint8_t> converted;
        auto bytes = map.bytes();
        if (!st2038)
        {
            checkRfc8331Payload(bytes);
        }
        else
        {
            try
            {
                converted = rfc8331FromSt2038(bytes);
                bytes = converted;
            }
            catch (media::AncFormatError const& e)
            {
                GST_ELEMENT_WARNING(
                    element, STREAM, FORMAT,
                    ("a %s buffer of %" G_GSIZE_FORMAT " bytes is written as a gap: %s", st2038CapsName, bytes.size(), e.what()),
                    (nullptr));
                grains->write(index, paced, {});
                return;
            }
        }
        // The rest of the grain is zeroed: the slot holds an older grain's bytes.
        grains->write(index, paced,
                      [bytes](std::uint8_t* payload, mxlGrainInfo const& info)
                      {
                          std::memcpy(payload, bytes.data(), bytes.size());
                          std::memset(payload + bytes.size(), 0, info.grainSize - bytes.size());
                      });
    }

    void WriteFlow::writeAudio(GstBuffer* buffer, std::optional<std::uint64_t> index, bool paced)
    {
        MappedAudioBuffer const audio{audioInfo, buffer};
        if (!audio.mapped())
        {
            throw formatFailure(
                fmt::format("a buffer of {} bytes is not whole {}-channel samples", gst_buffer_get_size(buffer), format.channels));
        }
        samples->write(index, audio.get(), paced);
    }
}
