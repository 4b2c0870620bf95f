// Healing: a target killed and restarted, an initiator killed and restarted, a link cut for 10 s, a stale ticket, a
// ticket without an epoch re-issued for the same target, a ticket file that cannot be written at a rebuild, a flow
// file a killed target left truncated, the initiator's source flow deleted and created again, the target's own flow
// deleted under it, a ticket of a new epoch whose target refuses connections.
// Every grain that arrives is checked by checksum; recovery must happen without restarting the survivor.
#include "FreePort.hpp"
#include "NetworkNamespaces.hpp"
#include "ServiceScenario.hpp"
#include "Skip.hpp"
#include "TestFlow.hpp"
#include "UnreachableTicket.hpp"

#include <common/FlowPaths.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using Clock = std::chrono::steady_clock;
    }

    TEST_CASE("target killed with SIGKILL and restarted: the initiator moves grains again within 5 s, on the new epoch")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        NotifySocket targetNotify;
        auto first = std::make_unique<ServiceProcess>(targetSettings(directories), notifyEnvironment(targetNotify));
        REQUIRE(targetNotify.waitFor("READY=1", std::chrono::seconds{10}));
        auto const firstEpoch = ticketEpoch(directories.ticketFile());
        ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};
        {
            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            requireFlowing(verifier, 20, std::chrono::seconds{5}, [&] { return std::string{"before the kill"}; });
        }

        auto const killedAt = Clock::now();
        first->signal(SIGKILL);
        REQUIRE(first->wait(std::chrono::seconds{5}));
        first.reset();
        ReadyService restarted{targetSettings(directories)};
        auto const restartedAt = Clock::now();
        auto const secondEpoch = ticketEpoch(directories.ticketFile());
        CHECK(secondEpoch != 0);
        CHECK(secondEpoch != firstEpoch);

        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 10, std::chrono::seconds{5}, [&] { return std::string{"after the restart"}; });
        auto const recovery = std::chrono::duration<double>(Clock::now() - restartedAt).count();
        INFO("grains moved again ", recovery, " s after the new target was ready");
        CHECK(recovery < 5.0);
        CHECK(initiator.output().find(fmt::format("new epoch {}", secondEpoch)) != std::string::npos);
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        requireFlowing(verifier, 50, std::chrono::seconds{5}, [&] { return std::string{"steady after the restart"}; });
        // The grains of the outage (at least from the kill to the new target's READY, at 50 grains/s) are not chased:
        // the initiator counts them lost, as the target does.
        auto const outageGrains = static_cast<std::uint64_t>(50 * std::chrono::duration<double>(restartedAt - killedAt).count());
        INFO("outage of at least ", outageGrains, " grains; the initiator says ", initiatorLostSoFar(directories, serviceTestFlowId));
        CHECK(initiatorLostSoFar(directories, serviceTestFlowId) >= outageGrains);
    }

    TEST_CASE("a target restarted over the flow it left, with no initiator: it reports no arrival and no stall")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        {
            ReadyService first{targetSettings(directories)};
            ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile())};
            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            requireFlowing(verifier, 10, std::chrono::seconds{10}, [&] { return initiator.output(); });
            initiator.signal(SIGKILL);
            REQUIRE(initiator.wait(std::chrono::seconds{5}));
            first.signal(SIGKILL);
            REQUIRE(first.wait(std::chrono::seconds{5}));
        }
        ReadyService restarted{targetSettings(directories)};
        // Twice the stall timeout: the head the flow kept is no arrival, and its stillness no stall.
        CHECK_FALSE(restarted.waitForLine("stalled", std::chrono::seconds{4}));
        auto const output = restarted.output();
        INFO(output);
        CHECK(output.find("are arriving") == std::string::npos);
        CHECK(output.find("rebuilding") == std::string::npos);
    }

    TEST_CASE("initiator killed with SIGKILL and restarted: the same target takes grains from the new one")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        auto const epoch = ticketEpoch(directories.ticketFile());
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        {
            ServiceProcess first{initiatorSettings(directories, directories.ticketFile())};
            requireFlowing(verifier, 20, std::chrono::seconds{10}, [&] { return std::string{"first initiator"}; });
            first.signal(SIGKILL);
            REQUIRE(first.wait(std::chrono::seconds{5}));
        }
        ReadyService second{initiatorSettings(directories, directories.ticketFile()), std::chrono::seconds{5}};
        requireFlowing(verifier, 30, std::chrono::seconds{5}, [&] { return std::string{"second initiator"}; });
        // The target did not have to restart or rebuild for it.
        CHECK(ticketEpoch(directories.ticketFile()) == epoch);
        CHECK_FALSE(target.wait(std::chrono::milliseconds{0}));
    }

    TEST_CASE("a ticket file that cannot be written when the target rebuilds is reported, and written once it can: the target goes on")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        auto const epoch = ticketEpoch(directories.ticketFile());
        REQUIRE(epoch != 0);
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        {
            ServiceProcess first{initiatorSettings(directories, directories.ticketFile())};
            requireFlowing(verifier, 20, std::chrono::seconds{10}, [&] { return std::string{"first initiator"}; });
            first.signal(SIGKILL);
            REQUIRE(first.wait(std::chrono::seconds{5}));
        }
        // The ticket's name taken by a directory: the rebuild that the stall brings cannot rename its file there.
        std::filesystem::remove(directories.ticketFile());
        std::filesystem::create_directory(directories.ticketFile());
        auto const refused = target.waitForLine("cannot publish the ticket file", std::chrono::seconds{20});
        REQUIRE(refused.has_value());
        CHECK(refused->find("goes on") != std::string::npos);
        // The new epoch's line says where the ticket will be, not that it is there.
        CHECK(target.waitForLine(fmt::format("file '{}' once it can be written", directories.ticketFile()), std::chrono::seconds{5}));
        CHECK_FALSE(target.wait(std::chrono::seconds{1}));

        std::filesystem::remove(directories.ticketFile());
        REQUIRE(target.waitForLine(fmt::format("ticket file '{}' written", directories.ticketFile()), std::chrono::seconds{5}).has_value());
        auto const rebuilt = ticketEpoch(directories.ticketFile());
        CHECK(rebuilt != 0);
        CHECK(rebuilt != epoch);
        ReadyService second{initiatorSettings(directories, directories.ticketFile()), std::chrono::seconds{10}};
        FlowChecker after{directories.destination.path(), serviceTestFlowId};
        requireFlowing(after, 20, std::chrono::seconds{10}, [&] { return fmt::format("after the rebuild:\n{}", target.output()); });
        CHECK_FALSE(target.wait(std::chrono::milliseconds{0}));
    }

    TEST_CASE("a flow file left truncated by a killed target is garbage collected when it restarts, and grains move again")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto first = std::make_unique<ReadyService>(targetSettings(directories));
        ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};
        {
            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            requireFlowing(verifier, 10, std::chrono::seconds{10}, [&] { return std::string{"before the kill"}; });
        }
        first->signal(SIGKILL);
        REQUIRE(first->wait(std::chrono::seconds{5}));
        first.reset();
        // What a file truncated under the running target leaves behind once the kernel ended it (SIGBUS).
        auto const grain = paths::grainFile(paths::flowDirectory(directories.destination.path(), serviceTestFlowId), 0);
        REQUIRE(std::filesystem::exists(grain));
        std::filesystem::resize_file(grain, 0);

        ReadyService restarted{targetSettings(directories)};
        CHECK(restarted.output().find("garbage collected") != std::string::npos);
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, std::chrono::seconds{10}, [&] { return fmt::format("after the restart:\n{}", restarted.output()); });
        CHECK_FALSE(restarted.wait(std::chrono::milliseconds{0}));
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
    }

    TEST_CASE("the initiator's source flow deleted and created again: the initiator waits, reads the new flow, and grains move again")
    {
        ServiceDirectories directories;
        auto source = std::make_unique<PatternSource>(directories.source.path(), serviceTestFlow());
        ReadyService target{targetSettings(directories)};
        ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};
        {
            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            requireFlowing(verifier, 20, std::chrono::seconds{10}, [&] { return std::string{"before the source stopped"}; });
        }
        // Its only writer gone, the flow is deleted.
        source.reset();
        INFO("initiator:\n", initiator.output());
        REQUIRE(initiator.waitForLine("waiting for the flow to be there again", std::chrono::seconds{10}).has_value());
        CHECK_FALSE(initiator.wait(std::chrono::seconds{1}));

        source = std::make_unique<PatternSource>(directories.source.path(), serviceTestFlow());
        REQUIRE(initiator.waitForLine("is there again", std::chrono::seconds{10}).has_value());
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, std::chrono::seconds{15},
                       [&] { return fmt::format("after the source came back:\ninitiator:\n{}", initiator.output()); });
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        CHECK_FALSE(target.wait(std::chrono::milliseconds{0}));
    }

    TEST_CASE("the target's own flow deleted under it: the target starts afresh in the same process, and grains move again")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};
        auto const epoch = ticketEpoch(directories.ticketFile());
        auto const flow = paths::flowDirectory(directories.destination.path(), serviceTestFlowId);
        {
            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            requireFlowing(verifier, 10, std::chrono::seconds{10}, [&] { return std::string{"before the flow was deleted"}; });
        }
        std::filesystem::remove_all(flow);
        REQUIRE(target.waitForLine("starting afresh", std::chrono::seconds{10}).has_value());
        REQUIRE(target.waitForLine("ready: waiting for an initiator", std::chrono::seconds{10}).has_value());
        CHECK(std::filesystem::exists(flow));
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, std::chrono::seconds{15}, [&] { return fmt::format("after the restart:\n{}", target.output()); });
        CHECK(ticketEpoch(directories.ticketFile()) != epoch);
        CHECK_FALSE(target.wait(std::chrono::milliseconds{0}));
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
    }

    TEST_CASE("a ticket whose target does not fit the flow is refused once, not added again at every poll")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        // A 1080p target for the 320x180 source: the fabrics library refuses to add it.
        ReadyService target{targetSettings(directories, "127.0.0.1", sourcePath("flows/v210_1080p25.json"))};
        ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile())};
        REQUIRE(initiator.waitForLine("does not fit flow", std::chrono::seconds{10}).has_value());
        // Ten more polls of the same ticket (ticket_poll_ms 200).
        std::this_thread::sleep_for(std::chrono::seconds{2});
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        auto const output = initiator.output();
        INFO(output);
        CHECK(occurrences(output, "does not fit flow") == 1);
        CHECK(occurrences(output, "mxlFabricsInitiatorAddTarget") == 1);
    }

    TEST_CASE("a stale ticket handed to a fresh initiator is reported, never silently accepted")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto const staleCopy = (directories.tickets.path() / "stale.ticket.json").string();
        std::uint64_t staleEpoch = 0;
        {
            ReadyService old{targetSettings(directories)};
            staleEpoch = ticketEpoch(directories.ticketFile());
            std::filesystem::copy_file(directories.ticketFile(), staleCopy);
            old.signal(SIGTERM);
            REQUIRE(old.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        }
        ReadyService target{targetSettings(directories)};

        NotifySocket initiatorNotify;
        auto settings = initiatorSettings(directories, staleCopy);
        settings.emplace_back("log_level", "debug");
        ServiceProcess initiator{settings, notifyEnvironment(initiatorNotify)};
        auto const report = initiator.waitForLine("looks stale", std::chrono::seconds{6});
        REQUIRE_MESSAGE(report, initiator.output());
        CHECK(report->find(fmt::format("epoch {}", staleEpoch)) != std::string::npos);
        CHECK(report->find("still fetching") != std::string::npos);
        auto const status = initiatorNotify.waitFor("STATUS=state=stale", std::chrono::seconds{2});
        CHECK(status);
        // Not ready, nothing arrived, and still running (fetching).
        CHECK_FALSE(initiatorNotify.waitFor("READY=1", std::chrono::milliseconds{0}));
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        CHECK(verifier.check(1, std::chrono::seconds{1}).verified == 0);
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
    }

    TEST_CASE("the link between two hosts cut for 10 s and restored: both services recover without a restart")
    {
        std::string whyNot;
        auto hosts = NetworkNamespaces::create(whyNot);
        if (!hosts)
        {
            MXL_SKIP(whyNot.c_str());
        }
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        NotifySocket targetNotify;
        ServiceProcess target{targetSettings(directories, NetworkNamespaces::firstAddress), notifyEnvironment(targetNotify),
                              hosts->inFirst()};
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        REQUIRE(targetNotify.waitFor("READY=1", std::chrono::seconds{10}));
        // Over the link: the initiator's only ticket source is the target's HTTP endpoint.
        auto const url = fmt::format("http://{}:{}/ticket", NetworkNamespaces::firstAddress, port);
        NotifySocket initiatorNotify;
        ServiceProcess initiator{initiatorSettings(directories, url), notifyEnvironment(initiatorNotify), hosts->inSecond()};
        REQUIRE_MESSAGE(initiatorNotify.waitFor("READY=1", std::chrono::seconds{10}), initiator.output());
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, std::chrono::seconds{5}, [&] { return std::string{"before the cut"}; });

        REQUIRE(hosts->setLink(false));
        // Grains committed before the cut took effect (on a loaded machine `ip` itself takes a few grain periods) are
        // looked at first; none may arrive in the rest of the cut.
        static_cast<void>(verifier.check(1000, std::chrono::seconds{2}));
        std::this_thread::sleep_for(std::chrono::seconds{8});
        CHECK(verifier.check(1, std::chrono::milliseconds{100}).verified == 0);
        REQUIRE(hosts->setLink(true));
        auto const restoredAt = Clock::now();

        requireFlowing(verifier, 20, std::chrono::seconds{20},
                       [&] { return "after the link came back\ninitiator:\n" + initiator.output() + "\ntarget:\n" + target.output(); });
        INFO("grains moved again ", std::chrono::duration<double>(Clock::now() - restoredAt).count(), " s after the link came back");
        CHECK_FALSE(target.wait(std::chrono::milliseconds{0}));
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        initiator.signal(SIGTERM);
        CHECK(initiator.wait(std::chrono::seconds{5}) == std::optional<int>{0});
        target.signal(SIGTERM);
        CHECK(target.wait(std::chrono::seconds{5}) == std::optional<int>{0});
    }
}

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        // A target, and an initiator following a ticket file of its own that starts as a copy of the target's, moving
        // grains; the test writes other tickets there.
        struct OwnTicketPair
        {
            ServiceDirectories directories;
            PatternSource source{directories.source.path(), serviceTestFlow()};
            ReadyService target{targetSettings(directories)};
            std::string working = readFile(directories.ticketFile());

            // The initiator on a ticket file holding `ticket`, with grains checked flowing.
            [[nodiscard]] std::string follow(std::string const& ticket, std::unique_ptr<ServiceProcess>& initiator,
                                             FlowChecker& verifier) const
            {
                auto path = ownTicketFile(directories, ticket);
                initiator = std::make_unique<ServiceProcess>(initiatorSettings(directories, path));
                requireFlowing(verifier, 20, 10s, [&] { return initiator->output(); });
                return path;
            }
        };
    }

    TEST_CASE("a ticket without an epoch re-issued with other text for the same target takes its place, and grains go on")
    {
        OwnTicketPair pair;
        // As the SDK's tickets are: no epoch. The library knows a target by its id, which both texts carry.
        auto ticket = nlohmann::json::parse(pair.working);
        ticket.erase("epoch");
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        std::unique_ptr<ServiceProcess> initiator;
        auto const sdkTicket = pair.follow(ticket.dump(), initiator, verifier);

        writeTicketFile(sdkTicket, ticket.dump(4));
        REQUIRE_MESSAGE(initiator->waitForLine("re-establishing with the target", 10s), initiator->output());
        requireFlowing(verifier, 25, 10s, [&] { return initiator->output(); });
        CHECK(initiator->output().find("does not fit flow") == std::string::npos);
    }

    TEST_CASE("a ticket of a new epoch whose target refuses connections leaves the working target receiving every grain")
    {
        OwnTicketPair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        std::unique_ptr<ServiceProcess> initiator;
        auto const ticket = pair.follow(pair.working, initiator, verifier);

        UnreachableTicket const unreachable{pair.working};
        writeTicketFile(ticket, unreachable.json());
        REQUIRE_MESSAGE(initiator->waitForLine(fmt::format("(epoch {}) gives no connection", unreachable.epoch()), 15s),
                        initiator->output());
        // Every grain in order, none missing, while the new target is tried.
        requireFlowing(verifier, 50, 10s, [&] { return initiator->output(); });
        CHECK(initiator->output().find("re-establishing") == std::string::npos);

        writeTicketFile(ticket, pair.working);
        REQUIRE_MESSAGE(initiator->waitForLine("is not connected to after all", 10s), initiator->output());
        requireFlowing(verifier, 20, 10s, [&] { return initiator->output(); });
        CHECK_FALSE(initiator->wait(std::chrono::milliseconds{0}));

        // Once the working target is gone, the new one takes its place and is reported stale, as any target that gives
        // no connection is.
        writeTicketFile(ticket, unreachable.json());
        REQUIRE_MESSAGE(initiator->waitForLine(fmt::format("(epoch {}) gives no connection", unreachable.epoch()), 15s),
                        initiator->output());
        pair.target.signal(SIGKILL);
        REQUIRE_MESSAGE(initiator->waitForLine(fmt::format("(epoch {}) looks stale", unreachable.epoch()), 15s), initiator->output());
    }

    TEST_CASE("an altered ticket (the current target's id with another epoch, or one the library cannot read) is refused once, and "
              "the working target keeps every grain")
    {
        OwnTicketPair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        std::unique_ptr<ServiceProcess> initiator;
        auto const ticket = pair.follow(pair.working, initiator, verifier);

        auto altered = nlohmann::json::parse(pair.working);
        altered["epoch"] = std::to_string(std::stoull(altered["epoch"].get<std::string>()) + 1);
        writeTicketFile(ticket, altered.dump());
        REQUIRE_MESSAGE(initiator->waitForLine("it was altered", 10s), initiator->output());
        requireFlowing(verifier, 30, 10s, [&] { return initiator->output(); });

        auto unreadable = nlohmann::json::parse(pair.working);
        unreadable.erase("id");
        writeTicketFile(ticket, unreadable.dump());
        REQUIRE_MESSAGE(initiator->waitForLine("cannot be used", 10s), initiator->output());
        // Ten more polls of the same ticket (ticket_poll_ms 200).
        std::this_thread::sleep_for(2s);
        requireFlowing(verifier, 20, 10s, [&] { return initiator->output(); });
        auto const output = initiator->output();
        INFO(output);
        CHECK(occurrences(output, "mxlFabricsTargetInfoFromString") == 1);
        CHECK(occurrences(output, "re-establishing") == 0);
        CHECK(occurrences(output, "lost the target") == 0);
    }

    TEST_CASE("a stale ticket of the target's earlier run at the same address and port is refused at connection, and the working "
              "target keeps every grain")
    {
        using namespace std::chrono_literals;
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto const settings = with(targetSettings(directories), "service", std::to_string(freeLoopbackPort()));
        std::string stale;
        {
            ReadyService earlier{settings};
            stale = readFile(directories.ticketFile());
        }
        ReadyService target{settings};
        REQUIRE(readFile(directories.ticketFile()) != stale);
        ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, 10s, [&] { return initiator.output(); });

        writeTicketFile(directories.ticketFile(), stale);
        REQUIRE_MESSAGE(target.waitForLine("it holds the ticket of another target at this address", 15s), target.output());
        requireFlowing(verifier, 50, 10s, [&] { return initiator.output(); });
        auto const output = initiator.output();
        INFO(output);
        CHECK(occurrences(output, "re-establishing") == 0);
        CHECK(occurrences(output, "lost the target") == 0);
    }

    TEST_CASE("a target that took grains and is gone for good: the initiator reports its ticket stale within connect_timeout_ms")
    {
        using namespace std::chrono_literals;
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto target = std::make_unique<ReadyService>(targetSettings(directories));
        NotifySocket initiatorNotify;
        ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile()), notifyEnvironment(initiatorNotify)};
        {
            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            requireFlowing(verifier, 20, 10s, [&] { return initiator.output(); });
        }
        target->signal(SIGKILL);
        REQUIRE(target->wait(5s));
        target.reset();
        // connect_timeout_ms 3000: reported once the connection has been lost that long, and reported once.
        auto const report = initiator.waitForLine("looks stale: nothing delivered for", 15s);
        REQUIRE_MESSAGE(report, initiator.output());
        CHECK(initiatorNotify.waitFor("STATUS=state=stale", 5s));
        std::this_thread::sleep_for(2s);
        CHECK(occurrences(initiator.output(), "looks stale") == 1);
        CHECK_FALSE(initiator.wait(0ms));
    }

    TEST_CASE("a target whose flow counts at another grain rate than its sender's says so once, naming how far off the grains are")
    {
        using namespace std::chrono_literals;
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto definition = nlohmann::json::parse(readFile(serviceTestFlow()));
        definition["grain_rate"] = {{"numerator", 25}, {"denominator", 1}};
        auto const slower = directories.tickets.path() / "flow-25.json";
        std::ofstream{slower} << definition.dump();
        ReadyService target{targetSettings(directories, "127.0.0.1", slower)};
        ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile())};
        auto const line = target.waitForLine("the sender's flow has another rate", 15s);
        REQUIRE_MESSAGE(line, target.output());
        CHECK(line->find("before its time on this flow's timeline (25/1 per second)") != std::string::npos);
        CHECK(line->find("in the future") != std::string::npos);
        std::this_thread::sleep_for(1s);
        CHECK(occurrences(target.output(), "another rate") == 1);
    }
}
