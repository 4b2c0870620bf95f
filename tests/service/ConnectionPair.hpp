// A target and an initiator service with HTTP, started unconnected, and what a controller uses to connect them over
// IS-05 v1.2: a client whose every answer is JSON (and, where asked, valid against AMWA's schema), NMOS error checks,
// and the service state /metrics reports.
#pragma once

#include "FlowChecker.hpp"
#include "NotifySocket.hpp"
#include "PatternSource.hpp"
#include "SchemaCheck.hpp"
#include "ServiceProcess.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <thread>

namespace mxl::test
{
    inline constexpr char const* connectionApi = "/x-nmos/connection/v1.2";

    inline void checkValid(std::string const& schema, nlohmann::json const& document)
    {
        INFO(schema, ": ", document.dump());
        CHECK(mxlConnectionErrors(schema, document, true) == "");
    }

    struct ApiAnswer
    {
        int status = 0;
        nlohmann::json body;
    };

    class ApiClient
    {
    public:
        explicit ApiClient(int port)
            : _client{"127.0.0.1", port}
        {
            _client.set_read_timeout(10, 0);
        }

        ApiAnswer get(std::string const& path)
        {
            return answer("GET", path, _client.Get(path));
        }

        ApiAnswer patch(std::string const& path, std::string const& body)
        {
            return answer("PATCH", path, _client.Patch(path, body, "application/json"));
        }

        ApiAnswer post(std::string const& path, std::string const& body)
        {
            return answer("POST", path, _client.Post(path, body, "application/json"));
        }

        ApiAnswer send(std::string const& method, std::string const& path)
        {
            httplib::Request request;
            request.method = method;
            request.path = path;
            return answer(method, path, _client.send(request));
        }

        // GET of a document that must be there and valid against `schema`.
        nlohmann::json document(std::string const& path, std::string const& schema)
        {
            auto const got = get(path);
            INFO("GET ", path, " -> ", got.status, " ", got.body.dump());
            REQUIRE(got.status == 200);
            checkValid(schema, got.body);
            return got.body;
        }

    private:
        httplib::Client _client;

        static ApiAnswer answer(std::string const& method, std::string const& path, httplib::Result const& result)
        {
            REQUIRE_MESSAGE(result, method, " ", path, " failed");
            INFO(method, " ", path, " -> ", result->status, " ", result->body);
            CHECK(result->get_header_value("Content-Type") == "application/json");
            return {result->status, nlohmann::json::parse(result->body, nullptr, false)};
        }
    };

    // An NMOS error with `status` whose message contains `says`.
    inline void checkError(ApiAnswer const& answer, int status, std::string const& says)
    {
        INFO(answer.body.dump());
        CHECK(answer.status == status);
        checkValid("is-05-v1.2/error.json", answer.body);
        CHECK(answer.body["code"] == status);
        CHECK(answer.body["error"].get<std::string>().find(says) != std::string::npos);
    }

    // A target and an initiator, both with HTTP, neither told about the other; the source flow written by the test.
    struct UnconnectedPair
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        NotifySocket targetNotify;
        ServiceProcess target{targetSettings(directories), notifyEnvironment(targetNotify)};
        int targetPort = target.httpPort();
        ServiceProcess initiator{unconnectedInitiator(directories)};
        int initiatorPort = initiator.httpPort();
        ApiClient receiverApi{targetPort};
        ApiClient senderApi{initiatorPort};
        std::string receiverId;
        std::string senderId;

        // `targetChanges`: settings of the target in place of the usual ones.
        explicit UnconnectedPair(Settings const& targetChanges = {})
            : target{changed(targetSettings(directories), targetChanges), notifyEnvironment(targetNotify)}
        {
            REQUIRE(targetNotify.waitFor("READY=1", std::chrono::seconds{10}));
            REQUIRE(targetPort != 0);
            REQUIRE(initiatorPort != 0);
            REQUIRE(initiator.waitForLine("waiting for an IS-05 activation of sender", std::chrono::seconds{10}));
            auto const receivers =
                receiverApi.document(fmt::format("{}/single/receivers/", connectionApi), "is-05-v1.2/sender-receiver-base.json");
            auto const senders =
                senderApi.document(fmt::format("{}/single/senders/", connectionApi), "is-05-v1.2/sender-receiver-base.json");
            REQUIRE(receivers.size() == 1);
            REQUIRE(senders.size() == 1);
            receiverId = receivers[0].get<std::string>();
            receiverId.pop_back();
            senderId = senders[0].get<std::string>();
            senderId.pop_back();
        }

