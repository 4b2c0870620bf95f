#include "FlowCaps.hpp"

#include <common/BoundedJson.hpp>

#include "AncBuffers.hpp"
#include "Rfc8331Payload.hpp"

#include <gst/audio/audio.h>
#include <gst/video/video.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <string_view>

namespace mxl::gst
{
    namespace
    {
        using nlohmann::json;

        constexpr char const* carriedMedia = "mxlsink takes v210 video, F32LE/F64LE audio or meta/x-mxl-rfc8331 or meta/x-st-2038 data";
        constexpr char const* grouphintTag = "urn:x-nmos:tag:grouphint/v1.0";

        // The library's limits (lib/flow/FlowDefinition.cpp), checked here so that a frame it would refuse is refused
        // with the caps named rather than with a log line about a definition the user never wrote.
        constexpr std::uint32_t maxWidth = 7680;
        constexpr std::uint32_t maxHeight = 4320;

        struct Colorimetry
        {
            char const* gstName;
            char const* colorspace;
            char const* transfer;
        };

        constexpr std::array colorimetries{
            Colorimetry{"bt601", "BT601", "SDR"},     Colorimetry{"bt709", "BT709", "SDR"},       Colorimetry{"bt2020", "BT2020", "SDR"},
            Colorimetry{"bt2100-pq", "BT2100", "PQ"}, Colorimetry{"bt2100-hlg", "BT2100", "HLG"},
        };

        std::string capsText(GstCaps const* caps)
        {
            auto* const text = gst_caps_to_string(caps);
            std::string copy{text};
            g_free(text);
            return copy;
        }

        mxlRational reduced(std::int64_t numerator, std::int64_t denominator)
        {
            auto const divisor = std::gcd(numerator, denominator);
            return divisor == 0 ? mxlRational{numerator, denominator} : mxlRational{numerator / divisor, denominator / divisor};
        }

        FlowFormat videoFromCaps(GstCaps const* caps)
        {
            GstVideoInfo info;
            if (!gst_video_info_from_caps(&info, caps))
            {
                throw FormatError{fmt::format("caps {} are not complete video caps: {}", capsText(caps), carriedMedia)};
            }
            auto const format = GST_VIDEO_INFO_FORMAT(&info);
            if (format != GST_VIDEO_FORMAT_v210)
            {
                throw FormatError{fmt::format("caps format {} cannot be carried: {}", gst_video_format_to_string(format), carriedMedia)};
            }
            if (GST_VIDEO_INFO_INTERLACE_MODE(&info) != GST_VIDEO_INTERLACE_MODE_PROGRESSIVE)
            {
                throw FormatError{fmt::format("caps interlace-mode {} cannot be carried: mxlsink takes progressive video",
                                              gst_video_interlace_mode_to_string(GST_VIDEO_INFO_INTERLACE_MODE(&info)))};
            }
            if (GST_VIDEO_INFO_FPS_N(&info) <= 0 || GST_VIDEO_INFO_FPS_D(&info) <= 0)
            {
                throw FormatError{fmt::format("caps framerate {}/{} cannot be carried: a flow has a fixed grain rate above 0",
                                              GST_VIDEO_INFO_FPS_N(&info), GST_VIDEO_INFO_FPS_D(&info))};
            }
            FlowFormat flow;
            flow.format = MXL_DATA_FORMAT_VIDEO;
            flow.rate = reduced(GST_VIDEO_INFO_FPS_N(&info), GST_VIDEO_INFO_FPS_D(&info));
            flow.width = static_cast<std::uint32_t>(GST_VIDEO_INFO_WIDTH(&info));
            flow.height = static_cast<std::uint32_t>(GST_VIDEO_INFO_HEIGHT(&info));
            if (flow.width < 2 || flow.width > maxWidth || flow.height > maxHeight)
            {
                throw FormatError{
                    fmt::format("caps size {}x{} cannot be carried: a flow's frame is 2 to {} pixels wide and 1 to {} lines high",
                                flow.width, flow.height, maxWidth, maxHeight)};
            }
            for (auto const& known : colorimetries)
            {
                if (gst_video_colorimetry_matches(&info.colorimetry, known.gstName))
                {
                    flow.colorspace = known.colorspace;
                    flow.transfer = known.transfer;
                    return flow;
                }
            }
            auto* const name = gst_video_colorimetry_to_string(&info.colorimetry);
            auto const message = fmt::format("caps colorimetry {} cannot be carried: an NMOS flow names bt601, bt709, bt2020, "
                                             "bt2100-pq or bt2100-hlg",
                                             name != nullptr ? name : "(none)");
            g_free(name);
            throw FormatError{message};
        }

