// mxlsrc on both ends of the fabric: a writer of the C API feeds a flow in one domain, real mxl-fabrics-demo processes
// (target in a second domain, initiator in the first, tcp on 127.0.0.1) move it, and one pipeline reads the flow in
// both domains from the same start index. What mxlsrc pushes on the receiving side is, grain for grain, what it
// pushes on the sending side (checksums of the same indices).
#include "DemoProcess.hpp"
#include "GstHarness.hpp"
#include "TestFlows.hpp"

#include "Checksum.hpp"
#include "Skip.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    // A loaded machine may take seconds to start a process or to connect; a correct run takes far less.
    constexpr auto generous = std::chrono::seconds{30};
    constexpr std::size_t buffers = 30;
    constexpr std::size_t matchedAtLeast = 20;

    std::uint64_t checksum(Received const& buffer)
    {
        auto hash = fnv1a(buffer.bytes.data(), buffer.bytes.size());
        for (auto const& channel : buffer.channels)
        {
            hash = fnv1a(channel.data(), channel.size() * sizeof(float), hash);
        }
        return hash;
    }

    // The two domains, the definition file the target creates its flow from, the ticket file it writes, and the two
    // demo processes, connected.
    class FabricLink
    {
    public:
        FabricLink(std::string const& definition, std::string const& flowId)
        {
            setHistory(sending, twoSecondsNs);
            setHistory(receiving, twoSecondsNs);
            auto const definitionFile = (files.path() / "flow.json").string();
            auto const ticketFile = (files.path() / "ticket.json").string();
            std::ofstream{definitionFile} << definition;
            target = std::make_unique<DemoProcess>(std::vector<std::string>{"-d", receiving.str(), "-f", definitionFile, "-p", "tcp", "-n",
                                                                            "127.0.0.1", "-s", "0", "-t", ticketFile});
            REQUIRE_MESSAGE(!target->waitForTicket(generous).empty(), "the target printed no ticket; stderr:\n", target->errors());
            feeder = std::make_unique<FlowFeeder>(sending, definition);
            initiator =
                std::make_unique<DemoProcess>(std::vector<std::string>{"-i", "-d", sending.str(), "-f", flowId, "-t", "@" + ticketFile});
            REQUIRE_MESSAGE(initiator->waitForLine("connected to", generous).has_value(), "the initiator did not connect; stderr:\n",
                            initiator->errors());
        }

        ~FabricLink()
        {
            // SIGTERM, as in normal use; the initiator first, while its target is still there to answer the disconnect
            // (which it would otherwise wait for).
            if (initiator)
            {
                initiator->stop();
            }
            if (target)
            {
                target->stop();
            }
        }

        FabricLink(FabricLink const&) = delete;
        FabricLink& operator=(FabricLink const&) = delete;

        TempDomain sending{"gst-fabric-tx"};
        TempDomain receiving{"gst-fabric-rx"};
        TempDomain files{"gst-fabric-files"};
        std::unique_ptr<DemoProcess> target;
        std::unique_ptr<FlowFeeder> feeder;
        std::unique_ptr<DemoProcess> initiator;
    };

    // One pipeline, two mxlsrc from `start`: "sent" reads the sending domain, "arrived" the receiving one.
    std::string bothEnds(FabricLink const& link, std::string const& flowId, std::uint64_t start, std::string const& extra)
    {
        constexpr auto branch = "mxlsrc domain={} flow-id={} start-index={} num-buffers={} {} ! appsink name={} sync=false";
        return fmt::format(branch, link.sending.str(), flowId, start, buffers, extra, "sent") + " " +
               fmt::format(branch, link.receiving.str(), flowId, start, buffers, extra, "arrived");
    }

    // The sending side's buffers start at `start` and follow each other (`step` indices each); every buffer that arrived
    // for one of those indices has the same checksum, and at least `matchedAtLeast` consecutive ones did.
    void checkSameOnBothEnds(std::vector<Received> const& sent, std::vector<Received> const& arrived, std::uint64_t start,
                             std::uint64_t step)
    {
        REQUIRE(sent.size() == buffers);
        std::map<std::uint64_t, std::uint64_t> sentChecksums;
        for (std::size_t i = 0; i < sent.size(); ++i)
        {
            INFO("sent buffer ", i);
            CHECK(sent[i].offset == start + i * step);
            sentChecksums[sent[i].offset] = checksum(sent[i]);
        }
        // Only the indices both sides read are compared: a grain the initiator had to skip on a loaded machine is
        // missing at the receiving side, reported there as lost, never different.
        std::size_t run = 0;
        std::size_t longestRun = 0;
        for (std::size_t i = 0; i < arrived.size(); ++i)
        {
            auto const& buffer = arrived[i];
            auto const found = sentChecksums.find(buffer.offset);
            if (found == sentChecksums.end())
            {
                run = 0;
                continue;
            }
            INFO("arrived buffer ", i, " at index ", buffer.offset);
            CHECK(checksum(buffer) == found->second);
            run = run > 0 && buffer.offset == arrived[i - 1].offset + step ? run + 1 : 1;
            longestRun = std::max(longestRun, run);
        }
        INFO(arrived.size(), " buffers arrived, ", longestRun, " consecutive ones at indices the sending side read");
        CHECK(longestRun >= matchedAtLeast);
    }
}

