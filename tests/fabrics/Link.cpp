#include "Link.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>

using namespace std::chrono_literals;

namespace mxl::test::fabrics
{
    std::string uniqueShmName(char const* role)
    {
        static std::atomic<unsigned> counter{0};
        return "mxltest-" + std::string{role} + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    }

    Transport tcpLoopback()
    {
        return {"tcp 127.0.0.1", MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"};
    }

    Transport shmTransport()
    {
        return {"shm", MXL_FABRICS_PROVIDER_SHM, uniqueShmName("target"), ""};
    }

    std::vector<Transport> transports()
    {
        std::vector<Transport> result{tcpLoopback()};
        if (hasIpv6Loopback())
        {
            result.push_back({"tcp ::1", MXL_FABRICS_PROVIDER_TCP, "::1", "::1"});
        }
        else
        {
            MESSAGE("no IPv6 loopback on this host: tcp over ::1 not tested");
        }
        result.push_back(shmTransport());
        return result;
    }

    LinkEnds::LinkEnds(Transport const& transport, std::string const& flowFile, std::string const& tag,
                       std::optional<std::uint64_t> sourceHistoryNs, std::optional<std::uint64_t> targetHistoryNs,
                       FlowOptions const& options)
        : sourceDomain{tag + "-src", sourceHistoryNs}
        , targetDomain{tag + "-dst", targetHistoryNs}
        , source{sourceDomain, flowDefinition(flowFile), options.source}
        , destination{targetDomain, flowDefinition(flowFile), options.destination}
        , target{targetDomain, destination, interfaceConfig(transport.provider, transport.targetNode.c_str(), nullptr), options.targetSetup}
        , initiator{
              sourceDomain, source,
              interfaceConfig(transport.provider, transport.initiatorNode.empty() ? nullptr : transport.initiatorNode.c_str(), nullptr),
              options.initiatorSetup}
    {
    }

    Link::Link(Transport const& transport, std::string const& flowFile, std::optional<std::uint64_t> sourceHistoryNs,
               std::optional<std::uint64_t> targetHistoryNs, FlowOptions const& options)
        : LinkEnds{transport, flowFile, "fab", sourceHistoryNs, targetHistoryNs, options}
    {
        REQUIRE(target.setupStatus == MXL_STATUS_OK);
        REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, target.ticket) == MXL_STATUS_OK);
        REQUIRE(settle(initiator, {&target}, 5s) == MXL_STATUS_OK);
        CHECK(initiator.state(target) == MXL_FABRICS_TARGET_CONNECTED);
    }

    void Link::transfer(std::uint64_t index, std::uint16_t start, std::uint16_t end)
    {
        REQUIRE(mxlFabricsInitiatorTransferGrain(initiator.initiator, index, start, end) == MXL_STATUS_OK);
        auto const arrived = receive(initiator, target, 5s);
        REQUIRE(arrived.has_value());
        CHECK(*arrived == index);
        REQUIRE(settle(initiator, {&target}, 5s) == MXL_STATUS_OK);
    }
}
