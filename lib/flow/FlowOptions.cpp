// Writer options (the SDK's maxCommitBatchSizeHint and maxSyncBatchSizeHint, and our payloadLocation/deviceIndex:
// docs/device-flows.md). Unknown keys are ignored so that options meant for newer versions do not break us.
#include "common/Status.hpp"
#include "flow/FlowDefinition.hpp"
#include "flow/JsonFields.hpp"

#include <limits>

namespace mxl
{
    namespace
    {
        using nlohmann::json;

        std::optional<std::uint32_t> readHint(json const& options, char const* key)
        {
            auto const it = options.find(key);
            if (it == options.end())
            {
                return std::nullopt;
            }
            auto const hint = jsonIntegerIn(*it, 1, std::numeric_limits<std::uint32_t>::max());
            if (!hint)
            {
                fail(MXL_ERR_UNKNOWN, "flow options: \"{}\" must be an integer from 1 to 4294967295, got {}", key, quoteJson(*it));
            }
            return static_cast<std::uint32_t>(*hint);
        }

        // "payloadLocation" is "host" (the default) or "device"; "deviceIndex" (0 to 2^31-1) goes with "device" only.
        std::optional<std::int32_t> readDeviceIndex(json const& options)
        {
            auto const location = options.find("payloadLocation");
            auto const index = options.find("deviceIndex");
            auto const onDevice = location != options.end() && *location == "device";
            if (location != options.end() && !onDevice && *location != "host")
            {
                fail(MXL_ERR_UNKNOWN, "flow options: \"payloadLocation\" must be \"host\" or \"device\", got {}", quoteJson(*location));
            }
            if (!onDevice)
            {
                if (index != options.end())
                {
                    fail(MXL_ERR_UNKNOWN, "flow options: \"deviceIndex\" ({}) needs \"payloadLocation\": \"device\"", quoteJson(*index));
                }
                return std::nullopt;
            }
            if (index == options.end())
            {
                fail(MXL_ERR_UNKNOWN, "flow options: \"payloadLocation\": \"device\" needs \"deviceIndex\", a CUDA device ordinal from 0");
            }
            auto const device = jsonIntegerIn(*index, 0, std::numeric_limits<std::int32_t>::max());
            if (!device)
            {
                fail(MXL_ERR_UNKNOWN, "flow options: \"deviceIndex\" must be an integer from 0 to 2147483647, got {}", quoteJson(*index));
            }
            return static_cast<std::int32_t>(*device);
        }
    }

    FlowOptions parseFlowOptions(char const* text)
    {
        if (text == nullptr || *text == '\0')
        {
            return {};
        }
        auto parsed = parseBoundedJson(text);
        if (!parsed.ok())
        {
            fail(MXL_ERR_UNKNOWN, "flow options: the text is not valid JSON ({})", parsed.problem);
        }
        auto options = std::move(parsed.value);
        if (!options.is_object())
        {
            fail(MXL_ERR_UNKNOWN, "flow options: the root must be a JSON object, got {}", options.type_name());
        }
        FlowOptions result{readHint(options, "maxCommitBatchSizeHint"), readHint(options, "maxSyncBatchSizeHint"),
                           readDeviceIndex(options)};
        // Readers are woken at sync boundaries, which only fall on commit boundaries when sync is a whole number of commits.
        if (result.maxSyncBatchSizeHint && *result.maxSyncBatchSizeHint % result.maxCommitBatchSizeHint.value_or(1) != 0)
        {
            fail(MXL_ERR_UNKNOWN, "flow options: \"maxSyncBatchSizeHint\" must be a multiple of \"maxCommitBatchSizeHint\" ({}), got {}",
                 *result.maxCommitBatchSizeHint, *result.maxSyncBatchSizeHint);
        }
        return result;
    }
}