        FlowFormat audioFromCaps(GstCaps const* caps)
        {
            GstAudioInfo info;
            if (!gst_audio_info_from_caps(&info, caps))
            {
                throw FormatError{fmt::format("caps {} are not complete audio caps: {}", capsText(caps), carriedMedia)};
            }
            auto const format = GST_AUDIO_INFO_FORMAT(&info);
            if (format != GST_AUDIO_FORMAT_F32LE && format != GST_AUDIO_FORMAT_F64LE)
            {
                throw FormatError{fmt::format("caps format {} cannot be carried: {}", gst_audio_format_to_string(format), carriedMedia)};
            }
            FlowFormat flow;
            flow.format = MXL_DATA_FORMAT_AUDIO;
            flow.rate = mxlRational{GST_AUDIO_INFO_RATE(&info), 1};
            flow.channels = static_cast<std::uint32_t>(GST_AUDIO_INFO_CHANNELS(&info));
            flow.sampleBytes = static_cast<std::uint32_t>(GST_AUDIO_INFO_BPS(&info));
            return flow;
        }

        FlowFormat dataFromCaps(GstCaps const* caps)
        {
            gint numerator = 0;
            gint denominator = 0;
            if (!gst_structure_get_fraction(gst_caps_get_structure(caps, 0), "framerate", &numerator, &denominator) || numerator <= 0 ||
                denominator <= 0)
            {
                throw FormatError{fmt::format("caps {} have no framerate above 0: a data flow has a fixed grain rate", capsText(caps))};
            }
            FlowFormat flow;
            flow.format = MXL_DATA_FORMAT_DATA;
            flow.rate = reduced(numerator, denominator);
            return flow;
        }

        // One frame's ST 2038 packets a buffer; without a framerate, 30000/1001 as the MXL SDK plugin's mxlsink takes.
        FlowFormat st2038DataFromCaps(GstCaps const* caps)
        {
            auto const* const structure = gst_caps_get_structure(caps, 0);
            auto const* const alignment = gst_structure_get_string(structure, "alignment");
            if (alignment != nullptr && std::string_view{alignment} != "frame")
            {
                throw FormatError{fmt::format("caps {} alignment={} cannot be carried: a data grain holds one frame's packets "
                                              "(alignment=frame)",
                                              st2038CapsName, alignment)};
            }
            if (!gst_structure_has_field(structure, "framerate"))
            {
                FlowFormat flow;
                flow.format = MXL_DATA_FORMAT_DATA;
                flow.rate = mxlRational{30000, 1001};
                return flow;
            }
            return dataFromCaps(caps);
        }

        mxlRational rateFrom(json const& object)
        {
            auto const numerator = object.at("numerator").get<std::int64_t>();
            auto const denominator = object.contains("denominator") ? object.at("denominator").get<std::int64_t>() : 1;
            if (numerator <= 0 || denominator <= 0)
            {
                throw FormatError{fmt::format("flow definition: the rate {}/{} is not positive", numerator, denominator)};
            }
            return reduced(numerator, denominator);
        }

