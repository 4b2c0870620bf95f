// A receiver's hand-over of its ticket when the sender is not only its own: a sender whose activation is locked cannot
// be told to stop, so the receiver ends its writes with a new epoch; a sender that a second receiver was activated with
// feeds that one alone, and the first neither takes it back at its next epoch nor, let go, disconnects it.
#include "ConnectionPair.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using json = nlohmann::json;
        using Clock = std::chrono::steady_clock;

        json const activateNow{{"mode", "activate_immediate"}};
        json const letGo{{"master_enable", false}, {"activation", activateNow}};

        // A second target service of the test flow, in a domain of its own, waiting for an IS-05 activation.
        struct SecondReceiver
        {
            ServiceDirectories directories;
            NotifySocket notify;
            ServiceProcess target{targetSettings(directories), notifyEnvironment(notify)};
            ApiClient api{target.httpPort()};
            std::string id;

            SecondReceiver()
            {
                REQUIRE(notify.waitFor("READY=1", 10s));
                auto const receivers =
                    api.document(fmt::format("{}/single/receivers/", connectionApi), "is-05-v1.2/sender-receiver-base.json");
                REQUIRE(receivers.size() == 1);
                id = receivers[0].get<std::string>();
                id.pop_back();
            }

            [[nodiscard]] std::string path(std::string const& what) const
            {
                return fmt::format("{}/single/receivers/{}/{}", connectionApi, id, what);
            }
        };

        json senderReceiverId(UnconnectedPair& pair)
        {
            return pair.senderApi.document(pair.senderPath("active"), "is-05-v1.2/sender-response-schema.json")["receiver_id"];
        }
    }

    TEST_CASE("is-05: a receiver let go while its sender's activation is locked rebuilds under a new epoch, and the sender's "
              "writes stop")
    {
        ConnectedPair pair;
        auto& verifier = pair.verifier;
        auto const epoch = ticketEpoch(pair.directories.ticketFile());

        // A scheduled activation two minutes ahead locks the sender's staged parameters: the take-back gets 423.
        auto const locked = pair.senderApi.patch(
            pair.senderPath("staged"), json{{"activation", {{"mode", "activate_scheduled_relative"}, {"requested_time", "120:0"}}}}.dump());
        REQUIRE(locked.status == 202);
        REQUIRE(pair.receiverApi.patch(pair.receiverPath("staged"), letGo.dump()).status == 200);
        REQUIRE(pair.target.waitForLine("cannot take the ticket back from sender", 10s));
        REQUIRE(pair.target.waitForLine("could not be told to stop writing: rebuilding the target under a new epoch", 20s));
        auto const deadline = Clock::now() + 10s;
        while (ticketEpoch(pair.directories.ticketFile()) == epoch && Clock::now() < deadline)
        {
            std::this_thread::sleep_for(50ms);
        }
        CHECK(ticketEpoch(pair.directories.ticketFile()) != epoch);
        // What was in flight lands; after that nothing does, though the sender still holds the old ticket.
        verifier.check(1000, 1s);
        CHECK(verifier.check(1, 2s).verified == 0);
        CHECK(senderReceiverId(pair) == pair.receiverId);

        REQUIRE(pair.senderApi.patch(pair.senderPath("staged"), json{{"activation", {{"mode", nullptr}}}}.dump()).status == 200);
    }

    TEST_CASE("is-05: a sender activated by a second receiver feeds that one alone: the first neither takes it back at its next "
              "epoch nor, let go, disconnects it")
    {
        ConnectedPair pair;

        SecondReceiver second;
        FlowChecker secondVerifier{second.directories.destination.path(), serviceTestFlowId};
        REQUIRE(second.api.patch(second.path("staged"), pair.receiverPatch(activateNow).dump()).status == 200);
        requireFlowing(secondVerifier, 25, "into the second receiver");
        CHECK(senderReceiverId(pair) == second.id);

        // The first stalls (2 s), rebuilds and finds the sender taken over.
        REQUIRE(pair.target.waitForLine(
            fmt::format("feeds receiver {} now: receiver {} no longer hands it its ticket", second.id, pair.receiverId), 20s));
        // Two stall timeouts more: the second is never cut off.
        requireFlowing(secondVerifier, 200, 15s, [&] { return second.target.output(); });
        CHECK(second.target.output().find("stalled:") == std::string::npos);
        CHECK(senderReceiverId(pair) == second.id);

        REQUIRE(pair.receiverApi.patch(pair.receiverPath("staged"), letGo.dump()).status == 200);
        REQUIRE(pair.target.waitForLine(fmt::format("feeds receiver {} now: nothing to take back", second.id), 10s));
        requireFlowing(secondVerifier, 50, "after the first receiver let go");
        CHECK(senderReceiverId(pair) == second.id);
        CHECK(second.target.output().find("stalled:") == std::string::npos);
    }

    TEST_CASE("is-05: a receiver activated with another sender_id but the previous sender's ext_mxl_sender_api still staged "
              "does not connect the previous sender again")
    {
        ConnectedPair pair;
        auto& verifier = pair.verifier;

        // What a controller knowing only BCP-007-03 sends for another sender: its id and its two parameters.
        auto const other = "11111111-2222-4333-8444-555555555555";
        auto const params = pair.senderTransportParams();
        json const body{
            {"sender_id", other},
            {"master_enable", true},
            {"transport_params", json::array({{{"mxl_domain_id", params[0]["mxl_domain_id"]}, {"mxl_flow_id", params[0]["mxl_flow_id"]}}})},
            {"activation", activateNow}};
        REQUIRE(pair.receiverApi.patch(pair.receiverPath("staged"), body.dump()).status == 200);
        REQUIRE(pair.target.waitForLine(
            fmt::format("ext_mxl_sender_api names sender {}, not sender_id {}: connecting none", pair.senderId, other), 10s));
        REQUIRE(pair.target.waitForLine("IS-05: ticket taken back from sender", 10s));
        CHECK(senderReceiverId(pair).is_null());
        verifier.check(1000, 1s);
        CHECK(verifier.check(1, 2s).verified == 0);
    }

    TEST_CASE("is-05: a hand-over left without an answer is taken back when the receiver lets go: a sender that applies it late "
              "writes nothing")
    {
        UnconnectedPair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        auto const activation = pair.receiverPatch(activateNow).dump();
        // A sender that takes the request and answers nothing (stopped): the hand-over times out, applied or not.
        pair.initiator.signal(SIGSTOP);
        REQUIRE(pair.receiverApi.patch(pair.receiverPath("staged"), activation).status == 200);
        REQUIRE(pair.target.waitForLine("cannot hand the ticket to sender", 10s));
        REQUIRE(pair.receiverApi.patch(pair.receiverPath("staged"), letGo.dump()).status == 200);
        std::this_thread::sleep_for(1500ms);
        pair.initiator.signal(SIGCONT);
        // Told to stop once it answers, or cut off by a new epoch when it does not in time.
        auto const deadline = Clock::now() + 20s;
        auto settled = [&]
        {
            auto const output = pair.target.output();
            return output.find("IS-05: ticket taken back from sender") != std::string::npos ||
                   output.find("could not be told to stop writing: rebuilding the target under a new epoch") != std::string::npos;
        };
        while (!settled() && Clock::now() < deadline)
        {
            std::this_thread::sleep_for(100ms);
        }
        REQUIRE_MESSAGE(settled(), pair.target.output());
        verifier.check(1000, 2s);
        CHECK(verifier.check(1, 3s).verified == 0);
    }
}
