#include "MxlSink.hpp"

#include <common/BoundedJson.hpp>

#include <common/BoundedFile.hpp>

#include "AncBuffers.hpp"
#include "DomainInstance.hpp"
#include "ElementFailure.hpp"
#include "ElementProperties.hpp"
#include "ElementState.hpp"
#include "FlowCaps.hpp"
#include "FlowDefinitionText.hpp"
#include "SinkCounters.hpp"
#include "TaiTime.hpp"
#include "WriteFlow.hpp"
#include "common/StatusName.hpp"

#include <mxl/flow.h>
#include <mxl/time.h>

#include <gst/audio/audio.h>
#include <gst/video/video.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <cstring>
#include <optional>
#include <span>
#include <string>

GST_DEBUG_CATEGORY_STATIC(mxlSinkDebug);
#define GST_CAT_DEFAULT mxlSinkDebug

namespace mxl::gst
{
    namespace
    {
        struct SinkSettings
        {
            std::string domain;
            std::string flowId;
            std::string flowDef;
            std::string label{"mxlsink"};
            std::string groupHint;
            std::string description;
        };

        std::string readDefinitionFile(std::string const& path)
        {
            try
            {
                return mxl::readBoundedFile(path);
            }
            catch (mxl::FileReadError const& error)
            {
                throw notFoundFailure(fmt::format("flow-def \"{}\" cannot be read: {}", path, error.reason()));
            }
        }

        std::string definitionId(std::string const& definition, std::string const& path)
        {
            try
            {
                auto const parsed = mxl::parseBoundedJson(definition);
                if (!parsed.ok())
                {
                    throw settingsFailure(fmt::format("flow-def \"{}\" is not JSON: {}", path, parsed.problem));
                }
                return parsed.value.at("id").get<std::string>();
            }
            catch (nlohmann::json::exception const& e)
            {
                throw settingsFailure(fmt::format("flow-def \"{}\" has no usable \"id\": {}", path, e.what()));
            }
        }
    }

    class SinkState
    {
    public:
        SinkSettings settings;
        SinkCounters counters;
        OfferedTaiClock clock;

        std::optional<DomainInstance> domain;
        std::optional<WriteFlow> flow;
        RunningTimeOrigin clockOrigin;
        std::optional<std::int64_t> freeOrigin;
    };
}

using mxl::gst::SinkState;

struct _GstMxlSink
{
    GstBaseSink parent;
    SinkState* state;
};

