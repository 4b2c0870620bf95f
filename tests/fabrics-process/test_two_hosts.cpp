// Two "hosts": target and initiator in two network namespaces joined by a veth pair (198.51.100.1/25 and .2/25),
// over tcp. The domains stay on the shared /dev/shm, so the test reads both ends directly.
#include "FlowChecker.hpp"
#include "NetworkNamespaces.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "Skip.hpp"
#include "SourceAndTarget.hpp"
#include "TestFlows.hpp"
#include "Transports.hpp"

#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace mxl::test
{
    namespace
    {
        // A source flow on the shared /dev/shm, and a target of it started in the first namespace.
        struct TwoHosts
        {
            NetworkNamespaces const& namespaces;
            PatternSource const& source;
            std::string sourceDomain;
            std::string targetDomain;
            RunningTarget& target;

            // An initiator in the second namespace moves `grains` intact into the target; then both stop cleanly.
            void moveFromSecondHost(std::uint64_t grains) const
            {
                auto initiator = startInitiator(sourceDomain, source.flowId(), {target.ticket}, {"-n", NetworkNamespaces::secondAddress},
                                                namespaces.inSecond());
                FlowChecker checker{targetDomain, source.flowId()};
                checkIntact(checker.check(source, grains, std::chrono::seconds{60}), grains, *initiator, "from the second host");
                stopCleanly(*initiator, "initiator");
                stopCleanly(*target.process, "target");
            }
        };

        // Runs `scenario` with a target over tcp in the first namespace, started with `targetArguments` after the common
        // ones; skipped where the namespaces cannot be made.
        void withTwoHosts(std::vector<std::string> const& targetArguments, std::function<void(TwoHosts const&)> const& scenario)
        {
            std::string whyNot;
            auto namespaces = NetworkNamespaces::create(whyNot);
            if (!namespaces)
            {
                MXL_SKIP(whyNot.c_str());
            }
            std::vector<std::string> arguments{"-p", "tcp", "-n", NetworkNamespaces::firstAddress, "-s", "0"};
            arguments.insert(arguments.end(), targetArguments.begin(), targetArguments.end());
            SourceAndTarget ends{smallV210, arguments, 0, namespaces->inFirst()};
            scenario(TwoHosts{*namespaces, ends.source, ends.sourceDomain.str(), ends.targetDomain.str(), ends.target});
        }

        // A target that allows only the second host: the first one is refused, and that is logged once.
        void checkAllowedInitiators(TwoHosts const& hosts)
        {
            // From the target's own host (198.51.100.1): refused at every attempt until its connect timeout.
            DemoProcess refused{{"-i", "-d", hosts.sourceDomain, "-f", hosts.source.flowId(), "-t", hosts.target.ticket, "-n",
                                 NetworkNamespaces::firstAddress, "--connect-timeout", "3"},
                                hosts.namespaces.inFirst()};
            auto const refusedStatus = refused.wait(std::chrono::seconds{60});
            INFO("refused initiator stderr:\n", refused.errors());
            REQUIRE(refusedStatus.has_value());
            CHECK(*refusedStatus != 0);
            CHECK(refused.errors().find("Connection refused") != std::string::npos);
            CHECK(refused.errors().find("connected to") == std::string::npos);

            hosts.moveFromSecondHost(200);

            auto const log = hosts.target.process->errors();
            INFO("target stderr:\n", log);
            auto const line = fmt::format("refused the connection of {}: not in allowInitiators ({}/32)", NetworkNamespaces::firstAddress,
                                          NetworkNamespaces::secondAddress);
            auto const first = log.find(line);
            CHECK(first != std::string::npos);
            CHECK(log.find(line, first + 1) == std::string::npos);
        }
    }

    TEST_CASE("tcp between two network namespaces over a veth pair")
    {
        withTwoHosts({}, [](TwoHosts const& hosts) { hosts.moveFromSecondHost(300); });
    }

    TEST_CASE("tcp between two network namespaces: a target with allowed initiators takes the allowed host and refuses another")
    {
        if (demoBackend() != "ofi")
        {
            MXL_SKIP("a ucx target receives no connection requests to screen, and refuses --allow-initiators at setup "
                     "(tests/fabrics: \"admission: ...\")");
        }
        withTwoHosts({"--allow-initiators", fmt::format("{}/32", NetworkNamespaces::secondAddress)}, checkAllowedInitiators);
    }
}