        FlowFormat videoFromDefinition(json const& root)
        {
            auto const mediaType = root.at("media_type").get<std::string>();
            if (mediaType != "video/v210")
            {
                throw FormatError{fmt::format("flow media_type {} cannot be carried: GStreamer's v210 is video/v210 (it has no key "
                                              "plane for video/v210a)",
                                              mediaType)};
            }
            auto const interlace = root.value("interlace_mode", std::string{"progressive"});
            if (interlace != "progressive")
            {
                throw FormatError{fmt::format("flow interlace_mode {} cannot be carried: the elements take progressive video", interlace)};
            }
            FlowFormat flow;
            flow.format = MXL_DATA_FORMAT_VIDEO;
            flow.rate = rateFrom(root.at("grain_rate"));
            flow.width = root.at("frame_width").get<std::uint32_t>();
            flow.height = root.at("frame_height").get<std::uint32_t>();
            flow.colorspace = root.value("colorspace", std::string{});
            flow.transfer = root.value("transfer_characteristic", std::string{"SDR"});
            return flow;
        }

        FlowFormat audioFromDefinition(json const& root)
        {
            FlowFormat flow;
            flow.format = MXL_DATA_FORMAT_AUDIO;
            flow.rate = rateFrom(root.at("sample_rate"));
            // channel_count is an MXL extension to NMOS; a definition without it has one channel (as in the library).
            flow.channels = root.value("channel_count", std::uint32_t{1});
            flow.sampleBytes = root.at("bit_depth").get<std::uint32_t>() / 8;
            return flow;
        }

        FlowFormat dataFromDefinition(json const& root)
        {
            auto const mediaType = root.at("media_type").get<std::string>();
            if (mediaType != "video/smpte291")
            {
                throw FormatError{fmt::format("flow media_type {} cannot be carried: a data flow is video/smpte291", mediaType)};
            }
            FlowFormat flow;
            flow.format = MXL_DATA_FORMAT_DATA;
            flow.rate = rateFrom(root.at("grain_rate"));
            return flow;
        }

        char const* gstColorimetry(FlowFormat const& format)
        {
            for (auto const& known : colorimetries)
            {
                if (format.colorspace == known.colorspace && format.transfer == known.transfer)
                {
                    return known.gstName;
                }
            }
            return nullptr;
        }

        gint gstInteger(std::int64_t value, char const* what)
        {
            if (value <= 0 || value > std::numeric_limits<gint>::max())
            {
                throw FormatError{
                    fmt::format("flow {} {} cannot be carried: GStreamer takes 1 to {}", what, value, std::numeric_limits<gint>::max())};
            }
            return static_cast<gint>(value);
        }

        GstCaps* videoCaps(FlowFormat const& format)
        {
            GstVideoInfo info;
            gst_video_info_init(&info);
            if (!gst_video_info_set_format(&info, GST_VIDEO_FORMAT_v210, format.width, format.height))
            {
                throw FormatError{fmt::format("flow frame {}x{} cannot be carried as GStreamer v210", format.width, format.height)};
            }
            GST_VIDEO_INFO_FPS_N(&info) = gstInteger(format.rate.numerator, "grain_rate numerator");
            GST_VIDEO_INFO_FPS_D(&info) = gstInteger(format.rate.denominator, "grain_rate denominator");
            if (auto const* const colorimetry = gstColorimetry(format); colorimetry != nullptr)
            {
                gst_video_colorimetry_from_string(&info.colorimetry, colorimetry);
            }
            return gst_video_info_to_caps(&info);
        }

        GstCaps* audioCaps(FlowFormat const& format)
        {
            if (format.rate.denominator != 1)
            {
                throw FormatError{fmt::format("flow sample_rate {}/{} cannot be carried: GStreamer takes whole samples per second",
                                              format.rate.numerator, format.rate.denominator)};
            }
            auto const sampleFormat = format.sampleBytes == 8 ? GST_AUDIO_FORMAT_F64LE : GST_AUDIO_FORMAT_F32LE;
            GstAudioInfo info;
            gst_audio_info_init(&info);
            gst_audio_info_set_format(&info, sampleFormat, gstInteger(format.rate.numerator, "sample_rate"),
                                      gstInteger(format.channels, "channel_count"), nullptr);
            auto* const caps = gst_audio_info_to_caps(&info);

            GValue layouts = G_VALUE_INIT;
            gst_value_list_init(&layouts, 2);
            for (auto const* layout : {"interleaved", "non-interleaved"})
            {
                GValue value = G_VALUE_INIT;
                g_value_init(&value, G_TYPE_STRING);
                g_value_set_static_string(&value, layout);
                gst_value_list_append_and_take_value(&layouts, &value);
            }
            gst_caps_set_value(caps, "layout", &layouts);
            g_value_unset(&layouts);
            return caps;
        }

