#include "FlowDetail.hpp"

#include "FlowFormatting.hpp"
#include "FlowSnapshot.hpp"
#include "Latency.hpp"
#include "ServiceLines.hpp"
#include "ToolError.hpp"
#include <client/DomainDirectory.hpp>
#include <client/MxlAddress.hpp>

#include <mxl/time.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mxl::tools::info
{
    namespace
    {
        void row(std::string_view name, std::string_view value)
        {
            fmt::print("  {:<18}: {}\n", name, value);
        }

        char const* payloadLocation(std::uint32_t location)
        {
            return location == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY ? "device memory" : "host memory";
        }
    }

    void printFlowDetail(client::Instance const& instance, std::filesystem::path const& domain, std::string const& flowId)
    {
        client::requireFlowDirectory(domain, flowId);
        auto const snapshot = readFlowSnapshot(instance, flowId);
        auto const& info = snapshot.info;
        auto const& common = info.config.common;
        auto const& description = snapshot.description;
        bool const continuous = snapshot.continuous();
        auto const unit = continuous ? "samples" : "slices";

        fmt::print("flow {}\n", flowId);
        row("Label", description.label);
        row("Group hints", fmt::format("{}", fmt::join(description.groupHints, ", ")));
        row("Address", client::formatMxlAddress(domain.string(), {flowId}));
        row("Version", fmt::format("{}", info.version));
        row("Struct size", fmt::format("{} bytes", info.size));
        row("Format", description.mediaType.empty() ? formatDataFormat(common.format)
                                                    : fmt::format("{} ({})", formatDataFormat(common.format), description.mediaType));
        row(continuous ? "Sample rate" : "Grain rate", formatRate(common.grainRate));
        row("Commit batch size", fmt::format("{} {}", common.maxCommitBatchSizeHint, unit));
        row("Sync batch size", fmt::format("{} {}", common.maxSyncBatchSizeHint, unit));
        row("Payload location", payloadLocation(common.payloadLocation));
        row("Device index", fmt::format("{}", common.deviceIndex));
        row("Flags", fmt::format("{:#010x}", common.flags));
        if (continuous)
        {
            row("Channel count", fmt::format("{}", info.config.continuous.channelCount));
            row("Buffer length", fmt::format("{} samples per channel (readable: {})", info.config.continuous.bufferLength,
                                             info.config.continuous.bufferLength / 2));
        }
        else
        {
            row("Grain count", fmt::format("{}", info.config.discrete.grainCount));
            row("Slice sizes", fmt::format("{} bytes", fmt::join(info.config.discrete.sliceSizes, " ")));
        }
        row("Head index", fmt::format("{}", info.runtime.headIndex));
        // Continuous flows never update these times after creation, so they would only mislead.
        if (!continuous)
        {
            auto const now = mxlGetTime();
            row("Last write time", formatTaiTime(info.runtime.lastWriteTime, now));
            row("Last read time", formatTaiTime(info.runtime.lastReadTime, now));
        }
        row("Latency", formatLatency(headLatency(common.grainRate, info.runtime.headIndex, snapshot.nowIndex), continuous));
        row("Active", snapshot.active ? "true" : "false");
        DomainServices const services{domain};
        services.printDetail(flowId);
        services.printWarnings(flowId);
    }
}
