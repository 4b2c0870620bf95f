// The services' IS-05 Connection API over real HTTP (v1.2 here; the ticket hand-over goes through v1.1, the URL the
// sender names): a target (receiver) and an initiator (sender) started unconnected; a client PATCHes the receiver with the sender's
// transport parameters and the pair connects, grains checked byte by byte; master_enable on the sender stops and resumes them; a scheduled
// activation happens on time; bad requests get NMOS errors while grains keep moving. Every document is validated against AMWA's IS-05 v1.2
// schemas where they are present.
#include "ConnectionPair.hpp"

#include <TaiText.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <mxl/time.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using json = nlohmann::json;
        using Clock = std::chrono::steady_clock;

        constexpr char const* api = connectionApi;
        // The test flow's grain period (50 grains/s).
        constexpr std::uint64_t grainNs = 20'000'000;

        // Walks a service's Connection API as a controller would; every answer valid against its schema.
        void walkConnectionApi(ApiClient& client, bool sender, std::string const& id)
        {
            // The version listing has no schema.
            auto const versions = client.get("/x-nmos/connection/");
            CHECK(versions.status == 200);
            CHECK(versions.body == json{"v1.1/", "v1.2/"});
            CHECK(client.document(fmt::format("{}/", api), "is-05-v1.2/connectionapi-base.json") == json{"bulk/", "single/"});
            CHECK(client.document(fmt::format("{}/single", api), "is-05-v1.2/connectionapi-single.json") == json{"senders/", "receivers/"});
            auto const kind = sender ? "senders" : "receivers";
            CHECK(
                client.document(fmt::format("{}/single/{}/", api, sender ? "receivers" : "senders"), "is-05-v1.2/sender-receiver-base.json")
                    .empty());
            auto const base = fmt::format("{}/single/{}/{}/", api, kind, id);
            auto const listing =
                client.document(base, sender ? "is-05-v1.2/connectionapi-sender.json" : "is-05-v1.2/connectionapi-receiver.json");
            CHECK(listing.size() == (sender ? 5U : 4U));
            auto const response = sender ? "is-05-v1.2/sender-response-schema.json" : "is-05-v1.2/receiver-response-schema.json";
            auto const staged = client.document(base + "staged", response);
            auto const active = client.document(base + "active", response);
            CHECK(staged["master_enable"] == false);
            CHECK(active["activation"]["mode"].is_null());
            CHECK(mxlConnectionErrors(response, active, false) == "");
            // IS-05's constraint schemas know no MXL leg, and its transport type schema enumerates only rtp, dash,
            // websocket and mqtt: these two are checked by value, against BCP-007-03.
            auto const constraints = client.get(base + "constraints");
            REQUIRE(constraints.status == 200);
            REQUIRE(constraints.body.size() == 1);
            CHECK(constraints.body[0].contains("ext_mxl_sender_api"));
            CHECK(constraints.body[0]["mxl_flow_id"] == json{{"enum", {serviceTestFlowId}}});
            for (auto const& [name, constraint] : constraints.body[0].items())
            {
                INFO(name);
                CHECK(constraint.is_object());
                CHECK(constraint.value("enum", json::array()).dump().find("\"auto\"") == std::string::npos);
            }
            if (sender)
            {
                CHECK(active["transport_params"][0]["mxl_flow_id"] == serviceTestFlowId);
                CHECK(constraints.body[0]["mxl_domain_id"] == json{{"enum", {active["transport_params"][0]["mxl_domain_id"]}}});
            }
            auto const type = client.get(base + "transporttype");
            REQUIRE(type.status == 200);
            CHECK(type.body == "urn:x-nmos:transport:mxl");
            if (sender)
            {
                CHECK(constraints.body[0].contains("ext_mxl_target_ticket"));
                checkError(client.get(base + "transportfile"), 404, "has no transport file");
            }
        }
    }

    TEST_CASE("is-05: a receiver PATCHed with the sender's transport parameters and activate_immediate connects the pair, grains "
              "arrive byte-exact, and master_enable false on the sender stops them until true")
    {
        UnconnectedPair pair;
        walkConnectionApi(pair.receiverApi, false, pair.receiverId);
        walkConnectionApi(pair.senderApi, true, pair.senderId);
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        CHECK(verifier.check(1, 1s).verified == 0);

        pair.connectNow();
        requireFlowing(verifier, 50, "after the receiver's activation");
        REQUIRE(pair.target.waitForLine("IS-05: ticket handed to sender", 10s));
        auto const receiverActive = pair.receiverApi.document(pair.receiverPath("active"), "is-05-v1.2/receiver-response-schema.json");
        CHECK(receiverActive["sender_id"] == pair.senderId);
        CHECK(receiverActive["master_enable"] == true);
        auto const senderActive = pair.senderApi.document(pair.senderPath("active"), "is-05-v1.2/sender-response-schema.json");
        CHECK(senderActive["receiver_id"] == pair.receiverId);
        CHECK(senderActive["master_enable"] == true);
        auto const ticket = senderActive["transport_params"][0]["ext_mxl_target_ticket"];
        REQUIRE(ticket.is_string());
        CHECK(json::parse(ticket.get<std::string>())["epoch"] == std::to_string(ticketEpoch(pair.directories.ticketFile())));

        CHECK(awaitState(pair.initiatorPort, "active") == "active");

        pair.setSenderEnabled(false);
        REQUIRE(pair.initiator.waitForLine("IS-05: master_enable false: sending stopped", 10s));
        CHECK(awaitState(pair.initiatorPort, "disabled") == "disabled");
        // What was in flight when the target was removed lands; after that the flow's head stands still.
        verifier.check(1000, 500ms);
        CHECK(verifier.check(1, 1500ms).verified == 0);
        auto const stopped = pair.senderApi.document(pair.senderPath("active"), "is-05-v1.2/sender-response-schema.json");
        CHECK(stopped["master_enable"] == false);
        CHECK(stopped["transport_params"][0]["ext_mxl_target_ticket"].is_string());

        pair.setSenderEnabled(true);
        requireFlowing(verifier, 50, "after master_enable true");
        CHECK(awaitState(pair.initiatorPort, "active") == "active");
    }

    TEST_CASE("is-05: a scheduled relative activation of the receiver happens within a grain of its time, and grains follow")
    {
        UnconnectedPair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        auto const before = ::mxlGetTime();
        auto const answer = pair.receiverApi.patch(
            pair.receiverPath("staged"), pair.receiverPatch({{"mode", "activate_scheduled_relative"}, {"requested_time", "2:0"}}).dump());
        INFO(answer.body.dump());
        REQUIRE(answer.status == 202);
        checkValid("is-05-v1.2/receiver-response-schema.json", answer.body);
        CHECK(answer.body["activation"]["mode"] == "activate_scheduled_relative");
        CHECK(answer.body["activation"]["requested_time"] == "2:0");
        auto const due = nmos::parseTaiText(answer.body["activation"]["activation_time"].get<std::string>());
        REQUIRE(due);
        CHECK(*due >= before + 2'000'000'000ULL);
        CHECK(*due <= ::mxlGetTime() + 2'000'000'000ULL);

        // Nothing moves before the activation: watched until shortly before it is due.
        auto const quiet = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds{*due - ::mxlGetTime()}) - 300ms;
        if (quiet > 0ms)
        {
            CHECK(verifier.check(1, quiet).verified == 0);
        }
        json active;
        auto const deadline = Clock::now() + 10s;
        while (Clock::now() < deadline)
        {
            active = pair.receiverApi.document(pair.receiverPath("active"), "is-05-v1.2/receiver-response-schema.json");
            if (active["master_enable"] == true)
            {
                break;
            }
            std::this_thread::sleep_for(50ms);
        }
        INFO(active.dump());
        REQUIRE(active["master_enable"] == true);
        CHECK(active["activation"]["mode"] == "activate_scheduled_relative");
        auto const activatedAt = nmos::parseTaiText(active["activation"]["activation_time"].get<std::string>());
        REQUIRE(activatedAt);
        CHECK(*activatedAt >= *due);
        CHECK(*activatedAt - *due < grainNs);
        CHECK(pair.receiverApi.document(pair.receiverPath("staged"), "is-05-v1.2/receiver-response-schema.json")["activation"]["mode"]
                  .is_null());
        requireFlowing(verifier, 50, "after the scheduled activation");
    }

    TEST_CASE("is-05: malformed bodies, unknown ids, locked and past activations get NMOS errors or documented answers, and "
              "grains keep moving")
    {
        ConnectedPair pair;
        auto& verifier = pair.verifier;

        checkError(pair.receiverApi.patch(pair.receiverPath("staged"), "{\"master_enable\": tru"), 400, "the body is not JSON");
        checkError(pair.receiverApi.patch(pair.receiverPath("staged"), "{\"master_enable\": 1}"), 400,
                   "'master_enable' is 1; expected true or false");
        checkError(pair.senderApi.patch(pair.senderPath("staged"), R"({"transport_params": [{"ext_mxl_target_ticket": "not a ticket"}]})"),
                   400, "transport parameter 'ext_mxl_target_ticket' value \"not a ticket\"");
        checkError(
            pair.senderApi.patch(pair.senderPath("staged"), R"({"transport_params": [{"ext_mxl_sender_api": "http://elsewhere/"}]})"), 400,
            "cannot be changed");
        auto const unknown = "00000000-0000-4000-8000-000000000000";
        checkError(pair.senderApi.patch(fmt::format("{}/single/senders/{}/staged", api, unknown), R"({"master_enable": false})"), 404,
                   fmt::format("this service's only sender is {}", pair.senderId));
        checkError(pair.receiverApi.get(fmt::format("{}/single/receivers/{}/active", api, unknown)), 404, "only receiver is");
        checkError(pair.senderApi.send("DELETE", pair.senderPath("staged")), 405, "only GET, HEAD and PATCH");
        checkError(pair.senderApi.get(fmt::format("{}/bulk/senders", api)), 405, "only POST here");

        // An absolute time already past is met at once (activation_time is when it happened), a documented answer.
        auto const past = pair.senderApi.patch(pair.senderPath("staged"),
                                               R"({"activation": {"mode": "activate_scheduled_absolute", "requested_time": "1000:0"}})");
        INFO(past.body.dump());
        CHECK(past.status == 200);
        checkValid("is-05-v1.2/sender-response-schema.json", past.body);
        CHECK(past.body["activation"]["requested_time"] == "1000:0");
        CHECK(nmos::parseTaiText(past.body["activation"]["activation_time"].get<std::string>()) > 1000'000'000'000ULL);

        // A pending scheduled activation locks staged until it happens or is cancelled.
        auto const scheduled = pair.receiverApi.patch(
            pair.receiverPath("staged"), R"({"activation": {"mode": "activate_scheduled_relative", "requested_time": "60:0"}})");
        CHECK(scheduled.status == 202);
        checkError(pair.receiverApi.patch(pair.receiverPath("staged"), R"({"master_enable": false})"), 423, "locked by the activation");
        auto const cancelled = pair.receiverApi.patch(pair.receiverPath("staged"), R"({"activation": {"mode": null}})");
        CHECK(cancelled.status == 200);
        checkValid("is-05-v1.2/receiver-response-schema.json", cancelled.body);

        requireFlowing(verifier, 50, "after the bad requests");
        CHECK_FALSE(pair.target.wait(0ms));
        CHECK_FALSE(pair.initiator.wait(0ms));
        auto const log = pair.target.output();
        CHECK(log.find("IS-05: PATCH /x-nmos/connection/v1.2/single/receivers/") != std::string::npos);
        CHECK(log.find("refused (400): the body is not JSON") != std::string::npos);
    }
}

namespace mxl::test
{
    TEST_CASE("is-05: master_enable false on the receiver takes its ticket back from the sender, which stops sending and waits")
    {
        UnconnectedPair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        CHECK(awaitState(pair.initiatorPort, "disabled") == "disabled");
        // Enabled with no ticket to use: the sender waits for one.
        pair.setSenderEnabled(true);
        CHECK(awaitState(pair.initiatorPort, "waiting") == "waiting");
        pair.connectNow();
        requireFlowing(verifier, 25, "after connecting");

        auto const answer = pair.receiverApi.patch(pair.receiverPath("staged"),
                                                   R"({"master_enable": false, "activation": {"mode": "activate_immediate"}})");
        REQUIRE(answer.status == 200);
        checkValid("is-05-v1.2/receiver-response-schema.json", answer.body);
        REQUIRE(pair.target.waitForLine("IS-05: ticket taken back from sender", 10s));
        REQUIRE(pair.initiator.waitForLine("receiver none, no ticket", 10s));
        CHECK(awaitState(pair.initiatorPort, "waiting") == "waiting");
        verifier.check(1000, 500ms);
        CHECK(verifier.check(1, 1500ms).verified == 0);
        auto const sender = pair.senderApi.document(pair.senderPath("active"), "is-05-v1.2/sender-response-schema.json");
        CHECK(sender["receiver_id"].is_null());
        CHECK(sender["transport_params"][0]["ext_mxl_target_ticket"].is_null());
        // The receiver keeps what it was connected with; activating it again reconnects.
        auto const receiver = pair.receiverApi.document(pair.receiverPath("active"), "is-05-v1.2/receiver-response-schema.json");
        CHECK(receiver["sender_id"] == pair.senderId);
        CHECK(receiver["transport_params"][0]["ext_mxl_sender_api"].is_string());
        pair.connectNow();
        requireFlowing(verifier, 25, "after activating the receiver again");
    }
}

namespace mxl::test
{
    TEST_CASE("is-05: bulk activation applies each entry as its own PATCH would, answers a code per entry, and connects the pair")
    {
        UnconnectedPair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        auto const unknown = "00000000-0000-4000-8000-000000000000";
        auto const bulkReceivers = fmt::format("{}/bulk/receivers", api);
        auto const bulkSenders = fmt::format("{}/bulk/senders", api);

        // A malformed entry refuses the whole body, naming it, and stages nothing.
        json const malformed =
            json::array({{{"id", pair.receiverId}, {"params", pair.receiverPatch({{"mode", "activate_immediate"}})}}, {{"id", unknown}}});
        checkError(pair.receiverApi.post(bulkReceivers, malformed.dump()), 400, "entry 1 of the body is {\"id\":");
        checkError(pair.receiverApi.post(bulkReceivers, R"({"id": "x"})"), 400, "the body is not a JSON array");
        CHECK(verifier.check(1, 1s).verified == 0);
        CHECK(pair.receiverApi.document(pair.receiverPath("staged"), "is-05-v1.2/receiver-response-schema.json")["master_enable"] == false);

        json const request = json::array({{{"id", unknown}, {"params", {{"master_enable", true}}}},
                                          {{"id", pair.receiverId}, {"params", pair.receiverPatch({{"mode", "activate_immediate"}})}},
                                          {{"id", pair.receiverId}, {"params", {{"master_enable", "yes"}}}}});
        // The last entry is meant to be refused: its value is not the schema's.
        checkValid("is-05-v1.2/bulk-receiver-post-schema.json", json::array({request[0], request[1]}));
        auto const answer = pair.receiverApi.post(bulkReceivers, request.dump());
        INFO(answer.body.dump());
        REQUIRE(answer.status == 200);
        checkValid("is-05-v1.2/bulk-response-schema.json", answer.body);
        REQUIRE(answer.body.size() == 3);
        CHECK(answer.body[0]["id"] == unknown);
        CHECK(answer.body[0]["code"] == 404);
        CHECK(answer.body[0]["error"].get<std::string>().find(fmt::format("this service's only receiver is {}", pair.receiverId)) !=
              std::string::npos);
        CHECK(answer.body[1] == json{{"id", pair.receiverId}, {"code", 200}});
        CHECK(answer.body[2]["code"] == 400);
        CHECK(answer.body[2]["error"].get<std::string>().find("'master_enable' is \"yes\"") != std::string::npos);
        requireFlowing(verifier, 25, "after the bulk activation of the receiver");
        auto const active = pair.receiverApi.document(pair.receiverPath("active"), "is-05-v1.2/receiver-response-schema.json");
        CHECK(active["sender_id"] == pair.senderId);
        CHECK(active["master_enable"] == true);

        // A sender's service has no receivers: every entry of bulk/receivers there is a 404.
        auto const elsewhere =
            pair.senderApi.post(bulkReceivers, json::array({{{"id", pair.receiverId}, {"params", json::object()}}}).dump());
        REQUIRE(elsewhere.status == 200);
        checkValid("is-05-v1.2/bulk-response-schema.json", elsewhere.body);
        CHECK(elsewhere.body[0]["code"] == 404);
        CHECK(elsewhere.body[0]["error"].get<std::string>().find("this service has no receivers") != std::string::npos);

        // master_enable false on the sender through bulk/senders stops the grains, as the single PATCH does.
        json const stop = json::array(
            {{{"id", pair.senderId}, {"params", {{"master_enable", false}, {"activation", {{"mode", "activate_immediate"}}}}}}});
        checkValid("is-05-v1.2/bulk-sender-post-schema.json", stop);
        auto const stopped = pair.senderApi.post(bulkSenders, stop.dump());
        REQUIRE(stopped.status == 200);
        CHECK(stopped.body == json::array({{{"id", pair.senderId}, {"code", 200}}}));
        REQUIRE(pair.initiator.waitForLine("IS-05: master_enable false: sending stopped", 10s));
        verifier.check(1000, 500ms);
        CHECK(verifier.check(1, 1500ms).verified == 0);
    }
}
