// BCP-007-03's MXL transport parameters of the services' senders and receivers (null, "auto" and concrete values, the
// constraints), and a receiver's BCP-004-01 constraint set, validated against AMWA's schema.
#include "SchemaCheck.hpp"
#include "Skip.hpp"
#include "TempDomain.hpp"

#include <ConnectionResource.hpp>
#include <DomainDefinition.hpp>
#include <MxlTransport.hpp>
#include <NodeResources.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

using namespace mxl::nmos;
using json = nlohmann::json;

namespace
{
    constexpr char const* domainId = "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a";
    constexpr char const* otherDomainId = "3c9d7e21-8a4b-4f0c-b2d1-6e5f4a3b2c10";
    constexpr char const* flowId = "5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13";
    constexpr char const* otherFlowId = "7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19";

    // The status of PATCHing the leg's `name` to `value` with an immediate activation, and the active leg after it.
    std::pair<int, json> activate(ConnectionResource& resource, char const* name, json const& value)
    {
        try
        {
            auto const outcome = resource.patch(
                {{"transport_params", json::array({{{name, value}}})}, {"activation", {{"mode", "activate_immediate"}}}}, 1'000'000'000);
            return {outcome.status, resource.active()["transport_params"][0]};
        }
        catch (ConnectionError const& error)
        {
            return {error.status(), resource.active()["transport_params"][0]};
        }
    }
}

TEST_CASE("an MXL sender names its own domain and flow, accepts null and \"auto\" (resolved in active) and no other values")
{
    ConnectionResource sender{Role::Sender, mxlParams(Role::Sender, domainId, flowId), false};
    CHECK(sender.active()["transport_params"][0] == json{{"mxl_domain_id", domainId}, {"mxl_flow_id", flowId}});
    CHECK(sender.constraints() == json::array({{{"mxl_domain_id", {{"enum", {domainId}}}}, {"mxl_flow_id", {{"enum", {flowId}}}}}}));
    for (auto const* name : {"mxl_domain_id", "mxl_flow_id"})
    {
        auto const own = std::string{name} == "mxl_domain_id" ? domainId : flowId;
        auto const other = std::string{name} == "mxl_domain_id" ? otherDomainId : otherFlowId;
        INFO(name);
        auto const [nullStatus, nullLeg] = activate(sender, name, nullptr);
        CHECK(nullStatus == 200);
        CHECK(nullLeg[name].is_null());
        auto const [autoStatus, autoLeg] = activate(sender, name, "auto");
        CHECK(autoStatus == 200);
        CHECK(autoLeg[name] == own);
        CHECK(sender.staged()["transport_params"][0][name] == "auto");
        auto const [otherStatus, otherLeg] = activate(sender, name, other);
        CHECK(otherStatus == 400);
        CHECK(otherLeg[name] == own);
        CHECK(activate(sender, name, "AUTO").first == 400);
        CHECK(activate(sender, name, own).first == 200);
    }
}

TEST_CASE("an MXL receiver takes null or its one flow (never \"auto\"), the sender's domain, and resolves a domain's \"auto\" "
          "to its own")
{
    ConnectionResource receiver{Role::Receiver, mxlParams(Role::Receiver, domainId, flowId), false};
    CHECK(receiver.active()["transport_params"][0] == json{{"mxl_domain_id", nullptr}, {"mxl_flow_id", nullptr}});
    auto const constraints = receiver.constraints()[0];
    CHECK(constraints["mxl_flow_id"] == json{{"enum", {flowId}}});
    CHECK(constraints["mxl_domain_id"] == json::object());

    CHECK(activate(receiver, "mxl_flow_id", nullptr).first == 200);
    CHECK(activate(receiver, "mxl_flow_id", "auto").first == 400);
    CHECK(activate(receiver, "mxl_flow_id", otherFlowId).first == 400);
    CHECK(activate(receiver, "mxl_flow_id", flowId) == std::pair{200, json{{"mxl_domain_id", nullptr}, {"mxl_flow_id", flowId}}});
    // A controller copies the sender's domain, which is another host's.
    CHECK(activate(receiver, "mxl_domain_id", otherDomainId).second["mxl_domain_id"] == otherDomainId);
    CHECK(activate(receiver, "mxl_domain_id", "auto").second["mxl_domain_id"] == domainId);
    CHECK(activate(receiver, "mxl_domain_id", nullptr).second["mxl_domain_id"].is_null());
    CHECK(activate(receiver, "mxl_domain_id", "0B4E8F2C-6F3A-4C1D-9E7B-3A5D2C1F0E9A").first == 400);
    CHECK(activate(receiver, "mxl_domain_id", 7).first == 400);
}

TEST_CASE("a sender's ext_mxl_sender_api names its id, which a receiver compares with the sender_id it is given")
{
    auto const id = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
    CHECK(senderIdOfApi(fmt::format("http://198.51.100.7:8470/x-nmos/connection/v1.1/single/senders/{}/", id)) == id);
    CHECK(senderIdOfApi(fmt::format("https://host/x-nmos/connection/v1.2/single/senders/{}", id)) == id);
    CHECK(senderIdOfApi("http://host/x-nmos/connection/v1.1/single/senders/") == std::nullopt);
    CHECK(senderIdOfApi(fmt::format("http://host/x-nmos/connection/v1.1/single/senders/{}/staged", id)) == std::nullopt);
    CHECK(senderIdOfApi("http://host/somewhere/else") == std::nullopt);

    // A receiver takes only a sender's resource there: a receiver's, or any other URL, would be PATCHed in vain.
    auto const param = senderApiParam(Role::Receiver, "");
    CHECK(param.check(fmt::format("http://198.51.100.7:8470/x-nmos/connection/v1.1/single/senders/{}/", id)).empty());
    CHECK(param.check(nullptr).empty());
    CHECK(param.check(fmt::format("http://198.51.100.7:8470/x-nmos/connection/v1.1/single/receivers/{}/", id))
              .find(".../single/senders/<id>/") != std::string::npos);
    CHECK_FALSE(param.check("http://198.51.100.7:8470/").empty());
    // A line break would write request lines of the controller's choosing into the hand-over.
    CHECK_FALSE(param
                    .check(fmt::format(
                        "http://198.51.100.7:8470/x HTTP/1.0\r\nX-Evil: 1\r\n\r\nDELETE /x-nmos/connection/v1.1/single/senders/{}/", id))
                    .empty());
}

TEST_CASE("without a domain identity, mxl_domain_id is null and \"auto\" is refused saying why")
{
    ConnectionResource sender{Role::Sender, mxlParams(Role::Sender, std::nullopt, flowId), false};
    CHECK(sender.active()["transport_params"][0]["mxl_domain_id"].is_null());
    CHECK(sender.constraints()[0]["mxl_domain_id"] == json::object());
    try
    {
        sender.patch({{"transport_params", json::array({{{"mxl_domain_id", "auto"}}})}}, 0);
        FAIL("accepted");
    }
    catch (ConnectionError const& error)
    {
        CHECK(std::string{error.what()}.find("no usable domain_def.json") != std::string::npos);
    }
    ConnectionResource receiver{Role::Receiver, mxlParams(Role::Receiver, std::nullopt, flowId), false};
    CHECK(activate(receiver, "mxl_domain_id", "auto").first == 400);
    CHECK(activate(receiver, "mxl_domain_id", otherDomainId).first == 200);
}

TEST_CASE("constraints never list \"auto\", and every parameter has an entry")
{
    for (auto const role : {Role::Sender, Role::Receiver})
    {
        ConnectionResource resource{role, mxlParams(role, domainId, flowId), false};
        auto const leg = resource.constraints()[0];
        for (auto const& [name, constraint] : leg.items())
        {
            INFO(name, " ", constraint.dump());
            CHECK(constraint.is_object());
            CHECK((!constraint.contains("enum") || std::ranges::find(constraint["enum"], json("auto")) == constraint["enum"].end()));
        }
        CHECK(resource.constraints()[0].size() == 2);
    }
}

TEST_CASE("a receiver's caps carry a BCP-004-01 constraint set of its flow, valid against AMWA's schema")
{
    struct Case
    {
        char const* flow;
        json expected;
    };
    for (auto const& [flow, expected] : std::vector<Case>{
             {"flows/v210_1080p25.json",
              {{"urn:x-nmos:cap:format:media_type", {{"enum", {"video/v210"}}}},
               {"urn:x-nmos:cap:format:grain_rate", {{"enum", {{{"numerator", 25}, {"denominator", 1}}}}}},
               {"urn:x-nmos:cap:format:frame_width", {{"enum", {1920}}}},
               {"urn:x-nmos:cap:format:frame_height", {{"enum", {1080}}}},
               {"urn:x-nmos:cap:format:interlace_mode", {{"enum", {"progressive"}}}}}},
             {"flows/audio_48k_16ch.json",
              {{"urn:x-nmos:cap:format:sample_rate", {{"enum", {{{"numerator", 48000}, {"denominator", 1}}}}}},
               {"urn:x-nmos:cap:format:channel_count", {{"enum", {16}}}},
               {"urn:x-nmos:cap:format:sample_depth", {{"enum", {32}}}}}},
             {"flows/smpte291_59.94.json",
              {{"urn:x-nmos:cap:format:media_type", {{"enum", {"video/smpte291"}}}},
               {"urn:x-nmos:cap:format:grain_rate", {{"enum", {{{"numerator", 60000}, {"denominator", 1001}}}}}}}},
         })
    {
        auto const definition = json::parse(mxl::test::readFile(mxl::test::sourcePath(flow)));
        auto const set = receiverConstraintSet(definition);
        INFO(flow, ": ", set.dump());
        for (auto const& [capability, constraint] : expected.items())
        {
            CHECK(set[capability] == constraint);
        }
        NodeDescription description;
        description.role = Role::Receiver;
        description.hostname = "studio-a-rx1";
        description.apiHost = "198.51.100.10";
        description.apiPort = 8470;
        description.flowDefinition = definition;
        description.version = "1764072000:123456789";
        NodeResources const resources{description};
        CHECK(resources.endpoint()["caps"]["constraint_sets"] == json::array({set}));
        CHECK(resources.endpoint()["caps"]["version"] == description.version);
        if (mxl::test::schemaCheckUnavailable())
        {
            continue;
        }
        CHECK(mxl::test::schemaErrors("bcp-004-01/receiver_constraint_sets.json", resources.endpoint()) == "");
        CHECK(mxl::test::schemaErrors("is-04-v1.3/receiver.json", resources.endpoint()) == "");
    }
}
