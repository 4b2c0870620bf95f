// The IS-05 v1.1 logic of one sender and one receiver: staging, immediate and scheduled activation, cancelling, and
// the errors of bad PATCHes; every document validated against AMWA's IS-05 v1.1 schemas.
#include "SchemaCheck.hpp"
#include "Skip.hpp"

#include <ConnectionResource.hpp>
#include <TaiText.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

using namespace mxl::nmos;
using json = nlohmann::json;
using mxl::test::schemaCheckUnavailable;
using mxl::test::schemaErrors;

namespace
{
    constexpr std::uint64_t second = 1'000'000'000ULL;
    constexpr std::uint64_t now = 1'764'072'000ULL * second + 250'000'000ULL;
    constexpr char const* senderId = "0b1e3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d";

    TransportParam senderApi()
    {
        return {"ext_mxl_sender_api", nullptr, json::object(), [](json const& value) {
                    return value.is_null() || value.is_string() ? std::string{} : std::string{"expected a URL or null"};
                }};
    }

    ConnectionResource receiver()
    {
        return ConnectionResource{Role::Receiver, {senderApi()}, false};
    }

    void checkValid(std::string const& schema, json const& document)
    {
        if (schemaCheckUnavailable())
        {
            return;
        }
        INFO(schema, ": ", document.dump());
        CHECK(schemaErrors(schema, document) == "");
    }

    // The error of a PATCH that must be refused.
    ConnectionError refusal(ConnectionResource& resource, json const& body)
    {
        try
        {
            resource.patch(body, now);
        }
        catch (ConnectionError const& error)
        {
            checkValid("is-05-v1.1/error.json", error.document());
            return error;
        }
        FAIL("the PATCH was accepted: ", body.dump());
        return ConnectionError{0, ""};
    }

    // A PATCH a receiver must answer with `status`, its response valid.
    ConnectionResource::PatchOutcome accepted(ConnectionResource& resource, json const& body, int status)
    {
        auto outcome = resource.patch(body, now);
        CHECK(outcome.status == status);
        checkValid("is-05-v1.1/receiver-response-schema.json", outcome.body);
        return outcome;
    }
}

TEST_CASE("TAI texts are <seconds>:<nanoseconds>, and malformed ones are refused")
{
    CHECK(taiText(now) == "1764072000:250000000");
    struct Case
    {
        std::string text;
        std::optional<std::uint64_t> ns;
        // Written as a TAI time, whether or not 64 bits of ns hold it.
        bool form;
    };
    for (auto const& [text, ns, form] : std::initializer_list<Case>{
             {"1764072000:250000000", now, true},
             {"0:5", 5, true},
             {"0:999999999", 999'999'999, true},
             {"18446744073:709551615", std::numeric_limits<std::uint64_t>::max(), true},
             {"18446744073:709551616", std::nullopt, true},
             {"99999999999999999999:0", std::nullopt, true},
             {"1:1000000000", std::nullopt, false},
             {"-1:0", std::nullopt, false},
             {":5", std::nullopt, false},
             {"1.5", std::nullopt, false},
         })
    {
        INFO(text);
        CHECK(parseTaiText(text) == ns);
        CHECK(hasTaiForm(text) == form);
    }
}

TEST_CASE("a receiver stages parameters and activates them immediately, every document valid IS-05 v1.1")
{
    MXL_SKIP_IF(schemaCheckUnavailable());
    auto resource = receiver();
    checkValid("is-05-v1.1/receiver-response-schema.json", resource.staged());
    checkValid("is-05-v1.1/receiver-response-schema.json", resource.active());
    CHECK(resource.active()["master_enable"] == false);
    CHECK(resource.active()["transport_params"] == json::array({{{"ext_mxl_sender_api", nullptr}}}));

    auto const staging = accepted(resource, {{"sender_id", senderId}, {"transport_params", {{{"ext_mxl_sender_api", "http://a/"}}}}}, 200);
    CHECK(staging.body["sender_id"] == senderId);
    CHECK(resource.active()["sender_id"].is_null());
    CHECK(resource.activations() == 0);

    json const activation{{"master_enable", true}, {"activation", {{"mode", "activate_immediate"}}}};
    checkValid("is-05-v1.1/receiver-stage-schema.json", activation);
    auto const activated = accepted(resource, activation, 200);
    CHECK(activated.body["activation"] ==
          json{{"mode", "activate_immediate"}, {"requested_time", nullptr}, {"activation_time", "1764072000:250000000"}});
    CHECK(resource.activations() == 1);
    auto const active = resource.active();
    checkValid("is-05-v1.1/receiver-response-schema.json", active);
    CHECK(active["sender_id"] == senderId);
    CHECK(active["master_enable"] == true);
    CHECK(active["transport_params"][0]["ext_mxl_sender_api"] == "http://a/");
    // Staged returns to no activation once it happened.
    CHECK(resource.staged()["activation"]["mode"].is_null());
    CHECK(resource.staged()["activation"]["activation_time"].is_null());
    // The v1.1 constraint schemas each require their transport's own parameters (rtp, websocket, mqtt), which a leg of
    // only ext_ parameters cannot have: the constraints are checked by value.
    CHECK(resource.constraints() == json::array({{{"ext_mxl_sender_api", json::object()}}}));
}

