// Two "hosts": target and initiator in two network namespaces joined by a veth pair (198.51.100.1/25 and .2/25),
// over tcp. The domains stay on the shared /dev/shm, so the test reads both ends directly.
#include "FlowChecker.hpp"
#include "NetworkNamespaces.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "Skip.hpp"
#include "TestFlows.hpp"

#include "TempDomain.hpp"

#include <doctest/doctest.h>

namespace mxl::test
{
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
        auto initiator = startInitiator(sourceDomain.str(), source.flowId(), {target.ticket}, {"-n", NetworkNamespaces::secondAddress},
                                        namespaces->inSecond());

        FlowChecker checker{targetDomain.str(), source.flowId()};
        checkIntact(checker.check(source, 300, std::chrono::seconds{60}), 300, *initiator, "two hosts");
        stopCleanly(*initiator, "initiator");
        stopCleanly(*target.process, "target");
    }
}
