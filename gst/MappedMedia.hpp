// A video frame or an audio buffer of a GstBuffer mapped for reading while this lives: unmapped on every way out of the
// scope, exceptions included. GStreamer maps both the same way (mapping, info, buffer, flags) and unmaps both by the
// mapping alone.
#pragma once

#include <gst/audio/audio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

namespace mxl::gst
{
    template <typename Mapping, typename Info, gboolean (*map)(Mapping*, Info const*, GstBuffer*, GstMapFlags), void (*unmap)(Mapping*)>
    class MappedMedia
    {
    public:
        MappedMedia(Info const& info, GstBuffer* buffer)
            : _mapped{map(&_mapping, &info, buffer, GST_MAP_READ) != FALSE}
        {
        }

        ~MappedMedia()
        {
            if (_mapped)
            {
                unmap(&_mapping);
            }
        }

        MappedMedia(MappedMedia const&) = delete;
        MappedMedia& operator=(MappedMedia const&) = delete;

        // False when the buffer does not hold what the info describes: get() is then not to be read.
        [[nodiscard]] bool mapped() const noexcept
        {
            return _mapped;
        }

        [[nodiscard]] Mapping const& get() const noexcept
        {
            return _mapping;
        }

    private:
        Mapping _mapping{};
        bool _mapped;
    };

    using MappedVideoFrame = MappedMedia<GstVideoFrame, GstVideoInfo, gst_video_frame_map, gst_video_frame_unmap>;
    using MappedAudioBuffer = MappedMedia<GstAudioBuffer, GstAudioInfo, gst_audio_buffer_map, gst_audio_buffer_unmap>;
}
