#include "GroupSelection.hpp"

#include <ToolError.hpp>
#include <client/DomainDirectory.hpp>
#include <client/FlowDescription.hpp>
#include <client/TextFile.hpp>

#include <common/FlowPaths.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <tuple>

namespace mxl::demo
{
    namespace
    {
        int kindRank(std::string const& format)
        {
            if (format == "urn:x-nmos:format:video")
            {
                return 0;
            }
            return format == "urn:x-nmos:format:audio" ? 1 : 2;
        }

        // The role under `group` among a definition's hints; nullopt when none names the group.
        std::optional<std::string> roleIn(client::FlowDescription const& description, std::string const& group)
        {
            for (auto const& text : description.groupHints)
            {
                if (auto const hint = client::parseGroupHint(text); hint && hint->group == group)
                {
                    return hint->role;
                }
            }
            return std::nullopt;
        }
    }

    std::vector<GroupMember> inGroupOrder(std::vector<GroupMember> members)
    {
        std::sort(members.begin(), members.end(),
                  [](GroupMember const& a, GroupMember const& b) {
                      return std::tuple{kindRank(a.format), a.role, a.flowId} < std::tuple{kindRank(b.format), b.role, b.flowId};
                  });
        return members;
    }

    std::vector<GroupMember> groupFlowsInDomain(std::string const& domain, std::string const& group)
    {
        std::vector<GroupMember> members;
        std::set<std::string> groups;
        for (auto const& flowId : client::listFlowIds(domain))
        {
            // A flow deleted between the listing and the read is simply not part of the group.
            std::error_code missing;
            auto const path = paths::flowDefinitionFile(paths::flowDirectory(domain, flowId));
            if (!std::filesystem::exists(path, missing))
            {
                continue;
            }
            auto const description = client::tryParseFlowDescription(client::readTextFile(path, "flow definition"));
            if (!description)
            {
                continue;
            }
            for (auto const& text : description->groupHints)
            {
                if (auto const hint = client::parseGroupHint(text))
                {
                    groups.insert(hint->group);
                }
            }
            if (auto const role = roleIn(*description, group))
            {
                members.push_back(GroupMember{flowId, description->format, *role, flowId});
            }
        }
        if (members.empty())
        {
            tools::badInput("no flow in domain '{}' has a grouphint of group '{}' (groups there: {})", domain, group,
                            groups.empty() ? std::string{"none"} : fmt::format("'{}'", fmt::join(groups, "', '")));
        }
        return inGroupOrder(std::move(members));
    }

    std::vector<GroupMember> groupDefinitions(std::vector<std::string> const& files, std::string const& group)
    {
        std::vector<GroupMember> members;
        for (auto const& file : files)
        {
            auto const description = client::parseFlowDescription(client::readTextFile(file, "flow definition"), file);
            auto const role = roleIn(description, group);
            if (!role)
            {
                tools::badInput("flow definition '{}': its grouphint ({}) does not name group '{}'", file,
                                description.groupHints.empty() ? std::string{"none"}
                                                               : fmt::format("'{}'", fmt::join(description.groupHints, "', '")),
                                group);
            }
            members.push_back(GroupMember{description.id, description.format, *role, file});
        }
        return inGroupOrder(std::move(members));
    }
}