        // The grain's own RFC 8331 payload and its packets as ST 2038 (AncBuffers.hpp), in the order asked for.
        GstCaps* dataCaps(FlowFormat const& format, bool st2038First)
        {
            auto const numerator = gstInteger(format.rate.numerator, "grain_rate numerator");
            auto const denominator = gstInteger(format.rate.denominator, "grain_rate denominator");
            auto* const rfc8331 = gst_caps_new_simple(rfc8331CapsName, "framerate", GST_TYPE_FRACTION, numerator, denominator, nullptr);
            auto* const st2038 = gst_caps_new_simple(st2038CapsName, "alignment", G_TYPE_STRING, "frame", "framerate", GST_TYPE_FRACTION,
                                                     numerator, denominator, nullptr);
            return st2038First ? gst_caps_merge(st2038, rfc8331) : gst_caps_merge(rfc8331, st2038);
        }

        json videoDefinition(FlowFormat const& format)
        {
            json definition{
                {"format", "urn:x-nmos:format:video"},
                {"grain_rate", {{"numerator", format.rate.numerator}, {"denominator", format.rate.denominator}}},
                {"frame_width", format.width},
                {"frame_height", format.height},
                {"interlace_mode", "progressive"},
                {"colorspace", format.colorspace},
                {"transfer_characteristic", format.transfer},
                {"media_type", "video/v210"},
                {"components", json::array({
                                   {{"name", "Y"}, {"width", format.width}, {"height", format.height}, {"bit_depth", 10}},
                                   {{"name", "Cb"}, {"width", format.width / 2}, {"height", format.height}, {"bit_depth", 10}},
                                   {{"name", "Cr"}, {"width", format.width / 2}, {"height", format.height}, {"bit_depth", 10}},
                               })},
            };
            definition["description"] = fmt::format("{}x{} progressive at {}/{} Hz, 10-bit 4:2:2 v210, written by mxlsink", format.width,
                                                    format.height, format.rate.numerator, format.rate.denominator);
            return definition;
        }

        json audioDefinition(FlowFormat const& format)
        {
            return json{
                {"format", "urn:x-nmos:format:audio"},
                {"sample_rate", {{"numerator", format.rate.numerator}, {"denominator", format.rate.denominator}}},
                {"media_type", format.sampleBytes == 8 ? "audio/float64" : "audio/float32"},
                {"bit_depth", format.sampleBytes * 8},
                {"channel_count", format.channels},
                {"description", fmt::format("{} channels of {} Hz float{} samples, written by mxlsink", format.channels,
                                            format.rate.numerator, format.sampleBytes * 8)},
            };
        }

        json dataDefinition(FlowFormat const& format)
        {
            return json{
                {"format", "urn:x-nmos:format:data"},
                {"grain_rate", {{"numerator", format.rate.numerator}, {"denominator", format.rate.denominator}}},
                {"media_type", "video/smpte291"},
                {"description", fmt::format("SMPTE ST 291 ancillary data (RFC 8331 payloads) at {}/{} Hz, written by mxlsink",
                                            format.rate.numerator, format.rate.denominator)},
            };
        }

        // How one media type (caps name, NMOS format) is read into a FlowFormat.
        template <typename Source>
        struct FormatReader
        {
            std::string_view name;
            FlowFormat (*read)(Source source);
        };

        constexpr std::array<FormatReader<GstCaps const*>, 4> capsReaders{{
            {"video/x-raw", videoFromCaps},
            {"audio/x-raw", audioFromCaps},
            {rfc8331CapsName, dataFromCaps},
            {st2038CapsName, st2038DataFromCaps},
        }};

        constexpr std::array<FormatReader<json const&>, 3> definitionReaders{{
            {"urn:x-nmos:format:video", videoFromDefinition},
            {"urn:x-nmos:format:audio", audioFromDefinition},
            {"urn:x-nmos:format:data", dataFromDefinition},
        }};

