// An initiator service restarted (as systemd restarts it) while IS-05 had it connected: it starts afresh, disabled,
// and the receiver that connected it hands its next epoch over with master_enable true, so that both ends' active
// parameters say the pair is connected and grains move, without a controller.
#include "ConnectionPair.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <string>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
    }

    TEST_CASE("is-05: an initiator restarted while connected is connected again by its receiver at the next epoch: master_enable "
              "true on both ends, grains move, state active")
    {
        ConnectedPair pair;
        pair.initiator.signal(SIGTERM);
        REQUIRE(pair.initiator.wait(10s) == std::optional<int>{0});

        // The same configuration, as systemd starts it again: the same HTTP port, so the same Connection API URL.
        ServiceProcess restarted{
            with(UnconnectedPair::unconnectedInitiator(pair.directories), "http_listen", fmt::format("127.0.0.1:{}", pair.initiatorPort))};
        REQUIRE(restarted.waitForLine("waiting for an IS-05 activation of sender", 10s));
        // Its grains stopped: the target stalls, rebuilds under a new epoch and hands that over.
        CHECK(pair.target.waitForLine("has started afresh since the ticket was handed over", 20s));
        requireFlowing(pair.verifier, 25, "after the initiator's restart");
        CHECK(awaitState(pair.initiatorPort, "active") == "active");

        ApiClient senderApi{pair.initiatorPort};
        auto const sender = senderApi.document(pair.senderPath("active"), "is-05-v1.2/sender-response-schema.json");
        CHECK(sender["master_enable"] == true);
        CHECK(sender["receiver_id"] == pair.receiverId);
        CHECK(sender["transport_params"][0]["ext_mxl_target_ticket"].is_string());
        auto const receiver = pair.receiverApi.document(pair.receiverPath("active"), "is-05-v1.2/receiver-response-schema.json");
        CHECK(receiver["master_enable"] == true);
        CHECK(receiver["sender_id"] == pair.senderId);

        // A sender disabled on purpose stays so: its receiver neither stalls nor enables it again.
        nlohmann::json const off{{"master_enable", false}, {"activation", {{"mode", "activate_immediate"}}}};
        REQUIRE(senderApi.patch(pair.senderPath("staged"), off.dump()).status == 200);
        REQUIRE(restarted.waitForLine("IS-05: master_enable false: sending stopped", 10s));
        CHECK(pair.target.waitForLine("is disabled (its master_enable false)", 10s));
        CHECK_FALSE(pair.target.waitForLine("stalled", 5s));
        CHECK(senderApi.document(pair.senderPath("active"), "is-05-v1.2/sender-response-schema.json")["master_enable"] == false);
        CHECK(awaitState(pair.initiatorPort, "disabled") == "disabled");
    }
}
