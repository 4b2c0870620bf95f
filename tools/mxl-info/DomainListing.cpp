#include "DomainListing.hpp"

#include <common/BoundedFile.hpp>

#include <common/BoundedJson.hpp>

#include "AudioPicture.hpp"
#include "AudioSamples.hpp"
#include "FlowFormatting.hpp"
#include "FlowSnapshot.hpp"
#include "Latency.hpp"
#include "LevelMeter.hpp"
#include "ServiceLines.hpp"
#include "ToolError.hpp"
#include "common/StatusName.hpp"
#include <client/DomainDirectory.hpp>
#include <client/MxlAddress.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <variant>

namespace mxl::tools::info
{
    namespace
    {
        constexpr char const* noGroup = "(no grouphint)";

        struct Entry
        {
            std::string id;
            std::string group;
            std::string role;
            // The snapshot, or why the flow could not be read (it may have been deleted since the directory was read).
            std::variant<FlowSnapshot, std::string> content;
        };

        void printDomainDefinition(std::filesystem::path const& domain)
        {
            std::string text;
            try
            {
                text = readBoundedFile(domain / "domain_def.json");
            }
            catch (FileReadError const&)
            {
                return;
            }
            auto const definition = mxl::parseJsonOrDiscarded(text);
            if (!definition.is_object())
            {
                fmt::print("  domain_def.json is not a JSON object\n");
                return;
            }
            for (auto const* key : {"id", "label", "description"})
            {
                if (auto const it = definition.find(key); it != definition.end() && it->is_string())
                {
                    fmt::print("  {:<12} {}\n", fmt::format("{}:", key), it->get<std::string>());
                }
            }
        }

        Entry readEntry(client::Instance const& instance, std::string const& id)
        {
            try
            {
                auto snapshot = readFlowSnapshot(instance, id);
                auto const& hints = snapshot.description.groupHints;
                auto const hint = hints.empty() ? std::nullopt : client::parseGroupHint(hints.front());
                auto group = hint && !hint->group.empty() ? hint->group : std::string{noGroup};
                return Entry{id, std::move(group), hint ? hint->role : std::string{}, std::move(snapshot)};
            }
            catch (ToolError const& error)
            {
                return Entry{id, noGroup, {}, std::string{error.what()}};
            }
        }

        // The meter of the last levelWindowSeconds of an audio flow, read without waiting.
        std::string levelLine(client::Instance const& instance, FlowSnapshot const& snapshot)
        {
            client::FlowReader const reader{instance, snapshot.id};
            auto const& rate = snapshot.info.config.common.grainRate;
            auto const window =
                static_cast<double>(rate.numerator) / static_cast<double>(std::max<std::int64_t>(rate.denominator, 1)) * levelWindowSeconds;
            auto const range = recentRange(reader.get(), snapshot.id, static_cast<std::size_t>(window));
            mxlStatus status = MXL_STATUS_OK;
            auto const channels = copySamples(reader.get(), range, 0, status);
            if (status != MXL_STATUS_OK)
            {
                return fmt::format("level unavailable ({})", statusName(status));
            }
            std::vector<float> peaks;
            for (auto const& samples : channels)
            {
                peaks.push_back(peakOf(samples));
            }
            return formatLevelMeter(peaks);
        }

        void printEntry(client::Instance const& instance, Entry const& entry, std::set<std::string>& rolesSeen,
                        DomainServices const& services, bool withLevels)
        {
            auto const role = entry.role.empty() ? std::string{"(no role)"} : entry.role;
            auto const duplicate = !entry.role.empty() && !rolesSeen.insert(entry.role).second ? "  (duplicate role)" : "";
            if (auto const* error = std::get_if<std::string>(&entry.content))
            {
                fmt::print("  {} : {} - unreadable: {}\n", role, entry.id, *error);
                services.printListLines(entry.id);
                return;
            }
            auto const& snapshot = std::get<FlowSnapshot>(entry.content);
            auto const& common = snapshot.info.config.common;
            auto const mediaType =
                snapshot.description.mediaType.empty() ? formatDataFormat(common.format) : snapshot.description.mediaType;
            auto const latency = headLatency(common.grainRate, snapshot.info.runtime.headIndex, snapshot.nowIndex);
            fmt::print("  {} : {} - {}{}\n", role, entry.id, snapshot.description.label, duplicate);
            fmt::print("      format {}, rate {}, head {}, active {}, latency {}\n", mediaType, formatRate(common.grainRate),
                       snapshot.info.runtime.headIndex, snapshot.active, formatLatency(latency, snapshot.continuous()));
            if (withLevels && snapshot.continuous())
            {
                fmt::print("      {}\n", levelLine(instance, snapshot));
            }
            services.printListLines(entry.id);
        }
    }

    void printDomainListing(client::Instance const& instance, std::filesystem::path const& domain, bool withLevels)
    {
        fmt::print("domain {}\n", domain.string());
        printDomainDefinition(domain);

        DomainServices const services{domain};
        std::map<std::string, std::vector<Entry>> groups;
        auto const ids = client::listFlowIds(domain);
        for (auto const& id : ids)
        {
            auto entry = readEntry(instance, id);
            auto& members = groups[entry.group];
            members.push_back(std::move(entry));
        }
        if (ids.empty())
        {
            fmt::print("no flows\n");
        }
        for (auto const& [group, entries] : groups)
        {
            std::vector<std::string> groupIds;
            for (auto const& entry : entries)
            {
                groupIds.push_back(entry.id);
            }
            fmt::print("\ngroup {}: {}\n", group, client::formatMxlAddress(domain.string(), groupIds));
            std::set<std::string> rolesSeen;
            for (auto const& entry : entries)
            {
                printEntry(instance, entry, rolesSeen, services, withLevels);
            }
        }
        services.printOthers(std::set<std::string>{ids.begin(), ids.end()});
        services.printWarnings();
    }
}
