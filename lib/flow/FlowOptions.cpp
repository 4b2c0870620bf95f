// Writer options (spec §2.8). Unknown keys are ignored so that options meant for newer versions do not break us.
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
    }

    FlowOptions parseFlowOptions(char const* text)
    {
        if (text == nullptr || *text == '\0')
        {
            return {};
        }
        json options;
        try
        {
            options = json::parse(text);
        }
        // json::exception, not only parse_error: a number too large for a double (8e424) is an out_of_range.
        catch (json::exception const& e)
        {
            fail(MXL_ERR_UNKNOWN, "flow options: the text is not valid JSON ({})", describeParseError(e));
        }
        if (!options.is_object())
        {
            fail(MXL_ERR_UNKNOWN, "flow options: the root must be a JSON object, got {}", options.type_name());
        }
        FlowOptions result{readHint(options, "maxCommitBatchSizeHint"), readHint(options, "maxSyncBatchSizeHint")};
        // Readers are woken at sync boundaries, which only fall on commit boundaries when sync is a whole number of commits.
        if (result.maxSyncBatchSizeHint && *result.maxSyncBatchSizeHint % result.maxCommitBatchSizeHint.value_or(1) != 0)
        {
            fail(MXL_ERR_UNKNOWN, "flow options: \"maxSyncBatchSizeHint\" must be a multiple of \"maxCommitBatchSizeHint\" ({}), got {}",
                 *result.maxCommitBatchSizeHint, *result.maxSyncBatchSizeHint);
        }
        return result;
    }
}
