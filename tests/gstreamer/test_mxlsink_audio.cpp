// mxlsink with audio: the channel rings an independent reader finds hold exactly the samples audiotestsrc made (a tee
// hands the same buffers to an appsink for reference), interleaved or not, 2 and 16 channels.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    constexpr auto sinkAudioFlowId = "6b2d9e41-07c5-4a8f-b3e6-1f9a2c7d5e80";
    constexpr std::size_t sinkSamplesPerBuffer = 480;

    // audiotestsrc (with `sourceProperties`) making `buffers` buffers of F32LE white noise at 48 kHz, with `channels` in its
    // caps. White noise differs from channel to channel, so that a channel written into another's ring shows.
    std::string whiteNoise(std::string const& sourceProperties, int buffers, std::string const& channels)
    {
        return fmt::format("audiotestsrc {} num-buffers={} samplesperbuffer={} wave=white-noise ! audio/x-raw,format=F32LE,rate=48000,{}",
                           sourceProperties, buffers, sinkSamplesPerBuffer, channels);
    }

    // The reference buffers joined, one vector per channel.
    std::vector<std::vector<float>> joined(std::vector<Received> const& buffers)
    {
        std::vector<std::vector<float>> channels(buffers.front().channels.size());
        for (auto const& buffer : buffers)
        {
            for (std::size_t channel = 0; channel < channels.size(); ++channel)
            {
                channels[channel].insert(channels[channel].end(), buffer.channels[channel].begin(), buffer.channels[channel].end());
            }
        }
        return channels;
    }

    // Runs `source` into mxlsink (sync=false) and into a reference appsink; returns the reference samples and checks
    // that the flow's newest samples are those, sample for sample.
    void checkSamplesLand(int channels, char const* layout)
    {
        TempDomain domain{"gst-sink-audio"};
        setHistory(domain, tenSecondsNs);
        constexpr int buffers = 20;
        Pipeline pipeline{teeIntoSinkAndReference(whiteNoise("", buffers, fmt::format("channels={},layout={}", channels, layout)), domain,
                                                  sinkAudioFlowId, "sync=false")};
        auto const expected = joined(pipeline.receiveToEnd("reference", buffers));
        REQUIRE(expected.size() == static_cast<std::size_t>(channels));
        REQUIRE(expected[0].size() == buffers * sinkSamplesPerBuffer);
        FlowProbe probe{domain, sinkAudioFlowId};
        CHECK(probe.config().continuous.channelCount == static_cast<std::uint32_t>(channels));
        auto const written = probe.samples(probe.head(), expected[0].size());
        for (std::size_t channel = 0; channel < expected.size(); ++channel)
        {
            INFO("channel ", channel);
            CHECK(written[channel] == expected[channel]);
        }
        auto* const sink = pipeline.element("sink");
        CHECK(counter(sink, "buffers-written") == buffers);
        CHECK(counter(sink, "skipped") == 0);
        CHECK(counter(sink, "buffers-dropped") == 0);
    }
}

TEST_CASE("mxlsink: audiotestsrc's samples land sample-exact, 2 channels interleaved")
{
    checkSamplesLand(2, "interleaved");
}

TEST_CASE("mxlsink: audiotestsrc's samples land sample-exact, 16 channels non-interleaved")
{
    checkSamplesLand(16, "non-interleaved");
}

TEST_CASE("mxlsink: on its TAI clock a live tone's first sample lands at the index of base time + running time")
{
    TempDomain domain{"gst-sink-audio-live"};
    setHistory(domain, tenSecondsNs);
    constexpr int buffers = 10;
    Pipeline pipeline{teeIntoSinkAndReference(whiteNoise("is-live=true", buffers, "channels=2"), domain, sinkAudioFlowId, "")};
    auto const copies = pipeline.receiveToEnd("reference", buffers);
    CHECK(pipeline.clockName() == "mxl-tai-clock");

    mxlRational const rate{48000, 1};
    auto const firstIndex = mxlTimestampToIndex(&rate, pipeline.baseTime() + copies.front().runningTime);
    auto const expected = joined(copies);
    FlowProbe probe{domain, sinkAudioFlowId};
    CHECK(probe.head() == firstIndex + expected[0].size() - 1);
    auto const written = probe.samples(firstIndex + expected[0].size() - 1, expected[0].size());
    CHECK(written[0] == expected[0]);
    CHECK(written[1] == expected[1]);
}
