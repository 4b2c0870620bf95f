// Device flows (docs/device-flows.md) for the programs that create a flow's writer: the CUDA ordinal a user gives, merged
// into the writer's flow options, and the flow's payload location as its log lines name it.
#pragma once

#include <mxl/flowinfo.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mxl::client
{
    // Flow options that cannot take the device a user asked for; the message names the options' origin, the key and
    // both values.
    class DeviceOptionsConflict : public std::invalid_argument
    {
    public:
        using std::invalid_argument::invalid_argument;
    };

    // `text` as a CUDA ordinal, a decimal from 0 to 2^31-1 (libmxl's range for "deviceIndex"); nullopt otherwise.
    [[nodiscard]] std::optional<std::int32_t> parseDeviceIndex(std::string_view text) noexcept;

    // `options` (flow options JSON read from `origin`, or empty for none) with "payloadLocation": "device" and
    // "deviceIndex": `deviceIndex`. Options that already name the same location and device are kept as they are.
    // `asker` is how the user asked, for messages ("--device 0"). Throws DeviceOptionsConflict when `options` is not a
    // JSON object or names another location or device.
    [[nodiscard]] std::string withDeviceOptions(std::string const& options, std::string_view origin, std::int32_t deviceIndex,
                                                std::string_view asker);

    // "payloads on CUDA device N" or "payloads in host memory", from the flow's config info (for a device flow, the
    // writer's ordinal).
    [[nodiscard]] std::string payloadLocationText(mxlCommonFlowConfigInfo const& common);
}
