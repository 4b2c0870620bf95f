#include "MxlSrc.hpp"

#include "AncBuffers.hpp"
#include "DomainInstance.hpp"
#include "ElementFailure.hpp"
#include "FlowCaps.hpp"
#include "FlowDefinitionText.hpp"
#include "ReadFlow.hpp"
#include "SourceFlowName.hpp"
#include "StatusName.hpp"
#include "TaiTime.hpp"

#include <media/AncFormatError.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <gst/audio/audio.h>

#include <fmt/format.h>

#include <atomic>
#include <optional>
#include <string>

GST_DEBUG_CATEGORY_STATIC(mxlSrcDebug);
#define GST_CAT_DEFAULT mxlSrcDebug

namespace mxl::gst
{
    namespace
    {
        struct SrcSettings
        {
            std::string domain;
            SourceFlowIds flowIds;
            std::uint64_t startIndex = 0;
            std::uint32_t samplesPerBuffer = 0;
        };

        struct SrcCounters
        {
            std::atomic<std::uint64_t> pushed{0};
            std::atomic<std::uint64_t> invalid{0};
            std::atomic<std::uint64_t> lost{0};
        };
    }

    class SrcState
    {
    public:
        SrcSettings settings;
        SrcCounters counters;
        GstClock* clock = newTaiClock();
        std::atomic<bool> flushing{false};

        std::optional<DomainInstance> domain;
        std::optional<ReadFlow> flow;
        RunningTimeOrigin clockOrigin;
        std::optional<std::int64_t> freeOrigin;

        ~SrcState()
        {
            gst_object_unref(clock);
        }
    };
}

using mxl::gst::SrcState;

struct _GstMxlSrc
{
    GstPushSrc parent;
    SrcState* state;
};