        static Settings changed(Settings settings, Settings const& changes)
        {
            for (auto const& [key, value] : changes)
            {
                settings = with(std::move(settings), key, value);
            }
            return settings;
        }

        static Settings unconnectedInitiator(ServiceDirectories const& directories)
        {
            auto settings = initiatorSettings(directories, "");
            std::erase_if(settings, [](auto const& setting) { return setting.first == "ticket"; });
            settings.emplace_back("http_listen", "127.0.0.1:0");
            return settings;
        }

        [[nodiscard]] std::string receiverPath(std::string const& what) const
        {
            return fmt::format("{}/single/receivers/{}/{}", connectionApi, receiverId, what);
        }

        [[nodiscard]] std::string senderPath(std::string const& what) const
        {
            return fmt::format("{}/single/senders/{}/{}", connectionApi, senderId, what);
        }

        // What a controller copies from the sender into the receiver: the sender's transport parameters.
        nlohmann::json senderTransportParams()
        {
            auto const active = senderApi.document(senderPath("active"), "is-05-v1.2/sender-response-schema.json");
            auto const& leg = active["transport_params"][0];
            REQUIRE(leg["ext_mxl_sender_api"].is_string());
            // BCP-007-03's two, as any controller copies them, and the hop's own.
            return nlohmann::json::array({{{"mxl_domain_id", leg["mxl_domain_id"]},
                                           {"mxl_flow_id", leg["mxl_flow_id"]},
                                           {"ext_mxl_sender_api", leg["ext_mxl_sender_api"]}}});
        }

        nlohmann::json receiverPatch(nlohmann::json const& activation)
        {
            nlohmann::json const body{{"sender_id", senderId},
                                      {"master_enable", true},
                                      {"transport_params", senderTransportParams()},
                                      {"activation", activation}};
            checkValid("is-05-v1.2/receiver-stage-schema.json", body);
            return body;
        }

        void connectNow()
        {
            auto const answer = receiverApi.patch(receiverPath("staged"), receiverPatch({{"mode", "activate_immediate"}}).dump());
            INFO(answer.body.dump());
            REQUIRE(answer.status == 200);
            checkValid("is-05-v1.2/receiver-response-schema.json", answer.body);
        }

        void setSenderEnabled(bool enabled)
        {
            nlohmann::json const body{{"master_enable", enabled}, {"activation", {{"mode", "activate_immediate"}}}};
            checkValid("is-05-v1.2/sender-stage-schema.json", body);
            auto const answer = senderApi.patch(senderPath("staged"), body.dump());
            INFO(answer.body.dump());
            REQUIRE(answer.status == 200);
            checkValid("is-05-v1.2/sender-response-schema.json", answer.body);
            CHECK(answer.body["master_enable"] == enabled);
        }
    };

    // The pair connected by the receiver's activation, grains flowing into the target's flow.
    struct ConnectedPair : UnconnectedPair
    {
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};

        explicit ConnectedPair(Settings const& targetChanges = {})
            : UnconnectedPair{targetChanges}
        {
            connectNow();
            requireFlowing(verifier, 25, "after connecting");
        }
    };

    // The value /metrics gives the service on `port` for the counter `name`; nullopt without one.
    inline std::optional<std::uint64_t> metricValue(int port, std::string const& name)
    {
        std::regex const line{fmt::format(R"re(\n{}\{{[^}}]*\}} (\d+)\n)re", name)};
        httplib::Client client{"127.0.0.1", port};
        auto const answer = client.Get("/metrics");
        std::smatch match;
        return answer && std::regex_search(answer->body, match, line) ? std::optional{std::stoull(match[1].str())} : std::nullopt;
    }

    // The state /metrics gives the service on `port`, once it is `wanted` or 10 s passed.
    inline std::string awaitState(int port, std::string const& wanted)
    {
        static std::regex const line{R"re(\nmxl_service_state\{[^}]*state="(\w+)"\} 1)re"};
        httplib::Client client{"127.0.0.1", port};
        std::string state;
        for (auto const end = std::chrono::steady_clock::now() + std::chrono::seconds{10};
             state != wanted && std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(std::chrono::milliseconds{50}))
        {
            auto const answer = client.Get("/metrics");
            std::smatch match;
            state = answer && std::regex_search(answer->body, match, line) ? match[1].str() : "";
        }
        return state;
    }
}
