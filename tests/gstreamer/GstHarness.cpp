#include "GstHarness.hpp"

#include <gst/audio/audio.h>

#include <mxl/time.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace mxl::test::gst
{
    void initGstreamer()
    {
        static bool const ready = []
        {
            ::setenv("GST_PLUGIN_PATH", MXL_GST_PLUGIN_DIR, 1);
            ::setenv("GST_REGISTRY", MXL_GST_REGISTRY, 1);
            ::setenv("GST_REGISTRY_FORK", "no", 1);
            // A crash should reach the sanitizer or the test runner, not GStreamer's own handler.
            gst_segtrap_set_enabled(FALSE);
            gst_init(nullptr, nullptr);
            // Frees GStreamer's registry and caches at exit, so that a leak check sees only what a test leaked.
            std::atexit(gst_deinit);
            return true;
        }();
        (void)ready;
        for (auto const* name : {"mxlsink", "mxlsrc", "videotestsrc", "audiotestsrc", "appsink", "tee"})
        {
            auto* const factory = gst_element_factory_find(name);
            INFO("GStreamer element ", name,
                 " (plugins in " MXL_GST_PLUGIN_DIR " and the system's; scripts/install-deps.sh installs them)");
            REQUIRE(factory != nullptr);
            gst_object_unref(factory);
        }
    }

    namespace
    {
        BusMessage describe(GstMessage* message)
        {
            BusMessage described;
            described.type = GST_MESSAGE_TYPE(message);
            described.source = GST_MESSAGE_SRC(message) != nullptr ? GST_OBJECT_NAME(GST_MESSAGE_SRC(message)) : "";
            GError* error = nullptr;
            gchar* debug = nullptr;
            switch (described.type)
            {
            case GST_MESSAGE_ERROR:
                gst_message_parse_error(message, &error, &debug);
                break;
            case GST_MESSAGE_WARNING:
                gst_message_parse_warning(message, &error, &debug);
                break;
            case GST_MESSAGE_QOS:
            {
                GstFormat format = GST_FORMAT_UNDEFINED;
                guint64 processed = 0;
                guint64 dropped = 0;
                gst_message_parse_qos_stats(message, &format, &processed, &dropped);
                described.processed = processed;
                described.dropped = dropped;
                gboolean live = FALSE;
                guint64 streamTime = 0;
                guint64 timestamp = 0;
                guint64 duration = 0;
                gst_message_parse_qos(message, &live, &described.runningTime, &streamTime, &timestamp, &duration);
                break;
            }
            default:
                break;
            }
            if (error != nullptr)
            {
                described.text = error->message;
                g_error_free(error);
            }
            g_free(debug);
            return described;
        }
    }

    Pipeline::Pipeline(std::string const& description)
    {
        initGstreamer();
        GError* error = nullptr;
        _pipeline = gst_parse_launch(description.c_str(), &error);
        std::string const problem = error != nullptr ? error->message : "none";
        INFO("pipeline: ", description, "; error: ", problem);
        if (error != nullptr)
        {
            g_error_free(error);
            if (_pipeline != nullptr)
            {
                gst_object_unref(_pipeline);
                _pipeline = nullptr;
            }
        }
        REQUIRE(_pipeline != nullptr);
    }

    Pipeline::~Pipeline()
    {
        if (_pipeline != nullptr)
        {
            // A collector holding the streaming thread would keep the pipeline from stopping.
            for (auto const& collector : _collectors)
            {
                collector->release();
            }
            gst_element_set_state(_pipeline, GST_STATE_NULL);
            gst_object_unref(_pipeline);
        }
    }

    GstElement* Pipeline::element(char const* name) const
    {
        auto* const found = gst_bin_get_by_name(GST_BIN(_pipeline), name);
        INFO("element ", name);
        REQUIRE(found != nullptr);
        gst_object_unref(found);
        return found;
    }

    GstStateChangeReturn Pipeline::play()
    {
        return gst_element_set_state(_pipeline, GST_STATE_PLAYING);
    }

    GstStateChangeReturn Pipeline::stop()
    {
        return gst_element_set_state(_pipeline, GST_STATE_NULL);
    }

    void Pipeline::useClockStartingAt(GstElement* provider, GstClockTime runningTimeNs)
    {
        auto* const clock = gst_element_provide_clock(provider);
        REQUIRE(clock != nullptr);
        gst_pipeline_use_clock(GST_PIPELINE(_pipeline), clock);
        // Without a start time the pipeline keeps the base time it is given.
        gst_element_set_start_time(_pipeline, GST_CLOCK_TIME_NONE);
        gst_element_set_base_time(_pipeline, gst_clock_get_time(clock) - runningTimeNs);
        gst_object_unref(clock);
    }

    std::vector<BusMessage> Pipeline::runUntilEnd(std::chrono::seconds timeout)
    {
        std::vector<BusMessage> messages;
        auto* const bus = gst_element_get_bus(_pipeline);
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        for (;;)
        {
            auto const left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0)
            {
                break;
            }
            auto* const message = gst_bus_timed_pop(bus, static_cast<GstClockTime>(left));
            if (message == nullptr)
            {
                break;
            }
            messages.push_back(describe(message));
            gst_message_unref(message);
            auto const type = messages.back().type;
            if (type == GST_MESSAGE_EOS || type == GST_MESSAGE_ERROR)
            {
                break;
            }
        }
        gst_object_unref(bus);
        return messages;
    }

    std::vector<BusMessage> Pipeline::drainBus()
    {
        std::vector<BusMessage> messages;
        auto* const bus = gst_element_get_bus(_pipeline);
        while (auto* const message = gst_bus_pop(bus))
        {
            messages.push_back(describe(message));
            gst_message_unref(message);
        }
        gst_object_unref(bus);
        return messages;
    }

    GstClockTime Pipeline::baseTime() const
    {
        return gst_element_get_base_time(_pipeline);
    }

    std::string Pipeline::clockName() const
    {
        auto* const clock = gst_pipeline_get_clock(GST_PIPELINE(_pipeline));
        std::string name = clock != nullptr ? GST_OBJECT_NAME(clock) : "";
        if (clock != nullptr)
        {
            gst_object_unref(clock);
        }
        return name;
    }

    AppSinkCollector& Pipeline::collect(char const* name, bool holdAfterFirst)
    {
        _collectors.push_back(std::make_unique<AppSinkCollector>(element(name), holdAfterFirst));
        return *_collectors.back();
    }

    std::vector<Received> Pipeline::receiveToEnd(char const* name, std::size_t count, std::chrono::seconds timeout)
    {
        return collectToEnd(name, count, timeout).received();
    }

    AppSinkCollector& Pipeline::collectToEnd(char const* name, std::size_t count, std::chrono::seconds timeout)
    {
        auto& out = collect(name);
        REQUIRE(play() != GST_STATE_CHANGE_FAILURE);
        REQUIRE(sawEos(runUntilEnd(timeout)));
        REQUIRE(out.received().size() == count);
        return out;
    }

    void checkConsecutiveBuffers(Pipeline const& pipeline, std::vector<Received> const& received, mxlRational rate,
                                 std::uint64_t unitsPerBuffer)
    {
        for (std::size_t i = 0; i < received.size(); ++i)
        {
            auto const& buffer = received[i];
            INFO("buffer ", i, " from index ", buffer.offset);
            CHECK(buffer.offsetEnd == buffer.offset + unitsPerBuffer);
            if (i > 0)
            {
                CHECK(buffer.offset == received[i - 1].offsetEnd);
            }
            CHECK(pipeline.baseTime() + buffer.runningTime == mxlIndexToTimestamp(&rate, buffer.offset));
        }
    }

    std::uint64_t counter(GstElement* element, char const* name)
    {
        guint64 value = 0;
        g_object_get(element, name, &value, nullptr);
        return value;
    }

    std::uint64_t waitForCounter(GstElement* element, char const* name, std::uint64_t atLeast, std::chrono::seconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        auto value = counter(element, name);
        while (value < atLeast && std::chrono::steady_clock::now() < deadline)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds{50});
            value = counter(element, name);
        }
        return value;
    }

    bool sawEos(std::vector<BusMessage> const& messages)
    {
        return !messages.empty() && messages.back().type == GST_MESSAGE_EOS;
    }

    std::string errorFrom(std::vector<BusMessage> const& messages, std::string const& source)
    {
        for (auto const& message : messages)
        {
            if (message.type == GST_MESSAGE_ERROR && message.source == source)
            {
                return message.text;
            }
        }
        return {};
    }

    AppSinkCollector::AppSinkCollector(GstElement* appsink, bool holdAfterFirst)
        : _hold{holdAfterFirst}
    {
        GstAppSinkCallbacks callbacks{};
        callbacks.new_sample = &AppSinkCollector::onSample;
        gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &callbacks, this, nullptr);
        auto* const pad = gst_element_get_static_pad(appsink, "sink");
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, &AppSinkCollector::onEvent, this, nullptr);
        gst_object_unref(pad);
    }

    namespace
    {
        Received copyOut(GstSample* sample)
        {
            Received received;
            auto* const buffer = gst_sample_get_buffer(sample);
            received.pts = GST_BUFFER_PTS(buffer);
            received.runningTime = gst_segment_to_running_time(gst_sample_get_segment(sample), GST_FORMAT_TIME, received.pts);
            received.offset = GST_BUFFER_OFFSET(buffer);
            received.offsetEnd = GST_BUFFER_OFFSET_END(buffer);
            auto* const caps = gst_sample_get_caps(sample);
            auto const isAudio = std::strcmp(gst_structure_get_name(gst_caps_get_structure(caps, 0)), "audio/x-raw") == 0;
            if (!isAudio)
            {
                received.bytes.resize(gst_buffer_get_size(buffer));
                gst_buffer_extract(buffer, 0, received.bytes.data(), received.bytes.size());
                return received;
            }
            GstAudioInfo info;
            gst_audio_info_from_caps(&info, caps);
            GstAudioBuffer audio;
            gst_audio_buffer_map(&audio, &info, buffer, GST_MAP_READ);
            auto const channels = static_cast<std::size_t>(GST_AUDIO_INFO_CHANNELS(&info));
            auto const interleaved = GST_AUDIO_INFO_LAYOUT(&info) == GST_AUDIO_LAYOUT_INTERLEAVED;
            received.channels.assign(channels, std::vector<float>(audio.n_samples));
            for (std::size_t channel = 0; channel < channels; ++channel)
            {
                for (std::size_t i = 0; i < audio.n_samples; ++i)
                {
                    auto const* const plane = static_cast<float const*>(audio.planes[interleaved ? 0 : channel]);
                    received.channels[channel][i] = interleaved ? plane[i * channels + channel] : plane[i];
                }
            }
            gst_audio_buffer_unmap(&audio);
            return received;
        }
    }

    GstFlowReturn AppSinkCollector::onSample(GstAppSink* appsink, gpointer self)
    {
        auto& collector = *static_cast<AppSinkCollector*>(self);
        auto* const sample = gst_app_sink_pull_sample(appsink);
        auto received = copyOut(sample);
        gst_sample_unref(sample);
        std::unique_lock lock{collector._mutex};
        collector._received.push_back(std::move(received));
        collector._changed.notify_all();
        if (collector._hold)
        {
            collector._changed.wait(lock, [&] { return collector._released; });
        }
        return GST_FLOW_OK;
    }

    GstPadProbeReturn AppSinkCollector::onEvent(GstPad*, GstPadProbeInfo* info, gpointer self)
    {
        auto* const event = GST_PAD_PROBE_INFO_EVENT(info);
        if (GST_EVENT_TYPE(event) == GST_EVENT_GAP)
        {
            GstClockTime timestamp = GST_CLOCK_TIME_NONE;
            GstClockTime duration = GST_CLOCK_TIME_NONE;
            gst_event_parse_gap(event, &timestamp, &duration);
            auto& collector = *static_cast<AppSinkCollector*>(self);
            std::lock_guard lock{collector._mutex};
            collector._gaps.push_back(timestamp);
        }
        return GST_PAD_PROBE_OK;
    }

    std::size_t AppSinkCollector::waitFor(std::size_t count, std::chrono::seconds timeout)
    {
        std::unique_lock lock{_mutex};
        _changed.wait_for(lock, timeout, [&] { return _received.size() >= count; });
        return _received.size();
    }

    void AppSinkCollector::release()
    {
        std::lock_guard lock{_mutex};
        _released = true;
        _changed.notify_all();
    }

    std::vector<Received> AppSinkCollector::received()
    {
        std::lock_guard lock{_mutex};
        return _received;
    }

    std::vector<GstClockTime> AppSinkCollector::gaps()
    {
        std::lock_guard lock{_mutex};
        return _gaps;
    }
}
