// The flow side of the GStreamer tests, written against the C API only: definitions of small flows, a domain with a
// long history, an independent reader of what mxlsink wrote, and a writer that feeds mxlsrc in real time.
#pragma once

#include "GstHarness.hpp"
#include "TempDomain.hpp"

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <cstdint>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace mxl::test::gst
{
    std::string videoDefinition(std::string const& id, std::uint32_t width, std::uint32_t height, mxlRational rate,
                                char const* mediaType = "video/v210");
    std::string audioDefinition(std::string const& id, std::uint32_t channels, std::int64_t rate);
    std::string dataDefinition(std::string const& id, mxlRational rate);

    // A history that holds every grain a test writes before its reader starts.
    constexpr std::uint64_t twoSecondsNs = 2'000'000'000;
    // A history for the sink tests, which read a whole pipeline's grains after it stopped.
    constexpr std::uint64_t tenSecondsNs = 10'000'000'000;

    // A domain whose flows keep `historyNs` of grains: enough for a whole test pipeline to be read after it ran.
    void setHistory(TempDomain const& domain, std::uint64_t historyNs);

    // `source` (a pipeline description up to its caps) handed by a tee to mxlsink "sink" (with `sinkProperties`), which
    // writes flow `flowId` in `domain`, and to the appsink "reference", which keeps what the sink was given.
    std::string teeIntoSinkAndReference(std::string const& source, TempDomain const& domain, std::string const& flowId,
                                        std::string const& sinkProperties);

    // The payload byte at `offset` of grain `index`, and the sample of `channel` at `index`, as FlowFeeder writes them.
    std::uint8_t grainByte(std::uint64_t index, std::size_t offset);
    float sampleValue(std::uint32_t channel, std::uint64_t index);

    // How many bytes of a buffer holding grain `index` differ from what FlowFeeder wrote there.
    std::size_t wrongGrainBytes(std::vector<std::uint8_t> const& bytes, std::uint64_t index);

    // Checks that each of `received` is a whole grain of `grainBytes` bytes, as FlowFeeder wrote it at its index.
    void checkFedGrains(std::vector<Received> const& received, std::size_t grainBytes);
    // How many samples of `channels`, each starting at sample `firstIndex`, differ from what FlowFeeder wrote; each channel
    // must hold `samples` (all of a channel of another length count as wrong).
    std::size_t wrongSamples(std::vector<std::vector<float>> const& channels, std::uint64_t firstIndex, std::size_t samples);

    // The RFC 8331 payload of data grain `index`, as FlowFeeder writes it (the rest of the grain zero), made with
    // lib/patterns' generators: the grain's time code packet and a packet whose length changes with the index.
    std::vector<std::uint8_t> dataPayload(std::uint64_t index, mxlRational rate);

    // An instance and a reader of its own on a flow another party writes.
    class FlowProbe
    {
    public:
        FlowProbe(TempDomain const& domain, std::string const& flowId);

        [[nodiscard]] std::uint64_t head() const;
        [[nodiscard]] mxlFlowConfigInfo config() const;

        // The grain's payload; REQUIREs that it is readable (waiting up to `timeoutNs`) and not flagged invalid.
        std::vector<std::uint8_t> grain(std::uint64_t index, std::uint64_t timeoutNs = 0) const;

        // The MXL_GRAIN_FLAG_* of a grain; REQUIREs that it is readable.
        std::uint32_t flags(std::uint64_t index) const;

        // `count` samples ending at `lastIndex`, one vector per channel.
        std::vector<std::vector<float>> samples(std::uint64_t lastIndex, std::size_t count) const;

    private:
        client::Instance _instance;
        client::FlowReader _reader;
    };

    // The RFC 8331 payload FlowFeeder writes into data grain `index` of a flow of grain rate `rate`.
    using DataPayload = std::vector<std::uint8_t> (*)(std::uint64_t index, mxlRational rate);

    // Writes a flow in real time on a thread of its own: each grain (grainByte; data: `payload`, dataPayload unless told)
    // at its index's time, or each batch of samples (sampleValue) at the time of its last sample, until destroyed.
    // `invalidEvery` N > 0 flags every grain whose index is a multiple of N invalid.
    class FlowFeeder
    {
    public:
        FlowFeeder(TempDomain const& domain, std::string const& definition, std::uint64_t invalidEvery = 0,
                   DataPayload payload = dataPayload);

        FlowFeeder(FlowFeeder const&) = delete;
        FlowFeeder& operator=(FlowFeeder const&) = delete;

        [[nodiscard]] mxlFlowConfigInfo const& config() const noexcept
        {
            return _writer.config();
        }

    private:
        client::Instance _instance;
        client::FlowWriter _writer;
        std::uint64_t _invalidEvery;
        DataPayload _dataPayload;
        std::jthread _thread;

        void writeGrains(std::stop_token const& stop);
        void fillGrain(std::uint64_t index, std::uint8_t* payload, std::size_t size) const;
        void writeSamples(std::stop_token const& stop);
    };
}
