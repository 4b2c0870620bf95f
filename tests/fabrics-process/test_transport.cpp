// The transport choice between real demo processes: --transport msg at both ends (and an rma initiator refused by the
// msg ticket), and auto falling back to msg where the provider has no RMA (MXL_FABRICS_OFI_HIDE_RMA, the ofi backend's
// test knob), each with the demos' "Transport:" lines and every grain checked.
#include "FlowChecker.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "TestFlows.hpp"
#include "Transports.hpp"

#include "Skip.hpp"
#include "TempDomain.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace mxl::test
{
    namespace
    {
        constexpr std::uint64_t msgGrainsToVerify = 200;
        constexpr std::chrono::seconds msgCheckDeadline{60};
        constexpr std::chrono::seconds lineDeadline{15};
        constexpr int transportBadInput = 2;

        // Moves grains between a target and an initiator started with `arguments` (and `launcher`) on both ends, checks
        // that both print "Transport: msg", log `logged` (when not empty), and that every grain arrives intact.
        void moveOverMsg(Transport const& transport, std::vector<std::string> const& arguments, std::vector<std::string> const& launcher,
                         std::string const& logged = {})
        {
            TempDomain sourceDomain{"fp-source"};
            TempDomain targetDomain{"fp-target"};
            PatternSource source{sourceDomain.str(), testFlow(smallV210)};
            DemoProcess target{
                joined(joined({"-d", targetDomain.str(), "-f", testFlow(smallV210).string()}, transport.targetArguments), arguments),
                launcher};
            CHECK_MESSAGE(target.waitForLine("Transport: msg", lineDeadline).has_value(), "target stderr:\n", target.errors());
            auto const ticket = target.waitForTicket();
            REQUIRE_MESSAGE(!ticket.empty(), "the target printed no ticket; stderr:\n", target.errors());

            DemoProcess initiator{joined({"-i", "-d", sourceDomain.str(), "-f", source.flowId(), "-t", ticket}, arguments), launcher};
            CHECK_MESSAGE(initiator.waitForLine("Transport: msg", lineDeadline).has_value(), "initiator stderr:\n", initiator.errors());
            REQUIRE_MESSAGE(initiator.waitForLine("connected to", lineDeadline).has_value(), "initiator stderr:\n", initiator.errors());

            FlowChecker checker{targetDomain.str(), source.flowId()};
            auto const result = checker.check(source, msgGrainsToVerify, msgCheckDeadline, false);
            checkIntact(result, msgGrainsToVerify, initiator, fmt::format("{} msg", transport.name));
            CHECK(target.errors().find(logged) != std::string::npos);
            CHECK(initiator.errors().find(logged) != std::string::npos);
            auto const sent = stopCleanly(initiator, "initiator");
            auto const received = stopCleanly(target, "target");
            CHECK(received.grains >= msgGrainsToVerify);
            CHECK(received.grains <= sent.grains);
        }
    }

    TEST_CASE("transport: tcp 127.0.0.1 with --transport msg at both ends moves every grain, and an rma initiator is refused")
    {
        if (demoBackend() != "ofi")
        {
            MXL_SKIP("the msg transport is the ofi backend's (ucx refuses it: tests/fabrics/test_transport.cpp)");
        }
        moveOverMsg(tcpIpv4, {"--transport", "msg"}, {});

        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        PatternSource source{sourceDomain.str(), testFlow(smallV210)};
        auto target =
            startTarget(targetDomain.str(), testFlow(smallV210).string(), joined(tcpIpv4.targetArguments, {"--transport", "msg"}));
        std::string errors;
        auto const status =
            runDemo({"-i", "-d", sourceDomain.str(), "-f", source.flowId(), "-t", target.ticket, "--transport", "rma"}, errors);
        INFO("stderr:\n", errors);
        CHECK(status == transportBadInput);
        CHECK(errors.find(R"(was set up with transport "msg", this initiator uses transport "rma" (asked))") != std::string::npos);
        CHECK(errors.find("does not fit flow") != std::string::npos);
        stopCleanly(*target.process, "target");
    }

    TEST_CASE(
        "transport: shm where the provider has no RMA (test knob): auto at both ends falls back to msg, says so, and moves every grain")
    {
        if (demoBackend() != "ofi")
        {
            MXL_SKIP("the test knob MXL_FABRICS_OFI_HIDE_RMA is the ofi backend's");
        }
        // The fallback is logged at warn at both ends, never silent.
        moveOverMsg(sharedMemory, {"--transport", "auto"}, {"env", "MXL_FABRICS_OFI_HIDE_RMA=1"},
                    "transport: msg (provider shm has no endpoint with FI_RMA and remote CQ data); msg needs this library at both ends");
    }
}
