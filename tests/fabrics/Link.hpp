// One source flow and one target flow in their own domains, over a transport, with a set-up target and an initiator
// connected to it: the fixture of the in-process transfer tests.
#pragma once

#include "FabricsHarness.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test::fabrics
{
    struct Transport
    {
        char const* label;
        mxlFabricsProvider provider;
        std::string targetNode;
        std::string initiatorNode;
    };

    // A shm endpoint name no other test process uses.
    std::string uniqueShmName(char const* role);

    // tcp over 127.0.0.1 at both ends.
    Transport tcpLoopback();

    // shm, the target at an endpoint name of its own.
    Transport shmTransport();

    // tcp over 127.0.0.1 (and ::1 where the host has it) and shm.
    std::vector<Transport> transports();

    // The writers' flow options of the two ends (e.g. payloads in device memory), and the target's setup options; none
    // where null.
    struct FlowOptions
    {
        char const* source = nullptr;
        char const* destination = nullptr;
        char const* targetSetup = nullptr;
        char const* initiatorSetup = nullptr;
    };

    // The two flows in their own domains (tagged `tag`-src and `tag`-dst), a set-up target and an initiator that has not
    // been given the target yet: what the transfer and the event fixtures share before they connect in their own ways.
    struct LinkEnds
    {
        LinkEnds(Transport const& transport, std::string const& flowFile, std::string const& tag,
                 std::optional<std::uint64_t> sourceHistoryNs, std::optional<std::uint64_t> targetHistoryNs,
                 FlowOptions const& options = {});

        FlowDomain sourceDomain;
        FlowDomain targetDomain;
        Flow source;
        Flow destination;
        TargetEnd target;
        InitiatorEnd initiator;
    };

    // The ends of a 1080p59.94 v210 flow over tcp on 127.0.0.1, in domains tagged `tag`, not yet connected.
    struct LoopbackEnds : LinkEnds
    {
        explicit LoopbackEnds(std::string const& tag)
            : LinkEnds{tcpLoopback(), "v210_1080p59.94.json", tag, std::nullopt, std::nullopt}
        {
        }
    };

    struct Link : LinkEnds
    {
        Link(Transport const& transport, std::string const& flowFile, std::optional<std::uint64_t> sourceHistoryNs = std::nullopt,
             std::optional<std::uint64_t> targetHistoryNs = std::nullopt, FlowOptions const& options = {});

        // Transfers [start, end) of `index` and waits until the target published it.
        void transfer(std::uint64_t index, std::uint16_t start, std::uint16_t end);
    };
}
