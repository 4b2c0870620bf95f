// The demo's command line.
#pragma once

#include <SigningKeys.hpp>

#include <chrono>

#include "GroupSelection.hpp"

#include <mxl/fabrics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::demo
{
    struct DemoOptions
    {
        std::string domain;
        // Target: path of the NMOS flow definition. Initiator: the flow id. The first of `flows`.
        std::string flow;
        // Every -f: several flows of one source, each moved over its own fabric endpoint (see SourceRun.hpp).
        std::vector<std::string> flows;
        // -g: the NMOS group whose flows `flows` holds, in group order (target: its -f files reordered; initiator:
        // the domain's flows of that group), and what each member is.
        std::string group;
        std::vector<GroupMember> groupMembers;
        // Target only: writer options JSON file, and its text.
        std::string flowOptionsFile;
        std::string flowOptions;
        // Target only, --device: video and data flows are created with their payloads on this CUDA device, with
        // `deviceFlowOptions` (flowOptions with payloadLocation and deviceIndex merged in); audio stays in host memory.
        std::optional<std::int32_t> deviceIndex;
        std::string deviceFlowOptions;
        bool initiator = false;
        std::string node;
        // Target: --path, the node of each redundant path (none: a plain target; otherwise exactly two).
        std::vector<std::string> paths;
        std::string service;
        // ANY: choose automatically (efa > verbs > tcp > shm; the initiator follows its ticket's provider).
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        // The fabrics backend (transport) both ends use: libmxl-fabrics-<backend>.so.
        std::string backend;
        // Target: none, or one file per flow to write its ticket JSON to. Initiator with one flow: one ticket per target;
        // with several flows: one ticket per flow, in -f order.
        std::vector<std::string> targetInfo;
        // Grains to move before stopping; 0 = until SIGINT/SIGTERM.
        std::uint64_t count = 0;
        // Initiator: how long the targets may take to accept the connection.
        double connectTimeoutSeconds = 10.0;
        // Target: sign tickets with the current key; initiator: accept only tickets signed with these keys.
        std::optional<signing::SigningKeys> ticketKeys;
        // Target (tcp, verbs): the only initiators it accepts connections from; empty: any.
        std::vector<std::string> allowInitiators;
        // --ticket-proof: the target refuses connection requests that do not prove the ticket key; the initiator proves it.
        bool ticketProof = false;
        std::string ticketKeyFile;
        // Target, with a key: how long a signed ticket is valid.
        std::chrono::seconds ticketLifetime{3600};
    };

    // Parses argv. Returns nullopt after printing the help (--help); throws ToolError(Usage) on a bad command line.
    std::optional<DemoOptions> parseDemoOptions(int argc, char** argv);
}
