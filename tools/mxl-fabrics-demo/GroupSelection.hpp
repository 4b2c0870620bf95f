// A source's flows chosen by NMOS group hint ("<group>:<role>[:<scope>]", tag urn:x-nmos:tag:grouphint/v1.0): every
// flow with a hint of that group, in group order (video, then audio, then data; each kind by role, then by flow id),
// so that a target and an initiator given the same group pair their flows, and so their tickets, the same way.
#pragma once

#include <string>
#include <vector>

namespace mxl::demo
{
    struct GroupMember
    {
        std::string flowId;
        // "urn:x-nmos:format:video", "...:audio", "...:data".
        std::string format;
        std::string role;
        // Target: the definition file; initiator: the flow id.
        std::string origin;
    };

    // `members` sorted into group order.
    std::vector<GroupMember> inGroupOrder(std::vector<GroupMember> members);

    // Initiator: the flows of `domain` whose definitions name `group`, in group order. Throws ToolError(Usage) when
    // there is none (naming the groups the domain has).
    std::vector<GroupMember> groupFlowsInDomain(std::string const& domain, std::string const& group);

    // Target: the definition files, in group order. Throws ToolError(Usage) naming a file that is unreadable or does
    // not belong to `group`.
    std::vector<GroupMember> groupDefinitions(std::vector<std::string> const& files, std::string const& group);
}
