// One flow a test source writes: its writer, the task that paces it and its counters. The openers read and check
// the flow definition file and create (or join) the flow.
#pragma once

#include "ScheduledTask.hpp"
#include "WriterStats.hpp"
#include <client/MxlHandles.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace mxl::patterns
{
    struct SourceSettings
    {
        // Flow options JSON for mxlCreateFlowWriter; empty for none.
        std::string flowOptions;
        // Grains (video, data) or sample batches (audio) to write; 0 until stopped.
        std::uint64_t count = 0;
        // Video lines per commit; nullopt uses the flow's maxCommitBatchSizeHint.
        std::optional<std::uint32_t> slicesPerCommit;
        // Video: each ring slot painted once (PrerenderedRing.hpp); audio: samples copied from one tone period.
        bool prerendered = false;
        // Replaces the definitions' grouphint tag with "<name>:video", "<name>:audio", "<name>:data".
        std::optional<std::string> groupHint;
        // Video and data payloads on this CUDA device (flow options payloadLocation and deviceIndex); audio stays in host
        // memory, where libmxl keeps every continuous flow.
        std::optional<std::int32_t> deviceIndex;
    };

    struct FlowSource
    {
        // Canonical flow id and media type ("video/v210", "audio/float32", ...).
        std::string id;
        std::string mediaType;
        std::unique_ptr<client::FlowWriter> writer;
        WriterStats stats;
        std::unique_ptr<ScheduledTask> task;
    };

    // video/v210 or video/v210a colour bars.
    std::unique_ptr<FlowSource> openVideoSource(client::Instance const& instance, std::filesystem::path const& definitionFile,
                                                SourceSettings const& settings);

    // Float sine tones, one frequency per channel.
    std::unique_ptr<FlowSource> openAudioSource(client::Instance const& instance, std::filesystem::path const& definitionFile,
                                                SourceSettings const& settings);

    // video/smpte291 time code packets.
    std::unique_ptr<FlowSource> openDataSource(client::Instance const& instance, std::filesystem::path const& definitionFile,
                                               SourceSettings const& settings);
}