TEST_CASE("a scheduled relative activation happens at its time, locks staged until then, and can be cancelled")
{
    auto resource = receiver();
    auto const scheduled = accepted(
        resource, {{"master_enable", true}, {"activation", {{"mode", "activate_scheduled_relative"}, {"requested_time", "1:500000000"}}}},
        202);
    CHECK(scheduled.body["activation"]["activation_time"] == taiText(now + 3 * second / 2));
    CHECK(resource.scheduledFor() == now + 3 * second / 2);

    auto const locked = refusal(resource, {{"master_enable", false}});
    CHECK(locked.status() == 423);
    CHECK(std::string{locked.what()}.find("locked by the activation scheduled for 1764072001:750000000") != std::string::npos);

    CHECK_FALSE(resource.activateIfDue(now + second));
    CHECK(resource.active()["master_enable"] == false);
    CHECK(resource.activateIfDue(now + 3 * second / 2));
    auto const active = resource.active();
    checkValid("is-05-v1.1/receiver-response-schema.json", active);
    CHECK(active["master_enable"] == true);
    CHECK(active["activation"] == json{{"mode", "activate_scheduled_relative"},
                                       {"requested_time", "1:500000000"},
                                       {"activation_time", taiText(now + 3 * second / 2)}});
    CHECK_FALSE(resource.scheduledFor());

    resource.patch({{"activation", {{"mode", "activate_scheduled_absolute"}, {"requested_time", taiText(now + 10 * second)}}}}, now);
    auto const cancelled = resource.patch({{"master_enable", false}, {"activation", {{"mode", nullptr}}}}, now);
    CHECK(cancelled.status == 200);
    CHECK(cancelled.body["activation"]["mode"].is_null());
    CHECK_FALSE(resource.scheduledFor());
    CHECK_FALSE(resource.activateIfDue(now + 20 * second));
    CHECK(resource.active()["master_enable"] == true);
    CHECK(resource.activations() == 1);
}

TEST_CASE("a scheduled absolute activation at a time already past happens at once")
{
    auto resource = receiver();
    auto const past = accepted(
        resource, {{"master_enable", true}, {"activation", {{"mode", "activate_scheduled_absolute"}, {"requested_time", "1764071990:0"}}}},
        200);
    CHECK(past.body["activation"] ==
          json{{"mode", "activate_scheduled_absolute"}, {"requested_time", "1764071990:0"}, {"activation_time", "1764072000:250000000"}});
    CHECK(resource.active()["master_enable"] == true);
    CHECK_FALSE(resource.scheduledFor());
}

TEST_CASE("malformed PATCHes are refused with 400 naming the key and the value, and change nothing")
{
    auto resource = receiver();
    auto const before = resource.staged();
    struct Case
    {
        json body;
        std::string says;
    };
    for (auto const& [body, says] : std::initializer_list<Case>{
             {json::parse("[1]"), "the body is array; expected a JSON object"},
             {json::parse("not json", nullptr, false), "the body is not JSON; expected a JSON object"},
             {{{"master_enable", "yes"}}, "'master_enable' is \"yes\"; expected true or false"},
             {{{"sender_id", "42"}}, "'sender_id' is \"42\"; expected a UUID or null"},
             {{{"receiver_id", nullptr}}, "'receiver_id' is not a key of a receiver's staged parameters"},
             {{{"transport_params", {{{"ext_other", 1}}}}}, "transport parameter 'ext_other' is not one of this receiver's"},
             {{{"transport_params", {{{"ext_mxl_sender_api", 5}}}}}, "transport parameter 'ext_mxl_sender_api' value 5: expected a URL"},
             {{{"transport_params", json::array()}}, "expected an array of one object (one leg)"},
             {{{"transport_file", {{"data", "v=0"}, {"type", "application/sdp"}}}}, "the MXL transport has no transport file"},
             {{{"master_enable", true}, {"activation", {{"mode", "activate_later"}}}}, "activation mode \"activate_later\" is none of"},
             {{{"activation", {{"mode", "activate_scheduled_relative"}}}}, "needs 'requested_time' as \"<seconds>:<nanoseconds>\""},
             {{{"activation", {{"mode", "activate_scheduled_absolute"}, {"requested_time", "12:1000000000"}}}}, "got \"12:1000000000\""},
             {{{"activation", {{"mode", "activate_scheduled_absolute"}, {"requested_time", "18446744073709551615:0"}}}},
              "'requested_time' \"18446744073709551615:0\" is a time past the last TAI time this API can hold (18446744073:709551615)"},
             {{{"activation", {{"mode", "activate_scheduled_relative"}, {"requested_time", "18446744073:709551616"}}}},
              "'requested_time' \"18446744073:709551616\" is an offset past the last TAI time"},
             {{{"activation", {{"mode", nullptr}, {"when", 1}}}}, "'activation' has the key 'when'"},
         })
    {
        INFO(body.dump());
        auto const error = refusal(resource, body);
        CHECK(error.status() == 400);
        CHECK(std::string{error.what()}.find(says) != std::string::npos);
        CHECK(error.document()["code"] == 400);
        CHECK(resource.staged() == before);
    }
    CHECK(resource.activations() == 0);
}

TEST_CASE("a sender's documents carry receiver_id and no transport file")
{
    ConnectionResource sender{
        Role::Sender, {{"ext_mxl_target_ticket", nullptr, json::object(), [](json const&) { return std::string{}; }}}, true};
    auto const outcome = sender.patch({{"receiver_id", senderId},
                                       {"transport_params", {{{"ext_mxl_target_ticket", "{\"provider\":\"tcp\"}"}}}},
                                       {"activation", {{"mode", "activate_immediate"}}}},
                                      now);
    checkValid("is-05-v1.1/sender-response-schema.json", outcome.body);
    checkValid("is-05-v1.1/sender-response-schema.json", sender.active());
    CHECK_FALSE(sender.active().contains("transport_file"));
    CHECK(sender.active()["receiver_id"] == senderId);
    CHECK(sender.active()["transport_params"][0]["ext_mxl_target_ticket"] == "{\"provider\":\"tcp\"}");
}