G_DEFINE_TYPE(GstMxlSrc, gst_mxl_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE(mxlsrc, "mxlsrc", GST_RANK_NONE, GST_TYPE_MXL_SRC);

namespace
{
    using namespace mxl::gst;

    enum Property : guint
    {
        propDomain = 1,
        propFlowId,
        propVideoFlowId,
        propAudioFlowId,
        propDataFlowId,
        propStartIndex,
        propSamplesPerBuffer,
        propBuffersPushed,
        propInvalidGrains,
        propLost,
    };

    constexpr char const* sourceCaps = "video/x-raw, format=(string)v210, width=(int)[2, 7680], height=(int)[1, 4320], "
                                       "framerate=(fraction)[1/2147483647, 2147483647/1], interlace-mode=(string)progressive; "
                                       "audio/x-raw, format=(string){F32LE, F64LE}, layout=(string){interleaved, non-interleaved}, "
                                       "rate=(int)[1, 2147483647], channels=(int)[1, 2147483647]; "
                                       "meta/x-mxl-rfc8331, framerate=(fraction)[1/2147483647, 2147483647/1]; "
                                       "meta/x-st-2038, alignment=(string)frame, framerate=(fraction)[1/2147483647, 2147483647/1]";

    SrcState& stateOf(gpointer object)
    {
        return *GST_MXL_SRC(object)->state;
    }

    void mxlSrcSetProperty(GObject* object, guint property, GValue const* value, GParamSpec* spec)
    {
        auto& settings = stateOf(object).settings;
        GST_OBJECT_LOCK(object);
        switch (property)
        {
        case propDomain:
        {
            auto const* const text = g_value_get_string(value);
            settings.domain = text != nullptr ? text : "";
            break;
        }
        case propFlowId:
        case propVideoFlowId:
        case propAudioFlowId:
        case propDataFlowId:
        {
            auto const* const text = g_value_get_string(value);
            settings.flowIds.at(property - propFlowId) = text != nullptr ? text : "";
            break;
        }
        case propStartIndex:
            settings.startIndex = g_value_get_uint64(value);
            break;
        case propSamplesPerBuffer:
            settings.samplesPerBuffer = g_value_get_uint(value);
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, property, spec);
            break;
        }
        GST_OBJECT_UNLOCK(object);
    }

    void mxlSrcGetProperty(GObject* object, guint property, GValue* value, GParamSpec* spec)
    {
        auto& state = stateOf(object);
        GST_OBJECT_LOCK(object);
        switch (property)
        {
        case propDomain:
            g_value_set_string(value, state.settings.domain.empty() ? nullptr : state.settings.domain.c_str());
            break;
        case propFlowId:
        case propVideoFlowId:
        case propAudioFlowId:
        case propDataFlowId:
        {
            auto const& flowId = state.settings.flowIds.at(property - propFlowId);
            g_value_set_string(value, flowId.empty() ? nullptr : flowId.c_str());
            break;
        }
        case propStartIndex:
            g_value_set_uint64(value, state.settings.startIndex);
            break;
        case propSamplesPerBuffer:
            g_value_set_uint(value, state.settings.samplesPerBuffer);
            break;
        case propBuffersPushed:
            g_value_set_uint64(value, state.counters.pushed.load());
            break;
        case propInvalidGrains:
            g_value_set_uint64(value, state.counters.invalid.load());
            break;
        case propLost:
            g_value_set_uint64(value, state.counters.lost.load());
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, property, spec);
            break;
        }
        GST_OBJECT_UNLOCK(object);
    }

    SrcSettings settingsOf(GstMxlSrc* src)
    {
        GST_OBJECT_LOCK(src);
        auto copy = src->state->settings;
        GST_OBJECT_UNLOCK(src);
        return copy;
    }

    void openFlow(GstMxlSrc* src, SrcSettings const& settings)
    {
        auto& state = *src->state;
        auto const& domain = state.domain->domain();
        SourceFlowName name;
        try
        {
            name = resolveSourceFlow(settings.flowIds);
        }
        catch (std::invalid_argument const& e)
        {
            throw settingsFailure(e.what());
        }
        auto const& flowId = name.flowId;
        if (!g_uuid_string_is_valid(flowId.c_str()))
        {
            throw settingsFailure(
                fmt::format("{} \"{}\" is not a UUID (e.g. 5fbec3b1-1b0f-417d-9059-8b94a47197ed)", propertyName(name.property), flowId));
        }
        auto& flow = state.flow.emplace();
        flow.instance = state.domain->get();
        flow.id = flowId;
        auto const status = mxlCreateFlowReader(flow.instance, flowId.c_str(), nullptr, &flow.reader);
        if (status == MXL_ERR_FLOW_NOT_FOUND)
        {
            flow.reader = nullptr;
            throw notFoundFailure(fmt::format("{} \"{}\" is not a flow of domain \"{}\" (mxl-info -d {} lists its flows)",
                                              propertyName(name.property), flowId, domain, domain));
        }
        if (status != MXL_STATUS_OK)
        {
            flow.reader = nullptr;
            throw flowFailure(
                fmt::format("mxlCreateFlowReader of flow {} in domain \"{}\" failed: {}", flowId, domain, mxl::tools::statusName(status)));
        }
        try
        {
            flow.format = formatFromDefinition(flowDefinitionText(flow.instance, flowId));
            checkSourceFlowFormat(name, flow.format.format);
            flow.caps = capsFromFormat(flow.format, name.property == SourceFlowProperty::dataFlowId);
        }
        catch (FormatError const& e)
        {
            throw formatFailure(fmt::format("flow {} in domain \"{}\": {}", flowId, domain, e.what()));
        }
        catch (std::invalid_argument const& e)
        {
            throw settingsFailure(e.what());
        }
        mxlFlowConfigInfo config{};
        if (auto const configStatus = mxlFlowReaderGetConfigInfo(flow.reader, &config); configStatus != MXL_STATUS_OK)
        {
            throw flowFailure(
                fmt::format("mxlFlowReaderGetConfigInfo of flow {} failed: {}", flowId, mxl::tools::statusName(configStatus)));
        }
        if (flow.format.format != MXL_DATA_FORMAT_AUDIO)
        {
            flow.grains.emplace(flow.reader, config, settings.startIndex);
            return;
        }
        // Default: 10 ms of samples, a common audio packet time.
        auto const rate = static_cast<std::uint64_t>(flow.format.rate.numerator);
        std::size_t maxRead = 0;
        mxlFlowReaderGetMaxReadLengthSamples(flow.reader, &maxRead);
        auto const samples =
            settings.samplesPerBuffer != 0 ? std::uint64_t{settings.samplesPerBuffer} : std::max<std::uint64_t>(1, rate / 100);
        if (samples > maxRead)
        {
            throw settingsFailure(fmt::format("samples-per-buffer {} is more than the {} samples flow {} lets a reader take at once",
                                              samples, maxRead, flowId));
        }
        flow.unitsPerBuffer = samples;
        flow.samples.emplace(flow.reader, config, samples, settings.startIndex);
    }

    gboolean mxlSrcStart(GstBaseSrc* base)
    {
        auto* const src = GST_MXL_SRC(base);
        auto& state = *src->state;
        state.counters.pushed = 0;
        state.counters.invalid = 0;
        state.counters.lost = 0;
        state.clockOrigin.reset();
        state.freeOrigin.reset();
        try
        {
            auto const settings = settingsOf(src);
            state.domain.emplace(settings.domain);
            openFlow(src, settings);
            return TRUE;
        }
        catch (ElementFailure const& failure)
        {
            state.flow.reset();
            state.domain.reset();
            MXL_GST_POST_FAILURE(src, failure);
            return FALSE;
        }
    }

    gboolean mxlSrcStop(GstBaseSrc* base)
    {
        auto& state = stateOf(base);
        state.flow.reset();
        state.domain.reset();
        return TRUE;
    }

    GstCaps* mxlSrcGetCaps(GstBaseSrc* base, GstCaps* filter)
    {
        auto& state = stateOf(base);
        auto* const caps = state.flow ? gst_caps_ref(state.flow->caps) : gst_pad_get_pad_template_caps(GST_BASE_SRC_PAD(base));
        if (filter == nullptr)
        {
            return caps;
        }
        auto* const filtered = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(caps);
        return filtered;
    }

    gboolean mxlSrcSetCaps(GstBaseSrc* base, GstCaps* caps)
    {
        auto& state = stateOf(base);
        if (state.flow && state.flow->format.format == MXL_DATA_FORMAT_DATA)
        {
            state.flow->st2038 = gst_structure_has_name(gst_caps_get_structure(caps, 0), st2038CapsName);
        }
        if (!state.flow || !state.flow->samples)
        {
            return state.flow.has_value();
        }
        GstAudioInfo info;
        if (!gst_audio_info_from_caps(&info, caps))
        {
            return FALSE;
        }
        state.flow->samples->setInfo(info);
        return TRUE;
    }

    // Nanoseconds of one grain (video) or one buffer (audio): how long after a grain's time it is complete in the flow.
    GstClockTime unitDuration(ReadFlow const& flow, std::uint64_t units)
    {
        return mxlIndexToTimestamp(&flow.format.rate, units);
    }

    // The running time of TAI time `tai`, or nullopt for a time before the pipeline started (a live source cannot
    // timestamp it). Without a clock the first grain read is running time 0.
    std::optional<GstClockTime> runningTimeOf(GstMxlSrc* src, std::uint64_t tai)
    {
        auto& state = *src->state;
        auto origin = state.clockOrigin.onClock(GST_ELEMENT(src));
        if (!origin)
        {
            if (!state.freeOrigin)
            {
                state.freeOrigin = static_cast<std::int64_t>(tai);
            }
            origin = state.freeOrigin;
        }
        auto const running = static_cast<std::int64_t>(tai) - *origin;
        if (running < 0)
        {
            return std::nullopt;
        }
        return static_cast<GstClockTime>(running);
    }

    struct Span
    {
        GstClockTime start;
        GstClockTime duration;
    };

    std::optional<Span> spanOf(GstMxlSrc* src, std::uint64_t index, std::uint64_t count)
    {
        auto const& rate = src->state->flow->format.rate;
        auto const startTai = mxlIndexToTimestamp(&rate, index);
        auto const start = runningTimeOf(src, startTai);
        if (!start)
        {
            return std::nullopt;
        }
        return Span{*start, mxlIndexToTimestamp(&rate, index + count) - startTai};
    }

    void reportGap(GstMxlSrc* src, ReadResult const& result, bool lost)
    {
        auto& state = *src->state;
        (lost ? state.counters.lost : state.counters.invalid) += result.count;
        auto const span = spanOf(src, result.index, result.count);
        if (!span)
        {
            return;
        }
        gst_pad_push_event(GST_BASE_SRC_PAD(src), gst_event_new_gap(span->start, span->duration));
        if (!lost)
        {
            return;
        }
        auto* const message = gst_message_new_qos(GST_OBJECT(src), TRUE, span->start, span->start, span->start, span->duration);
        auto const units = state.flow->grains ? GST_FORMAT_BUFFERS : GST_FORMAT_DEFAULT;
        gst_message_set_qos_stats(message, units, state.counters.pushed.load(), state.counters.lost.load());
        gst_element_post_message(GST_ELEMENT(src), message);
    }

    // meta/x-st-2038: the grain's packets repacked. A grain that is not an RFC 8331 payload goes downstream as a gap, with
    // a warning naming what is wrong; false then.
    bool repackAsSt2038(GstMxlSrc* src, ReadResult& result)
    {
        try
        {
            auto* const repacked = st2038FromRfc8331(result.buffer);
            gst_buffer_unref(result.buffer);
            result.buffer = repacked;
            return true;
        }
        catch (mxl::media::AncFormatError const& e)
        {
            gst_buffer_unref(result.buffer);
            GST_ELEMENT_WARNING(src, STREAM, FORMAT,
                                ("grain %" G_GUINT64_FORMAT " of flow %s cannot be given as %s, sent as a gap: %s", result.index,
                                 src->state->flow->id.c_str(), st2038CapsName, e.what()),
                                (nullptr));
            if (auto const span = spanOf(src, result.index, result.count); span)
            {
                gst_pad_push_event(GST_BASE_SRC_PAD(src), gst_event_new_gap(span->start, span->duration));
            }
            return false;
        }
    }

    GstFlowReturn mxlSrcCreate(GstPushSrc* push, GstBuffer** out)
    {
        auto* const src = GST_MXL_SRC(push);
        auto& state = *src->state;
        try
        {
            for (;;)
            {
                auto& flow = *state.flow;
                auto result = flow.grains ? flow.grains->next(state.flushing) : flow.samples->next(state.flushing);
                switch (result.kind)
                {
                case ReadResult::Kind::flushing:
                    return GST_FLOW_FLUSHING;
                case ReadResult::Kind::ended:
                    GST_ELEMENT_WARNING(src, RESOURCE, READ, ("flow %s was deleted: its last writer stopped", flow.id.c_str()), (nullptr));
                    return GST_FLOW_EOS;
                case ReadResult::Kind::invalid:
                case ReadResult::Kind::lost:
                    reportGap(src, result, result.kind == ReadResult::Kind::lost);
                    break;
                case ReadResult::Kind::buffer:
                {
                    auto const span = spanOf(src, result.index, result.count);
                    if (!span)
                    {
                        gst_buffer_unref(result.buffer);
                        break;
                    }
                    if (flow.st2038 && !repackAsSt2038(src, result))
                    {
                        break;
                    }
                    GST_BUFFER_PTS(result.buffer) = span->start;
                    GST_BUFFER_DURATION(result.buffer) = span->duration;
                    GST_BUFFER_OFFSET(result.buffer) = result.index;
                    GST_BUFFER_OFFSET_END(result.buffer) = result.index + result.count;
                    ++state.counters.pushed;
                    *out = result.buffer;
                    return GST_FLOW_OK;
                }
                }
            }
        }
        catch (ElementFailure const& failure)
        {
            MXL_GST_POST_FAILURE(src, failure);
            return GST_FLOW_ERROR;
        }
    }

    gboolean mxlSrcUnlock(GstBaseSrc* base)
    {
        stateOf(base).flushing = true;
        return TRUE;
    }

    gboolean mxlSrcUnlockStop(GstBaseSrc* base)
    {
        stateOf(base).flushing = false;
        return TRUE;
    }

    // Live: a grain is in the flow once it is complete, one grain (or one buffer of samples) after its time.
    gboolean mxlSrcQuery(GstBaseSrc* base, GstQuery* query)
    {
        auto& state = stateOf(base);
        if (GST_QUERY_TYPE(query) != GST_QUERY_LATENCY || !state.flow)
        {
            return GST_BASE_SRC_CLASS(gst_mxl_src_parent_class)->query(base, query);
        }
        gst_query_set_latency(query, TRUE, unitDuration(*state.flow, state.flow->unitsPerBuffer), GST_CLOCK_TIME_NONE);
        return TRUE;
    }

    GstClock* mxlSrcProvideClock(GstElement* element)
    {
        return GST_CLOCK(gst_object_ref(stateOf(element).clock));
    }

    void mxlSrcFinalize(GObject* object)
    {
        delete GST_MXL_SRC(object)->state;
        G_OBJECT_CLASS(gst_mxl_src_parent_class)->finalize(object);
    }

    constexpr auto readWriteFlags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
    constexpr auto readOnlyFlags = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}

