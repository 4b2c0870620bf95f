// <domain>/options.json: settings every flow of a domain shares. Only the history duration exists so far; it is
// domain-wide on purpose (upstream issue #27), because flows with different depths cannot be aligned by readers.
#include "common/Log.hpp"

#include "common/BoundedFile.hpp"
#include "common/BoundedJson.hpp"
#include "flow/FlowDefinition.hpp"
#include "flow/JsonFields.hpp"

#include <filesystem>
#include <limits>

namespace mxl
{
    namespace
    {
        constexpr char const* historyDurationKey = "urn:x-mxl:option:history_duration/v1.0";

        // nullopt with the reason in `problem` when the file is unusable; the default when it says nothing.
        std::optional<std::uint64_t> historyFromFile(std::filesystem::path const& file, std::string& problem)
        {
            std::string text;
            try
            {
                text = readBoundedFile(file);
            }
            catch (FileReadError const& error)
            {
                problem = fmt::format("cannot be read ({})", error.what());
                return std::nullopt;
            }
            auto const options = mxl::parseJsonOrDiscarded(text);
            if (options.is_discarded() || !options.is_object())
            {
                problem = "is not a JSON object";
                return std::nullopt;
            }
            auto const it = options.find(historyDurationKey);
            if (it == options.end())
            {
                return defaultHistoryDurationNs;
            }
            auto const historyNs = jsonIntegerIn(*it, 1, std::numeric_limits<std::int64_t>::max());
            if (!historyNs)
            {
                problem = fmt::format("has \"{}\" = {}; expected a positive integer of nanoseconds", historyDurationKey, quoteJson(*it));
                return std::nullopt;
            }
            return static_cast<std::uint64_t>(*historyNs);
        }
    }

    std::uint64_t readHistoryDurationNs(std::string const& domainPath)
    {
        auto const file = std::filesystem::path{domainPath} / "options.json";
        std::error_code error;
        if (!std::filesystem::exists(file, error))
        {
            return defaultHistoryDurationNs;
        }
        std::string problem;
        if (auto const historyNs = historyFromFile(file, problem))
        {
            return *historyNs;
        }
        log::error("domain options {} {}; using the default history duration of {} ns", file.string(), problem, defaultHistoryDurationNs);
        return defaultHistoryDurationNs;
    }
}
