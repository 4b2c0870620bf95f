#include "DeviceFlowOptions.hpp"

#include <common/BoundedJson.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>

namespace mxl::client
{
    std::optional<std::int32_t> parseDeviceIndex(std::string_view text) noexcept
    {
        // from_chars takes a leading '-', which a CUDA ordinal never has; a '+' or blanks it refuses itself.
        if (text.empty() || text.front() == '-')
        {
            return std::nullopt;
        }
        std::int32_t index = 0;
        auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
        if (error != std::errc{} || end != text.data() + text.size())
        {
            return std::nullopt;
        }
        return index;
    }

    std::string withDeviceOptions(std::string const& options, std::string_view origin, std::int32_t deviceIndex, std::string_view asker)
    {
        auto merged = options.empty() ? nlohmann::json::object() : mxl::parseJsonOrDiscarded(options);
        if (!merged.is_object())
        {
            throw DeviceOptionsConflict{fmt::format("{} does not hold a JSON object, so {} cannot be added to it", origin, asker)};
        }
        auto const wanted = nlohmann::json{{"payloadLocation", "device"}, {"deviceIndex", deviceIndex}};
        for (auto const& [key, value] : wanted.items())
        {
            if (auto const given = merged.find(key); given != merged.end() && *given != value)
            {
                throw DeviceOptionsConflict{
                    fmt::format("{} has \"{}\": {}, but {} asks for \"{}\": {}", origin, key, given->dump(), asker, key, value.dump())};
            }
            merged[key] = value;
        }
        return merged.dump();
    }

    std::string payloadLocationText(mxlCommonFlowConfigInfo const& common)
    {
        if (common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY)
        {
            return fmt::format("payloads on CUDA device {}", common.deviceIndex);
        }
        return "payloads in host memory";
    }
}