static void gst_mxl_src_class_init(GstMxlSrcClass* klass)
{
    auto* const objectClass = G_OBJECT_CLASS(klass);
    auto* const elementClass = GST_ELEMENT_CLASS(klass);
    auto* const baseSrcClass = GST_BASE_SRC_CLASS(klass);
    auto* const pushSrcClass = GST_PUSH_SRC_CLASS(klass);

    objectClass->set_property = mxlSrcSetProperty;
    objectClass->get_property = mxlSrcGetProperty;
    objectClass->finalize = mxlSrcFinalize;

    g_object_class_install_property(objectClass, propDomain,
                                    g_param_spec_string("domain", "Domain", "MXL domain folder holding the flow", nullptr, readWriteFlags));
    g_object_class_install_property(
        objectClass, propFlowId,
        g_param_spec_string("flow-id", "Flow id", "UUID of the flow to read (mxl-info lists them)", nullptr, readWriteFlags));
    // The MXL SDK plugin's names for flow-id: set one of these or flow-id.
    for (auto const& [property, name, nick, blurb] :
         {std::tuple{propVideoFlowId, "video-flow-id", "Video flow id", "UUID of a video flow to read (flow-id for a video flow only)"},
          std::tuple{propAudioFlowId, "audio-flow-id", "Audio flow id", "UUID of an audio flow to read (flow-id for an audio flow only)"},
          std::tuple{propDataFlowId, "data-flow-id", "Data flow id", "UUID of a data flow to read (flow-id for a data flow only)"}})
    {
        g_object_class_install_property(objectClass, property, g_param_spec_string(name, nick, blurb, nullptr, readWriteFlags));
    }
    g_object_class_install_property(
        objectClass, propStartIndex,
        g_param_spec_uint64(
            "start-index", "Start index",
            "Grain (video, data) or sample (audio) index to start reading at; 0: the head (the newest grain, or the samples "
            "ending at the head). Data timed before the pipeline started is skipped",
            0, G_MAXUINT64, 0, readWriteFlags));
    g_object_class_install_property(objectClass, propSamplesPerBuffer,
                                    g_param_spec_uint("samples-per-buffer", "Samples per buffer",
                                                      "Samples per channel in each audio buffer; 0: 10 ms of samples", 0, G_MAXUINT32, 0,
                                                      readWriteFlags));
    g_object_class_install_property(
        objectClass, propBuffersPushed,
        g_param_spec_uint64("buffers-pushed", "Buffers pushed", "Buffers pushed downstream since start", 0, G_MAXUINT64, 0, readOnlyFlags));
    g_object_class_install_property(objectClass, propInvalidGrains,
                                    g_param_spec_uint64("invalid-grains", "Invalid grains",
                                                        "Grains the writer flagged invalid, sent downstream as gap events", 0, G_MAXUINT64,
                                                        0, readOnlyFlags));
    g_object_class_install_property(
        objectClass, propLost,
        g_param_spec_uint64("lost", "Lost",
                            "Grains (video, data) or samples (audio) not read: rewritten before mxlsrc got to them "
                            "or skipped by the writer; sent as gap events and QoS messages",
                            0, G_MAXUINT64, 0, readOnlyFlags));

    gst_element_class_set_static_metadata(elementClass, "MXL flow source", "Source/Video;Source/Audio;Source/Metadata",
                                          "Reads an MXL flow of v210 video, float audio or SMPTE 291 data (RFC 8331 payloads or ST 2038 "
                                          "packets) as a live source (timestamps from grain indices)",
                                          "mxl");
    auto* const templateCaps = gst_caps_from_string(sourceCaps);
    gst_element_class_add_pad_template(elementClass, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, templateCaps));
    gst_caps_unref(templateCaps);

    elementClass->provide_clock = mxlSrcProvideClock;
    baseSrcClass->start = mxlSrcStart;
    baseSrcClass->stop = mxlSrcStop;
    baseSrcClass->get_caps = mxlSrcGetCaps;
    baseSrcClass->set_caps = mxlSrcSetCaps;
    baseSrcClass->unlock = mxlSrcUnlock;
    baseSrcClass->unlock_stop = mxlSrcUnlockStop;
    baseSrcClass->query = mxlSrcQuery;
    pushSrcClass->create = mxlSrcCreate;

    GST_DEBUG_CATEGORY_INIT(mxlSrcDebug, "mxlsrc", 0, "MXL flow source");
}

static void gst_mxl_src_init(GstMxlSrc* src)
{
    src->state = new SrcState;
    GST_OBJECT_FLAG_SET(src, GST_ELEMENT_FLAG_PROVIDE_CLOCK);
    // Until a pipeline distributes its own choice, the element runs on (and gst-inspect shows) the clock it offers.
    gst_element_set_clock(GST_ELEMENT(src), src->state->clock);
    gst_base_src_set_live(GST_BASE_SRC(src), TRUE);
    gst_base_src_set_format(GST_BASE_SRC(src), GST_FORMAT_TIME);
}
