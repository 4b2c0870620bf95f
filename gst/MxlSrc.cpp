#include "MxlSrc.hpp"

#include "AncBuffers.hpp"
#include "DomainInstance.hpp"
#include "ElementFailure.hpp"
#include "ElementProperties.hpp"
#include "ElementState.hpp"
#include "FlowCaps.hpp"
#include "ReadFlow.hpp"
#include "SourceFlowOpen.hpp"
#include "SourceTimes.hpp"
#include "TaiTime.hpp"

#include <media/AncFormatError.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <gst/audio/audio.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

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
            bool waitForFlow = true;
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
        OfferedTaiClock clock;
        std::atomic<bool> flushing{false};

        std::optional<DomainInstance> domain;
        SourceReading reading;
        // Set on the streaming thread when the flow exists at start or later; read by queries on any thread once
        // flowOpen says so.
        std::unique_ptr<ReadFlow> flow;
        std::atomic<bool> flowOpen{false};
        SourceTimes times;

        [[nodiscard]] ReadFlow* openFlow() const noexcept
        {
            return flowOpen.load(std::memory_order_acquire) ? flow.get() : nullptr;
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
        propWaitForFlow,
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

    using Element = ElementState<GstMxlSrc, SrcState, GST_MXL_SRC, &gst_mxl_src_parent_class>;
    constexpr auto stateOf = Element::of;
    constexpr auto settingsOf = Element::settingsOf;

    constexpr CounterFields<SrcCounters, 3> counterProperties{{
        {propBuffersPushed, &SrcCounters::pushed},
        {propInvalidGrains, &SrcCounters::invalid},
        {propLost, &SrcCounters::lost},
    }};

    void mxlSrcSetProperty(GObject* object, guint property, GValue const* value, GParamSpec* spec)
    {
        auto& settings = stateOf(object).settings;
        GST_OBJECT_LOCK(object);
        switch (property)
        {
        case propDomain:
            setString(settings.domain, value);
            break;
        case propFlowId:
        case propVideoFlowId:
        case propAudioFlowId:
        case propDataFlowId:
            setString(settings.flowIds.at(property - propFlowId), value);
            break;
        case propStartIndex:
            settings.startIndex = g_value_get_uint64(value);
            break;
        case propSamplesPerBuffer:
            settings.samplesPerBuffer = g_value_get_uint(value);
            break;
        case propWaitForFlow:
            settings.waitForFlow = g_value_get_boolean(value) != FALSE;
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
        if (getCounter(value, state.counters, counterProperties, property))
        {
            return;
        }
        GST_OBJECT_LOCK(object);
        switch (property)
        {
        case propDomain:
            getString(value, state.settings.domain);
            break;
        case propFlowId:
        case propVideoFlowId:
        case propAudioFlowId:
        case propDataFlowId:
            getString(value, state.settings.flowIds.at(property - propFlowId));
            break;
        case propStartIndex:
            g_value_set_uint64(value, state.settings.startIndex);
            break;
        case propSamplesPerBuffer:
            g_value_set_uint(value, state.settings.samplesPerBuffer);
            break;
        case propWaitForFlow:
            g_value_set_boolean(value, state.settings.waitForFlow ? TRUE : FALSE);
            break;
        default:
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, property, spec);
            break;
        }
        GST_OBJECT_UNLOCK(object);
    }

    // Opens the flow if it exists now, and says whether it is open. Readers on other threads (caps and latency
    // queries) see it once flowOpen is set.
    bool tryOpenFlow(SrcState& state)
    {
        auto flow = openSourceFlow(*state.domain, state.reading);
        if (!flow)
        {
            return false;
        }
        state.flow = std::move(flow);
        state.flowOpen.store(true, std::memory_order_release);
        return true;
    }

    // The MXL SDK's mxlsrc waits for a flow that does not exist yet, so that a pipeline may start before its writer:
    // the flow is looked for every 50 ms until it exists or the element is told to stop. False when told to stop.
    bool waitForFlow(GstMxlSrc* src)
    {
        auto& state = *src->state;
        while (!state.flushing.load())
        {
            if (tryOpenFlow(state))
            {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{50});
        }
        return false;
    }

    void closeFlow(SrcState& state)
    {
        state.flowOpen = false;
        state.flow.reset();
        state.domain.reset();
    }

    gboolean mxlSrcStart(GstBaseSrc* base)
    {
        auto* const src = GST_MXL_SRC(base);
        auto& state = *src->state;
        state.counters.pushed = 0;
        state.counters.invalid = 0;
        state.counters.lost = 0;
        state.times.reset();
        try
        {
            auto const settings = settingsOf(src);
            state.domain.emplace(settings.domain);
            state.reading = SourceReading{checkedSourceFlowName(settings.flowIds), settings.startIndex, settings.samplesPerBuffer};
            if (tryOpenFlow(state))
            {
                return TRUE;
            }
            auto const missing = missingFlowText(*state.domain, state.reading.name);
            if (!settings.waitForFlow)
            {
                throw notFoundFailure(missing);
            }
            GST_ELEMENT_WARNING(src, RESOURCE, NOT_FOUND,
                                ("%s: waiting for a writer to create it (wait-for-flow=false fails instead)", missing.c_str()), (nullptr));
            return TRUE;
        }
        catch (ElementFailure const& failure)
        {
            closeFlow(state);
            MXL_GST_POST_FAILURE(src, failure);
            return FALSE;
        }
    }

    gboolean mxlSrcStop(GstBaseSrc* base)
    {
        closeFlow(stateOf(base));
        return TRUE;
    }

    GstCaps* mxlSrcGetCaps(GstBaseSrc* base, GstCaps* filter)
    {
        auto const* const flow = stateOf(base).openFlow();
        auto* const caps = flow != nullptr ? gst_caps_ref(flow->caps) : gst_pad_get_pad_template_caps(GST_BASE_SRC_PAD(base));
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
        auto* const flow = stateOf(base).openFlow();
        if (flow == nullptr)
        {
            return FALSE;
        }
        if (flow->format.format == MXL_DATA_FORMAT_DATA)
        {
            flow->st2038 = gst_structure_has_name(gst_caps_get_structure(caps, 0), st2038CapsName);
        }
        if (!flow->samples)
        {
            return TRUE;
        }
        GstAudioInfo info;
        if (!gst_audio_info_from_caps(&info, caps))
        {
            return FALSE;
        }
        flow->samples->setInfo(info);
        return TRUE;
    }

    // Caps come from the flow: while it does not exist yet, negotiation waits for create() to open it.
    gboolean mxlSrcNegotiate(GstBaseSrc* base)
    {
        if (stateOf(base).openFlow() == nullptr)
        {
            gst_pad_mark_reconfigure(GST_BASE_SRC_PAD(base));
            return TRUE;
        }
        return GST_BASE_SRC_CLASS(gst_mxl_src_parent_class)->negotiate(base);
    }

    // A flow that did not exist at start: waits for it, then negotiates its caps and has the pipeline ask for the
    // latency again, which depends on the flow's rate. GST_FLOW_OK once it is open.
    GstFlowReturn openLateFlow(GstMxlSrc* src)
    {
        if (!waitForFlow(src))
        {
            return GST_FLOW_FLUSHING;
        }
        GST_INFO_OBJECT(src, "flow %s exists now", src->state->reading.name.flowId.c_str());
        if (gst_base_src_negotiate(GST_BASE_SRC(src)) == FALSE)
        {
            return GST_FLOW_NOT_NEGOTIATED;
        }
        gst_element_post_message(GST_ELEMENT(src), gst_message_new_latency(GST_OBJECT(src)));
        return GST_FLOW_OK;
    }

    // Nanoseconds of one grain (video) or one buffer (audio): how long after a grain's time it is complete in the flow.
    GstClockTime unitDuration(ReadFlow const& flow, std::uint64_t units)
    {
        return mxlIndexToTimestamp(&flow.format.rate, units);
    }

    std::optional<Span> spanOf(GstMxlSrc* src, std::uint64_t index, std::uint64_t count)
    {
        auto& state = *src->state;
        return state.times.spanOf(GST_ELEMENT(src), state.flow->format.rate, index, count);
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
            if (state.openFlow() == nullptr)
            {
                if (auto const opened = openLateFlow(src); opened != GST_FLOW_OK)
                {
                    return opened;
                }
            }
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
        auto const* const flow = stateOf(base).openFlow();
        if (GST_QUERY_TYPE(query) != GST_QUERY_LATENCY || flow == nullptr)
        {
            return GST_BASE_SRC_CLASS(gst_mxl_src_parent_class)->query(base, query);
        }
        gst_query_set_latency(query, TRUE, unitDuration(*flow, flow->unitsPerBuffer), GST_CLOCK_TIME_NONE);
        return TRUE;
    }

}

