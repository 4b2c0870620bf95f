// A target that stops reading for longer than the source ring's history while the source keeps writing: the writes in
// flight to it read source slots that the writer has since reopened (shm copies them in the target's own progress; tcp
// reads them as the socket drains). Every grain the target commits as valid must be the source's grain of that index
// byte for byte; every other one must be missing or flagged invalid, and reported by the initiator.
#include "FlowChecker.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "SourceAndTarget.hpp"
#include "TestFlows.hpp"
#include "Transports.hpp"

#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <thread>

namespace mxl::test
{
    namespace
    {
        // Three times the source ring's 200 ms history (the default), short of the 1 s after which the initiator counts
        // a silent target as gone. The flow runs at 50 grains/s, which a sanitizer build on a loaded machine keeps up
        // with: the stops, not the machine, must be what loses grains.
        constexpr auto stopLength = std::chrono::milliseconds{700};
        constexpr int stops = 3;

        void stopAndResume(Transport const& transport, std::uint16_t slicesPerCommit)
        {
            SourceAndTarget ends{smallV210At50, transport.targetArguments, slicesPerCommit};
            auto& [sourceDomain, targetDomain, source, target] = ends;
            auto initiator = startInitiator(sourceDomain.str(), source.flowId(), {target.ticket});
            FlowChecker checker{targetDomain.str(), source.flowId()};
            auto const watchPartials = slicesPerCommit != 0;
            checkIntact(checker.check(source, 25, std::chrono::seconds{10}, watchPartials), 25, *initiator, "before the stops");

            CheckResult total;
            for (int stop = 0; stop < stops; ++stop)
            {
                auto const grainsBefore = source.grainsWritten();
                target.process->signal(SIGSTOP);
                std::this_thread::sleep_for(stopLength);
                target.process->signal(SIGCONT);
                // The source went on: the ring (12 grains for 200 ms at 50 grains/s) came round while the target could not
                // read.
                CHECK(source.grainsWritten() - grainsBefore > 20);
                // No restart at the head: every grain the target commits from here on is looked at.
                total += checker.check(source, 25, std::chrono::seconds{10}, watchPartials);
            }
            auto const losses = checkIntact(total, 25 * stops, *initiator, "after the stops");
            MESSAGE(std::string{transport.name}, ": over ", stops, " stops of ", stopLength.count(), " ms the target held ",
                    total.invalidated, " grain(s) flagged invalid, missed ", total.missing, "; the initiator reported lost=", losses.lost,
                    " invalidated=", losses.invalidated.empty() ? 0 : losses.invalidated.front());
            stopCleanly(*initiator, "initiator");
            stopCleanly(*target.process, "target");
        }
    }

    TEST_CASE("tcp: a target stopped for longer than the source ring's history commits no grain the source did not write")
    {
        stopAndResume(tcpIpv4, 0);
    }

    TEST_CASE("shm: a target stopped for longer than the source ring's history commits no grain the source did not write")
    {
        stopAndResume(sharedMemory, 0);
    }

    TEST_CASE("tcp: partial grains to a target stopped for longer than the source ring's history are never committed torn")
    {
        stopAndResume(tcpIpv4, 45);
    }

    TEST_CASE("shm: partial grains to a target stopped for longer than the source ring's history are never committed torn")
    {
        stopAndResume(sharedMemory, 45);
    }
}