G_DEFINE_TYPE(GstMxlSink, gst_mxl_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE(mxlsink, "mxlsink", GST_RANK_NONE, GST_TYPE_MXL_SINK);

namespace
{
    using namespace mxl::gst;

    enum Property : guint
    {
        propDomain = 1,
        propFlowId,
        propFlowDef,
        propLabel,
        propGroupHint,
        propDescription,
        propBuffersWritten,
        propBuffersLate,
        propBuffersDropped,
        propSkipped,
    };

    // What mxlsink writes, in the order it prefers: float32 audio in a structure of its own ahead of float64, because a
    // converter upstream keeps the first structure (the MXL SDK's mxlsink makes audio/float32 flows). See mxlSinkGetCaps
    // for the other raw formats.
    constexpr char const* carriedCaps = "video/x-raw, format=(string)v210, width=(int)[2, 7680], height=(int)[1, 4320], "
                                        "framerate=(fraction)[1/2147483647, 2147483647/1], interlace-mode=(string)progressive; "
                                        "audio/x-raw, format=(string)F32LE, layout=(string){interleaved, non-interleaved}, "
                                        "rate=(int)[1, 2147483647], channels=(int)[1, 2147483647]; "
                                        "audio/x-raw, format=(string)F64LE, layout=(string){interleaved, non-interleaved}, "
                                        "rate=(int)[1, 2147483647], channels=(int)[1, 2147483647]; "
                                        "meta/x-mxl-rfc8331, framerate=(fraction)[1/2147483647, 2147483647/1]; "
                                        "meta/x-st-2038, alignment=(string)frame";
    // meta/x-st-2038 of another alignment is refused by name (FlowCaps.cpp).
    constexpr char const* rawCaps = "video/x-raw; audio/x-raw; meta/x-st-2038";

    // Every caps the sink links with: the carried ones first, then the raw ones that set_caps refuses by name.
    GstCaps* linkableCaps()
    {
        auto* const caps = gst_caps_from_string(carriedCaps);
        gst_caps_append(caps, gst_caps_from_string(rawCaps));
        return caps;
    }

    using Element = ElementState<GstMxlSink, SinkState, GST_MXL_SINK, &gst_mxl_sink_parent_class>;
    constexpr auto stateOf = Element::of;
    constexpr auto settingsOf = Element::settingsOf;

    constexpr std::array<PropertyField<SinkSettings, std::string>, 6> stringProperties{{
        {propDomain, &SinkSettings::domain},
        {propFlowId, &SinkSettings::flowId},
        {propFlowDef, &SinkSettings::flowDef},
        {propLabel, &SinkSettings::label},
        {propGroupHint, &SinkSettings::groupHint},
        {propDescription, &SinkSettings::description},
    }};

    constexpr CounterFields<SinkCounters, 4> counterProperties{{
        {propBuffersWritten, &SinkCounters::written},
        {propBuffersLate, &SinkCounters::late},
        {propBuffersDropped, &SinkCounters::dropped},
        {propSkipped, &SinkCounters::skipped},
    }};

    void mxlSinkSetProperty(GObject* object, guint property, GValue const* value, GParamSpec* spec)
    {
        auto* const setting = fieldOf(stateOf(object).settings, stringProperties, property);
        if (setting == nullptr)
        {
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, property, spec);
            return;
        }
        GST_OBJECT_LOCK(object);
        setString(*setting, value);
        GST_OBJECT_UNLOCK(object);
    }

    void mxlSinkGetProperty(GObject* object, guint property, GValue* value, GParamSpec* spec)
    {
        auto& state = stateOf(object);
        if (auto const* const setting = fieldOf(state.settings, stringProperties, property); setting != nullptr)
        {
            GST_OBJECT_LOCK(object);
            getString(value, *setting);
            GST_OBJECT_UNLOCK(object);
            return;
        }
        if (getCounter(value, state.counters, counterProperties, property))
        {
            return;
        }
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, property, spec);
    }

    void storeFlowId(GstMxlSink* sink, std::string const& id)
    {
        GST_OBJECT_LOCK(sink);
        sink->state->settings.flowId = id;
        GST_OBJECT_UNLOCK(sink);
        g_object_notify(G_OBJECT(sink), "flow-id");
    }

    // The definition to create the flow with: the flow-def file (which must describe the caps), or one made from the
    // caps and the naming properties. `settings.flowId` ends up as the flow's id either way.
    std::string definitionFor(FlowFormat const& format, SinkSettings& settings)
    {
        if (!settings.flowDef.empty())
        {
            auto definition = readDefinitionFile(settings.flowDef);
            FlowFormat described;
            try
            {
                described = formatFromDefinition(definition);
            }
            catch (FormatError const& e)
            {
                throw settingsFailure(fmt::format("flow-def \"{}\": {}", settings.flowDef, e.what()));
            }
            if (auto const difference = formatDifference(format, described); !difference.empty())
            {
                throw formatFailure(
                    fmt::format("caps do not match flow-def \"{}\": {} (caps against definition)", settings.flowDef, difference));
            }
            auto const id = definitionId(definition, settings.flowDef);
            if (!settings.flowId.empty() && settings.flowId != id)
            {
                throw settingsFailure(
                    fmt::format("flow-id \"{}\" does not match the id \"{}\" of flow-def \"{}\"", settings.flowId, id, settings.flowDef));
            }
            settings.flowId = id;
            return definition;
        }
        if (settings.flowId.empty())
        {
            auto* const uuid = g_uuid_string_random();
            settings.flowId = uuid;
            g_free(uuid);
        }
        else if (!g_uuid_string_is_valid(settings.flowId.c_str()))
        {
            throw settingsFailure(fmt::format("flow-id \"{}\" is not a UUID (e.g. 5fbec3b1-1b0f-417d-9059-8b94a47197ed)", settings.flowId));
        }
        auto const groupHint = settings.groupHint.empty() ? settings.label + ":" + mediaNames(format.format).role : settings.groupHint;
        return definitionFromFormat(format, settings.flowId, settings.label, groupHint, settings.description);
    }

    void openFlow(GstMxlSink* sink, FlowFormat const& format, GstCaps* caps)
    {
        auto& state = *sink->state;
        auto settings = settingsOf(sink);
        auto const definition = definitionFor(format, settings);
        storeFlowId(sink, settings.flowId);

        auto& flow = state.flow.emplace();
        flow.instance = state.domain->get();
        flow.format = format;
        flow.st2038 = gst_structure_has_name(gst_caps_get_structure(caps, 0), st2038CapsName);
        mxlFlowConfigInfo config{};
        bool created = false;
        mxlFlowWriter writer = nullptr;
        if (auto const status = mxlCreateFlowWriter(flow.instance, definition.c_str(), nullptr, &writer, &config, &created);
            status != MXL_STATUS_OK)
        {
            throw flowFailure(fmt::format("mxlCreateFlowWriter of flow {} in domain \"{}\" (label \"{}\", group-hint \"{}\", flow-def "
                                          "\"{}\") failed: {}; libmxl logged why",
                                          settings.flowId, state.domain->domain(), settings.label, settings.groupHint, settings.flowDef,
                                          mxl::statusName(status)));
        }
        flow.writer = {flow.instance, writer};
        if (!created)
        {
            // Another writer made the flow: it must carry what the caps say.
            auto const difference = formatDifference(format, formatFromDefinition(flowDefinitionText(flow.instance, settings.flowId)));
            if (!difference.empty())
            {
                throw formatFailure(fmt::format("caps do not match the existing flow {} in domain \"{}\": {} (caps against flow)",
                                                settings.flowId, state.domain->domain(), difference));
            }
        }
        if (format.format == MXL_DATA_FORMAT_VIDEO)
        {
            gst_video_info_from_caps(&flow.videoInfo, caps);
            flow.grains.emplace(flow.writer.get(), config, state.counters);
        }
        else if (format.format == MXL_DATA_FORMAT_DATA)
        {
            flow.grains.emplace(flow.writer.get(), config, state.counters);
        }
        else
        {
            gst_audio_info_from_caps(&flow.audioInfo, caps);
            flow.samples.emplace(flow.writer.get(), config, format.sampleBytes, state.counters);
        }
        GST_INFO_OBJECT(sink, "writing flow %s in domain %s (%s)", settings.flowId.c_str(), state.domain->domain().c_str(),
                        created ? "created" : "opened");
    }

    gboolean mxlSinkSetCaps(GstBaseSink* base, GstCaps* caps)
    {
        auto* const sink = GST_MXL_SINK(base);
        auto& state = *sink->state;
        try
        {
            FlowFormat format;
            try
            {
                format = formatFromCaps(caps);
            }
            catch (FormatError const& e)
            {
                throw formatFailure(e.what());
            }
            if (!state.flow)
            {
                openFlow(sink, format, caps);
                return TRUE;
            }
            if (auto const difference = formatDifference(format, state.flow->format); !difference.empty())
            {
                throw formatFailure(fmt::format("caps changed to {} while the flow is open: a flow's format is fixed", difference));
            }
            // Same media, other details (e.g. the audio layout).
            switch (format.format)
            {
            case MXL_DATA_FORMAT_VIDEO:
                return gst_video_info_from_caps(&state.flow->videoInfo, caps);
            case MXL_DATA_FORMAT_AUDIO:
                return gst_audio_info_from_caps(&state.flow->audioInfo, caps);
            default:
                return TRUE;
            }
        }
        catch (ElementFailure const& failure)
        {
            state.flow.reset();
            MXL_GST_POST_FAILURE(sink, failure);
            return FALSE;
        }
    }

    // The carried caps first, so that upstream converts into them, then any other raw caps: a link to an element that
    // can offer nothing else is made, so that set_caps can refuse the format with an error naming it instead of a bare
    // not-negotiated from an element upstream. A query whose filter admits carried caps is answered with those only,
    // so that a converter upstream converts rather than passes its input through.
    GstCaps* mxlSinkGetCaps(GstBaseSink*, GstCaps* filter)
    {
        if (filter == nullptr)
        {
            return linkableCaps();
        }
        auto* const carried = gst_caps_from_string(carriedCaps);
        auto* const offered = gst_caps_intersect_full(filter, carried, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(carried);
        if (!gst_caps_is_empty(offered))
        {
            return offered;
        }
        gst_caps_unref(offered);
        auto* const raw = gst_caps_from_string(rawCaps);
        auto* const uncarried = gst_caps_intersect_full(filter, raw, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(raw);
        return uncarried;
    }

    gboolean mxlSinkStart(GstBaseSink* base)
    {
        auto* const sink = GST_MXL_SINK(base);
        auto& state = *sink->state;
        state.counters.reset();
        state.clockOrigin.reset();
        state.freeOrigin.reset();
        try
        {
            state.domain.emplace(settingsOf(sink).domain);
            return TRUE;
        }
        catch (ElementFailure const& failure)
        {
            MXL_GST_POST_FAILURE(sink, failure);
            return FALSE;
        }
    }

    gboolean mxlSinkStop(GstBaseSink* base)
    {
        auto& state = stateOf(base);
        state.flow.reset();
        state.domain.reset();
        return TRUE;
    }

    // The TAI time of `buffer` and whether it follows the pipeline clock (see docs/gstreamer.md, "Grain indices").
    std::optional<std::pair<std::uint64_t, bool>> taiOf(GstBaseSink* base, GstBuffer* buffer)
    {
        auto& state = stateOf(base);
        auto const pts = GST_BUFFER_PTS(buffer);
        auto const runningTime =
            GST_CLOCK_TIME_IS_VALID(pts) ? gst_segment_to_running_time(&base->segment, GST_FORMAT_TIME, pts) : GST_CLOCK_TIME_NONE;
        if (!GST_CLOCK_TIME_IS_VALID(runningTime))
        {
            return std::nullopt;
        }
        auto const running = static_cast<std::int64_t>(runningTime);
        if (gst_base_sink_get_sync(base))
        {
            if (auto const origin = state.clockOrigin.onClock(GST_ELEMENT(base)); origin)
            {
                return std::pair{static_cast<std::uint64_t>(*origin + running), true};
            }
        }
        // No clock paces the sink: the first buffer lands at the current TAI time and the others follow by running time.
        if (!state.freeOrigin)
        {
            state.freeOrigin = static_cast<std::int64_t>(mxlGetTime()) - running;
        }
        return std::pair{static_cast<std::uint64_t>(*state.freeOrigin + running), false};
    }

    // The grain (audio: sample) index of a TAI time, when the buffer has one.
    std::optional<std::uint64_t> indexOf(WriteFlow const& flow, std::optional<std::pair<std::uint64_t, bool>> const& time)
    {
        if (!time)
        {
            return std::nullopt;
        }
        return mxlTimestampToIndex(&flow.format.rate, time->first);
    }

    GstFlowReturn mxlSinkRender(GstBaseSink* base, GstBuffer* buffer)
    {
        auto& state = stateOf(base);
        if (!state.flow)
        {
            return GST_FLOW_NOT_NEGOTIATED;
        }
        try
        {
            auto const time = taiOf(base, buffer);
            state.flow->write(GST_ELEMENT(base), buffer, indexOf(*state.flow, time), time && time->second);
            return GST_FLOW_OK;
        }
        catch (ElementFailure const& failure)
        {
            MXL_GST_POST_FAILURE(base, failure);
            return GST_FLOW_ERROR;
        }
    }

}

static void gst_mxl_sink_class_init(GstMxlSinkClass* klass)
{
    auto* const objectClass = G_OBJECT_CLASS(klass);
    auto* const elementClass = GST_ELEMENT_CLASS(klass);
    auto* const baseSinkClass = GST_BASE_SINK_CLASS(klass);

    Element::installMethods(objectClass, mxlSinkSetProperty, mxlSinkGetProperty);

    installString(objectClass, propDomain, "domain", "Domain", "MXL domain folder to write the flow in (must exist, on tmpfs)", nullptr);
    installString(objectClass, propFlowId, "flow-id", "Flow id",
                  "UUID of the flow; unset: the id of flow-def, or a new random UUID (readable once the flow is created)", nullptr);
    installString(objectClass, propFlowDef, "flow-def", "Flow definition",
                  "NMOS flow definition file (JSON) to create the flow with; it must describe the negotiated caps. Unset: a "
                  "definition is made from the caps, label and group-hint",
                  nullptr);
    installString(objectClass, propLabel, "label", "Label", "NMOS label of a flow made from the caps (without flow-def)", "mxlsink");
    installString(objectClass, propGroupHint, "group-hint", "Group hint",
                  "NMOS group hint \"<group>:<role>\" of a flow made from the caps; unset: \"<label>:Video\", \"<label>:Audio\" or "
                  "\"<label>:Data\"",
                  nullptr);
    installString(objectClass, propDescription, "description", "Description",
                  "NMOS description of a flow made from the caps; unset: what the caps carry, e.g. \"1920x1080 progressive at 25/1 Hz, "
                  "10-bit 4:2:2 v210, written by mxlsink\"",
                  nullptr);
    installCounter(objectClass, propBuffersWritten, "buffers-written", "Buffers written", "Buffers committed to the flow since start");
    installCounter(objectClass, propBuffersLate, "buffers-late", "Late buffers",
                   "Buffers not written because their index was already more than a ring behind the current TAI index");
    installCounter(objectClass, propBuffersDropped, "buffers-dropped", "Dropped buffers",
                   "Buffers not written because their index repeated or went back behind one already written");
    installCounter(objectClass, propSkipped, "skipped", "Skipped",
                   "Grains (video, committed as invalid grains) or samples (audio, silence) between buffers that no buffer covered");

    gst_element_class_set_static_metadata(elementClass, "MXL flow sink", "Sink/Video;Sink/Audio;Sink/Metadata",
                                          "Writes v210 video, float audio or SMPTE 291 data (RFC 8331 payloads or ST 2038 packets) into "
                                          "an MXL flow (grain index from the buffer's time on TAI)",
                                          "mxl");
    auto* const templateCaps = linkableCaps();
    gst_element_class_add_pad_template(elementClass, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, templateCaps));
    gst_caps_unref(templateCaps);

    baseSinkClass->set_caps = mxlSinkSetCaps;
    baseSinkClass->get_caps = mxlSinkGetCaps;
    baseSinkClass->start = mxlSinkStart;
    baseSinkClass->stop = mxlSinkStop;
    baseSinkClass->render = mxlSinkRender;

    GST_DEBUG_CATEGORY_INIT(mxlSinkDebug, "mxlsink", 0, "MXL flow sink");
}

static void gst_mxl_sink_init(GstMxlSink* sink)
{
    Element::init(sink);
    gst_base_sink_set_sync(GST_BASE_SINK(sink), TRUE);
}