static void gst_mxl_src_class_init(GstMxlSrcClass* klass)
{
    auto* const objectClass = G_OBJECT_CLASS(klass);
    auto* const elementClass = GST_ELEMENT_CLASS(klass);
    auto* const baseSrcClass = GST_BASE_SRC_CLASS(klass);
    auto* const pushSrcClass = GST_PUSH_SRC_CLASS(klass);

    Element::installMethods(objectClass, mxlSrcSetProperty, mxlSrcGetProperty);

    installString(objectClass, propDomain, "domain", "Domain", "MXL domain folder holding the flow", nullptr);
    installString(objectClass, propFlowId, "flow-id", "Flow id", "UUID of the flow to read (mxl-info lists them)", nullptr);
    // The MXL SDK plugin's names for flow-id: set one of these or flow-id.
    for (auto const& [property, name, nick, blurb] :
         {std::tuple{propVideoFlowId, "video-flow-id", "Video flow id", "UUID of a video flow to read (flow-id for a video flow only)"},
          std::tuple{propAudioFlowId, "audio-flow-id", "Audio flow id", "UUID of an audio flow to read (flow-id for an audio flow only)"},
          std::tuple{propDataFlowId, "data-flow-id", "Data flow id", "UUID of a data flow to read (flow-id for a data flow only)"}})
    {
        installString(objectClass, property, name, nick, blurb, nullptr);
    }
    g_object_class_install_property(
        objectClass, propStartIndex,
        g_param_spec_uint64(
            "start-index", "Start index",
            "Grain (video, data) or sample (audio) index to start reading at; 0: the head (the newest grain, or the samples "
            "ending at the head). Data timed before the pipeline started is skipped",
            0, G_MAXUINT64, 0, settingFlags));
    g_object_class_install_property(objectClass, propSamplesPerBuffer,
                                    g_param_spec_uint("samples-per-buffer", "Samples per buffer",
                                                      "Samples per channel in each audio buffer; 0: 10 ms of samples", 0, G_MAXUINT32, 0,
                                                      settingFlags));
    g_object_class_install_property(
        objectClass, propWaitForFlow,
        g_param_spec_boolean("wait-for-flow", "Wait for flow",
                             "When the flow does not exist at start, wait for a writer to create it (as the MXL SDK's mxlsrc does), "
                             "with a warning naming it; false: fail at start",
                             TRUE, settingFlags));
    installCounter(objectClass, propBuffersPushed, "buffers-pushed", "Buffers pushed", "Buffers pushed downstream since start");
    installCounter(objectClass, propInvalidGrains, "invalid-grains", "Invalid grains",
                   "Grains the writer flagged invalid, sent downstream as gap events");
    installCounter(objectClass, propLost, "lost", "Lost",
                   "Grains (video, data) or samples (audio) not read: rewritten before mxlsrc got to them "
                   "or skipped by the writer; sent as gap events and QoS messages");

    gst_element_class_set_static_metadata(elementClass, "MXL flow source", "Source/Video;Source/Audio;Source/Metadata",
                                          "Reads an MXL flow of v210 video, float audio or SMPTE 291 data (RFC 8331 payloads or ST 2038 "
                                          "packets) as a live source (timestamps from grain indices)",
                                          "mxl");
    auto* const templateCaps = gst_caps_from_string(sourceCaps);
    gst_element_class_add_pad_template(elementClass, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, templateCaps));
    gst_caps_unref(templateCaps);

    baseSrcClass->start = mxlSrcStart;
    baseSrcClass->stop = mxlSrcStop;
    baseSrcClass->get_caps = mxlSrcGetCaps;
    baseSrcClass->set_caps = mxlSrcSetCaps;
    baseSrcClass->negotiate = mxlSrcNegotiate;
    baseSrcClass->unlock = mxlSrcUnlock;
    baseSrcClass->unlock_stop = mxlSrcUnlockStop;
    baseSrcClass->query = mxlSrcQuery;
    pushSrcClass->create = mxlSrcCreate;

    GST_DEBUG_CATEGORY_INIT(mxlSrcDebug, "mxlsrc", 0, "MXL flow source");
}

static void gst_mxl_src_init(GstMxlSrc* src)
{
    Element::init(src);
    gst_base_src_set_live(GST_BASE_SRC(src), TRUE);
    gst_base_src_set_format(GST_BASE_SRC(src), GST_FORMAT_TIME);
}
