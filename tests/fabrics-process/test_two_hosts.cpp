// Two "hosts": target and initiator in two network namespaces joined by a veth pair (198.51.100.1/25 and .2/25),
// over tcp. The domains stay on the shared /dev/shm, so the test reads both ends directly.
#include "FlowChecker.hpp"
#include "NetworkNamespaces.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "Skip.hpp"
#include "TestFlows.hpp"
#include "Transports.hpp"

#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <chrono>

namespace mxl::test
{
    namespace
    {
        // An initiator in the second namespace moves `grains` intact into `target`, in the first; then both stop cleanly.
        void moveFromSecondHost(NetworkNamespaces const& namespaces, PatternSource const& source, std::string const& sourceDomain,
                                std::string const& targetDomain, RunningTarget& target, std::uint64_t grains)
        {
            auto initiator = startInitiator(sourceDomain, source.flowId(), {target.ticket}, {"-n", NetworkNamespaces::secondAddress},
                                            namespaces.inSecond());
            FlowChecker checker{targetDomain, source.flowId()};
            checkIntact(checker.check(source, grains, std::chrono::seconds{60}), grains, *initiator, "from the second host");
            stopCleanly(*initiator, "initiator");
            stopCleanly(*target.process, "target");
        }
    }

    TEST_CASE("tcp between two network namespaces over a veth pair")
    {
        std::string whyNot;
        auto namespaces = NetworkNamespaces::create(whyNot);
        if (!namespaces)
        {
            MXL_SKIP(whyNot.c_str());
        }
        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        PatternSource source{sourceDomain.str(), testFlow(smallV210)};
        auto target = startTarget(targetDomain.str(), testFlow(smallV210).string(),
                                  {"-p", "tcp", "-n", NetworkNamespaces::firstAddress, "-s", "0"}, namespaces->inFirst());
        moveFromSecondHost(*namespaces, source, sourceDomain.str(), targetDomain.str(), target, 300);
    }

    TEST_CASE("tcp between two network namespaces: a target with allowed initiators takes the allowed host and refuses another")
    {
        if (demoBackend() != "ofi")
        {
            MXL_SKIP("a ucx target receives no connection requests to screen, and refuses --allow-initiators at setup "
                     "(tests/fabrics: \"admission: ...\")");
        }
        std::string whyNot;
        auto namespaces = NetworkNamespaces::create(whyNot);
        if (!namespaces)
        {
            MXL_SKIP(whyNot.c_str());
        }
        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        PatternSource source{sourceDomain.str(), testFlow(smallV210)};
        auto target = startTarget(targetDomain.str(), testFlow(smallV210).string(),
                                  {"-p", "tcp", "-n", NetworkNamespaces::firstAddress, "-s", "0", "--allow-initiators",
                                   fmt::format("{}/32", NetworkNamespaces::secondAddress)},
                                  namespaces->inFirst());

        // From the target's own host (198.51.100.1): refused at every attempt until its connect timeout.
        DemoProcess refused{{"-i", "-d", sourceDomain.str(), "-f", source.flowId(), "-t", target.ticket, "-n",
                             NetworkNamespaces::firstAddress, "--connect-timeout", "3"},
                            namespaces->inFirst()};
        auto const refusedStatus = refused.wait(std::chrono::seconds{60});
        INFO("refused initiator stderr:\n", refused.errors());
        REQUIRE(refusedStatus.has_value());
        CHECK(*refusedStatus != 0);
        CHECK(refused.errors().find("Connection refused") != std::string::npos);
        CHECK(refused.errors().find("connected to") == std::string::npos);

        moveFromSecondHost(*namespaces, source, sourceDomain.str(), targetDomain.str(), target, 200);

        auto const log = target.process->errors();
        INFO("target stderr:\n", log);
        auto const line = fmt::format("refused the connection of {}: not in allowInitiators ({}/32)", NetworkNamespaces::firstAddress,
                                      NetworkNamespaces::secondAddress);
        auto const first = log.find(line);
        CHECK(first != std::string::npos);
        CHECK(log.find(line, first + 1) == std::string::npos);
    }
}
