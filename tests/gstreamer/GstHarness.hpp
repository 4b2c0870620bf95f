// Running real pipelines in a test: GStreamer set up with the plugin of the build tree, a pipeline from a
// gst-launch description, what its bus said, and what an appsink received.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include <mxl/rational.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mxl::test::gst
{
    // Initialises GStreamer once per process: the plugin from the build tree (GST_PLUGIN_PATH), a registry file of its
    // own in the build tree (no state shared with ~/.cache), plugins scanned in this process (so that a sanitizer
    // build loads its plugin under the sanitizer). REQUIREs that mxlsink and mxlsrc are found.
    void initGstreamer();

    struct BusMessage
    {
        GstMessageType type = GST_MESSAGE_UNKNOWN;
        std::string source;
        // Errors and warnings: the message text.
        std::string text;
        // QoS messages: their statistics.
        std::uint64_t processed = 0;
        std::uint64_t dropped = 0;
        GstClockTime runningTime = GST_CLOCK_TIME_NONE;
    };

    // A buffer an appsink received, copied out: bytes for video, one vector of samples per channel for audio.
    struct Received
    {
        std::vector<std::uint8_t> bytes;
        std::vector<std::vector<float>> channels;
        GstClockTime pts = GST_CLOCK_TIME_NONE;
        // The running time of pts in the buffer's segment.
        GstClockTime runningTime = GST_CLOCK_TIME_NONE;
        std::uint64_t offset = 0;
        std::uint64_t offsetEnd = 0;
    };

    // Collects what an appsink receives, and the running times of the gap events that reach it. Optionally holds the
    // streaming thread in the appsink after the first buffer until released, to make the source upstream fall behind.
    class AppSinkCollector
    {
    public:
        AppSinkCollector(GstElement* appsink, bool holdAfterFirst);

        // Waits until `count` buffers arrived or `timeout` passed; returns the number that arrived.
        std::size_t waitFor(std::size_t count, std::chrono::seconds timeout);

        void release();

        std::vector<Received> received();
        std::vector<GstClockTime> gaps();

    private:
        std::mutex _mutex;
        std::condition_variable _changed;
        std::vector<Received> _received;
        std::vector<GstClockTime> _gaps;
        bool _hold;
        bool _released = false;

        static GstFlowReturn onSample(GstAppSink* appsink, gpointer self);
        static GstPadProbeReturn onEvent(GstPad* pad, GstPadProbeInfo* info, gpointer self);
    };

    class Pipeline
    {
    public:
        // REQUIREs that `description` parses.
        explicit Pipeline(std::string const& description);
        ~Pipeline();

        Pipeline(Pipeline const&) = delete;
        Pipeline& operator=(Pipeline const&) = delete;

        // A named element; the pipeline owns it.
        GstElement* element(char const* name) const;

        GstStateChangeReturn play();

        // To NULL, as a pipeline is stopped; play() starts it again.
        GstStateChangeReturn stop();

        // Before play(): runs the pipeline on the clock `provider` offers, with a base time that puts the running
        // time at `runningTimeNs` when it starts playing (instead of 0).
        void useClockStartingAt(GstElement* provider, GstClockTime runningTimeNs);

        // Pops bus messages until end of stream or an error, or until `timeout`; returns every message popped.
        std::vector<BusMessage> runUntilEnd(std::chrono::seconds timeout);

        // The messages on the bus now, without waiting.
        std::vector<BusMessage> drainBus();

        [[nodiscard]] GstClockTime baseTime() const;

        // The name of the clock the pipeline runs on.
        [[nodiscard]] std::string clockName() const;

        // Starts collecting what the appsink `name` receives; the collector lives until the pipeline has stopped.
        AppSinkCollector& collect(char const* name, bool holdAfterFirst = false);

        // Plays the pipeline to its end of stream (within `timeout`) and returns what the appsink `name` received:
        // REQUIREs the end of stream and exactly `count` buffers.
        std::vector<Received> receiveToEnd(char const* name, std::size_t count, std::chrono::seconds timeout = std::chrono::seconds{60});

        // As receiveToEnd, but returns the appsink's collector, for the gap events it saw as well.
        AppSinkCollector& collectToEnd(char const* name, std::size_t count, std::chrono::seconds timeout = std::chrono::seconds{60});

    private:
        GstElement* _pipeline = nullptr;
        std::vector<std::unique_ptr<AppSinkCollector>> _collectors;
    };

    // A counter property of an element (guint64), e.g. mxlsink's buffers-written.
    std::uint64_t counter(GstElement* element, char const* name);

    // The counter once it reached `atLeast`, or its value at `timeout`: counters have no change signal, so it is read
    // every 50 ms.
    std::uint64_t waitForCounter(GstElement* element, char const* name, std::uint64_t atLeast,
                                 std::chrono::seconds timeout = std::chrono::seconds{30});

    // Checks that `received` are consecutive buffers of `unitsPerBuffer` grains or samples each (offset to offset end),
    // each timestamped with the time of its first index at `rate` on the pipeline's clock.
    void checkConsecutiveBuffers(Pipeline const& pipeline, std::vector<Received> const& received, mxlRational rate,
                                 std::uint64_t unitsPerBuffer);

    // Whether `messages` holds an end of stream.
    bool sawEos(std::vector<BusMessage> const& messages);

    // The text of the first error of `messages` posted by `source`, or "" when there is none.
    std::string errorFrom(std::vector<BusMessage> const& messages, std::string const& source);

}