        // The reader of `readers` for media `name`; nullptr when none reads it.
        template <typename Source, std::size_t count>
        FormatReader<Source> const* readerOf(std::array<FormatReader<Source>, count> const& readers, std::string_view name)
        {
            auto const found = std::ranges::find(readers, name, &FormatReader<Source>::name);
            return found != readers.end() ? &*found : nullptr;
        }
    }

    MediaNames mediaNames(mxlDataFormat format) noexcept
    {
        switch (format)
        {
        case MXL_DATA_FORMAT_VIDEO:
            return {"video", "Video"};
        case MXL_DATA_FORMAT_DATA:
            return {"data", "Data"};
        default:
            return {"audio", "Audio"};
        }
    }

    FlowFormat formatFromCaps(GstCaps const* caps)
    {
        auto const* const structure = gst_caps_get_structure(caps, 0);
        auto const name = std::string_view{gst_structure_get_name(structure)};
        auto const* const reader = readerOf(capsReaders, name);
        if (reader == nullptr)
        {
            throw FormatError{fmt::format("caps {} cannot be carried: {}", name, carriedMedia)};
        }
        return reader->read(caps);
    }

    FlowFormat formatFromDefinition(std::string const& definitionJson)
    {
        try
        {
            auto parsed = mxl::parseBoundedJson(definitionJson);
            if (!parsed.ok())
            {
                throw FormatError{fmt::format("the flow definition is not JSON: {}", parsed.problem)};
            }
            auto const root = std::move(parsed.value);
            auto const format = root.at("format").get<std::string>();
            auto const* const reader = readerOf(definitionReaders, format);
            if (reader == nullptr)
            {
                throw FormatError{fmt::format(
                    "flow format {} cannot be carried: the elements take video (v210), audio and data (SMPTE 291) flows", format)};
            }
            return reader->read(root);
        }
        catch (json::exception const& e)
        {
            throw FormatError{fmt::format("flow definition: {}", e.what())};
        }
    }

    GstCaps* capsFromFormat(FlowFormat const& format, bool st2038First)
    {
        switch (format.format)
        {
        case MXL_DATA_FORMAT_VIDEO:
            return videoCaps(format);
        case MXL_DATA_FORMAT_DATA:
            return dataCaps(format, st2038First);
        default:
            return audioCaps(format);
        }
    }

    std::string definitionFromFormat(FlowFormat const& format, std::string const& id, std::string const& label,
                                     std::string const& groupHint, std::string const& description)
    {
        auto definition = format.format == MXL_DATA_FORMAT_VIDEO  ? videoDefinition(format)
                          : format.format == MXL_DATA_FORMAT_DATA ? dataDefinition(format)
                                                                  : audioDefinition(format);
        definition["id"] = id;
        definition["label"] = label;
        if (!description.empty())
        {
            definition["description"] = description;
        }
        definition["tags"] = {{grouphintTag, {groupHint}}};
        definition["parents"] = json::array();
        return definition.dump(4);
    }

    std::string formatDifference(FlowFormat const& ours, FlowFormat const& flow)
    {
        if (ours.format != flow.format)
        {
            return fmt::format("{} against {}", mediaNames(ours.format).kind, mediaNames(flow.format).kind);
        }
        if (ours.rate.numerator != flow.rate.numerator || ours.rate.denominator != flow.rate.denominator)
        {
            return fmt::format("rate {}/{} against {}/{}", ours.rate.numerator, ours.rate.denominator, flow.rate.numerator,
                               flow.rate.denominator);
        }
        if (ours.width != flow.width || ours.height != flow.height)
        {
            return fmt::format("size {}x{} against {}x{}", ours.width, ours.height, flow.width, flow.height);
        }
        if (ours.channels != flow.channels)
        {
            return fmt::format("{} channels against {}", ours.channels, flow.channels);
        }
        if (ours.sampleBytes != flow.sampleBytes)
        {
            return fmt::format("{}-bit samples against {}-bit", ours.sampleBytes * 8, flow.sampleBytes * 8);
        }
        return {};
    }
}
