// mxlsrc with audio: a writer of the C API feeds a flow in real time; the pipeline's buffers hold exactly its samples,
// in consecutive blocks timestamped with their first sample's time, interleaved or not, 2 and 16 channels.
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    // Two seconds of grains: a pipeline held up by a loaded machine still finds every grain it has not read yet.
    constexpr auto srcAudioFlowId = "c84f2a17-3e69-4d0b-a5c2-6e1b9f3d7a45";
    constexpr mxlRational audioRate{48000, 1};

    void checkSamplesComeOut(std::uint32_t channels, char const* layout)
    {
        TempDomain domain{"gst-src-audio"};
        setHistory(domain, twoSecondsNs);
        FlowFeeder feeder{domain, audioDefinition(srcAudioFlowId, channels, audioRate.numerator)};
        constexpr std::size_t buffers = 10;
        constexpr std::uint64_t samplesPerBuffer = 240;
        Pipeline pipeline{fmt::format("mxlsrc name=src domain={} flow-id={} samples-per-buffer={} num-buffers={} "
                                      "! audio/x-raw,layout={} ! appsink name=out",
                                      domain.str(), srcAudioFlowId, samplesPerBuffer, buffers, layout)};
        auto const received = pipeline.receiveToEnd("out", buffers);
        checkConsecutiveBuffers(pipeline, received, audioRate, samplesPerBuffer);
        for (std::size_t i = 0; i < received.size(); ++i)
        {
            auto const& buffer = received[i];
            INFO("buffer ", i, " of samples from ", buffer.offset);
            REQUIRE(buffer.channels.size() == channels);
            CHECK(wrongSamples(buffer.channels, buffer.offset, samplesPerBuffer) == 0);
        }
    }
}

TEST_CASE("mxlsrc: samples come out sample-exact, 2 channels interleaved")
{
    checkSamplesComeOut(2, "interleaved");
}

TEST_CASE("mxlsrc: samples come out sample-exact, 16 channels non-interleaved")
{
    checkSamplesComeOut(16, "non-interleaved");
}