namespace
{
    // Runs the pipeline of bothEnds to its end and checks its two ends with checkSameOnBothEnds; returns the sending
    // side's buffers.
    std::vector<Received> receiveOnBothEnds(FabricLink const& link, std::string const& flowId, std::uint64_t start,
                                            std::string const& extra, std::uint64_t step)
    {
        Pipeline pipeline{bothEnds(link, flowId, start, extra)};
        auto& sent = pipeline.collect("sent");
        auto& arrived = pipeline.collect("arrived");
        REQUIRE(pipeline.play() != GST_STATE_CHANGE_FAILURE);
        REQUIRE_MESSAGE(sawEos(pipeline.runUntilEnd(std::chrono::seconds{60})), "initiator stderr:\n", link.initiator->errors(),
                        "\ntarget stderr:\n", link.target->errors());
        auto sentBuffers = sent.received();
        checkSameOnBothEnds(sentBuffers, arrived.received(), start, step);
        return sentBuffers;
    }
}

TEST_CASE("mxlsrc across the fabric: the receiving domain gives the sending domain's grains, index for index")
{
    if (!MXL_GST_FABRICS_DEMO)
    {
        MXL_SKIP("mxl-fabrics-demo is not built (no libfabric)");
    }
    constexpr auto flowId = "e2b7c4d1-8a35-4f6e-9c02-7d1f3b5a9e64";
    constexpr mxlRational rate{50, 1};
    FabricLink link{videoDefinition(flowId, 64, 8, rate), flowId};
    // A second ahead: every grain read is sent after both pipelines and the fabric are up.
    auto const start = mxlGetCurrentIndex(&rate) + 50;
    auto const sentBuffers = receiveOnBothEnds(link, flowId, start, "", 1);
    // The sending side's grains are the writer's: equal checksums are not two empty flows agreeing.
    for (auto const& buffer : sentBuffers)
    {
        INFO("grain ", buffer.offset);
        REQUIRE(buffer.bytes.size() == 256 * 8);
        CHECK(buffer.bytes[100] == grainByte(buffer.offset, 100));
        CHECK(buffer.bytes.back() == grainByte(buffer.offset, buffer.bytes.size() - 1));
    }
}

TEST_CASE("mxlsrc across the fabric: 2-channel audio arrives sample for sample at the same indices")
{
    if (!MXL_GST_FABRICS_DEMO)
    {
        MXL_SKIP("mxl-fabrics-demo is not built (no libfabric)");
    }
    constexpr auto flowId = "5a9d3e72-1c48-4b06-8f2e-a4c7d9b1e350";
    constexpr mxlRational rate{48000, 1};
    constexpr std::uint64_t samplesPerBuffer = 480;
    FabricLink link{audioDefinition(flowId, 2, rate.numerator), flowId};
    auto const start = mxlGetCurrentIndex(&rate) + rate.numerator;
    auto const sentBuffers =
        receiveOnBothEnds(link, flowId, start, fmt::format("samples-per-buffer={}", samplesPerBuffer), samplesPerBuffer);
    for (auto const& buffer : sentBuffers)
    {
        INFO("samples from ", buffer.offset);
        REQUIRE(buffer.channels.size() == 2);
        REQUIRE(buffer.channels[1].size() == samplesPerBuffer);
        CHECK(buffer.channels[1].back() == sampleValue(1, buffer.offset + samplesPerBuffer - 1));
    }
}
