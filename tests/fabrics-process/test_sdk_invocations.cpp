// The invocations of the MXL SDK's mxl-fabrics-demo (its tools/mxl-fabrics-demo/demo.cpp) work on ours as written,
// over tcp and shm: a service without a node (the interface's node goes with it), the ticket through files with and
// without '@', the provider left to the node or to the ticket, an initiator bound with -n and -s, and flow options for
// the target.
#include "FlowChecker.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "SourceAndTarget.hpp"
#include "TestFlows.hpp"

#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

namespace mxl::test
{
    namespace
    {
        // A service name no other test process on this host uses at the same time.
        std::string uniqueService()
        {
            return std::to_string(20000 + ::getpid() % 20000);
        }

        // Starts a target with `targetArguments` (after -d and -f) and an initiator with `initiatorArguments` (after -i,
        // -d and -f); `ticketOf` turns the target's printed base64 ticket into the initiator's -t arguments. 100 grains
        // must arrive intact.
        template <typename TicketOf>
        void moveGrains(std::vector<std::string> const& targetArguments, std::vector<std::string> const& initiatorArguments,
                        TicketOf ticketOf)
        {
            SourceAndTarget ends{smallV210, targetArguments};
            auto extra = ticketOf(ends.target.ticket);
            extra.insert(extra.end(), initiatorArguments.begin(), initiatorArguments.end());
            auto initiator = startInitiator(ends.sourceDomain.str(), ends.source.flowId(), {}, extra);
            FlowChecker checker{ends.targetDomain.str(), ends.source.flowId()};
            checkIntact(checker.check(ends.source, 100, std::chrono::seconds{60}), 100, *initiator, "SDK invocation");
            stopCleanly(*initiator, "initiator");
            stopCleanly(*ends.target.process, "target");
        }

        std::vector<std::string> base64Ticket(std::string const& ticket)
        {
            return {"-t", ticket};
        }
    }

    TEST_CASE("SDK form: shm target with a service and no node (-p shm -s 28343), initiator -p shm -t <base64>")
    {
        moveGrains({"-p", "shm", "-s", uniqueService()}, {"-p", "shm"}, base64Ticket);
    }

    TEST_CASE("SDK form: shm target named by node and service (-p shm -n NAME -s N)")
    {
        moveGrains({"-p", "shm", "-n", "mxl-sdk-form-" + std::to_string(::getpid()), "-s", uniqueService()}, {"-p", "shm"}, base64Ticket);
    }

    TEST_CASE("SDK form: the ticket through files: target -t @FILE, initiator -t @FILE (raw JSON)")
    {
        TempDomain files{"fp-tickets"};
        auto const file = (files.path() / "target-info.json").string();
        moveGrains({"-p", "shm", "-t", "@" + file}, {"-p", "shm"},
                   [&](std::string const&) {
                       return std::vector<std::string>{"-t", "@" + file};
                   });
    }

    TEST_CASE("SDK form: tcp target -n 127.0.0.1 -s 0 -t FILE (no '@'), initiator -t @FILE with the provider from the ticket")
    {
        TempDomain files{"fp-tickets"};
        auto const file = (files.path() / "target-info.json").string();
        moveGrains({"-p", "tcp", "-n", "127.0.0.1", "-s", "0", "-t", file}, {},
                   [&](std::string const&) {
                       return std::vector<std::string>{"-t", "@" + file};
                   });
    }

    TEST_CASE("SDK form: tcp target chosen by node alone (-n 127.0.0.1), initiator bound with -p tcp -n 127.0.0.1 -s 0")
    {
        moveGrains({"-n", "127.0.0.1"}, {"-p", "tcp", "-n", "127.0.0.1", "-s", "0"}, base64Ticket);
    }

    TEST_CASE("SDK form: target with --flow-options, initiator -t <base64>")
    {
        TempDomain files{"fp-options"};
        auto const options = (files.path() / "options.json").string();
        std::ofstream{options} << R"({"maxCommitBatchSizeHint": 180, "maxSyncBatchSizeHint": 180})";
        moveGrains({"-p", "tcp", "-n", "127.0.0.1", "-s", "0", "--flow-options", options}, {}, base64Ticket);
    }
}
