// A controller's path through NMOS, as a process test: a registry runs, a target and an initiator register with it,
// and a client that speaks only IS-04 (the registry's Query API) and IS-05 (the Connection APIs it finds through the
// devices' controls) connects them. Grains move byte-exact; the sender's master_enable false stops them.
#include "RegistryProcess.hpp"
#include "SchemaCheck.hpp"
#include "ServiceScenario.hpp"
#include "Skip.hpp"
#include "TestFlow.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using json = nlohmann::json;

        // An http://host:port/path URL split as a client needs it.
        struct Url
        {
            std::string host;
            int port = 0;
            std::string path;
        };

        Url splitUrl(std::string const& url)
        {
            auto const scheme = std::string{"http://"};
            REQUIRE_MESSAGE(url.starts_with(scheme), url);
            auto const rest = url.substr(scheme.size());
            auto const slash = rest.find('/');
            auto const authority = rest.substr(0, slash);
            auto const colon = authority.rfind(':');
            REQUIRE_MESSAGE(colon != std::string::npos, url);
            return {authority.substr(0, colon), std::stoi(authority.substr(colon + 1)),
                    slash == std::string::npos ? "/" : rest.substr(slash)};
        }

        // What the controller knows: only URLs, from the registry or from documents.
        class Controller
        {
        public:
            explicit Controller(std::string const& registryUrl)
                : _registry{splitUrl(registryUrl)}
            {
            }

            json get(std::string const& url)
            {
                auto const where = splitUrl(url);
                httplib::Client client{where.host, where.port};
                client.set_read_timeout(10, 0);
                auto const answer = client.Get(where.path);
                REQUIRE_MESSAGE(answer, "GET ", url, " failed");
                INFO("GET ", url, " -> ", answer->status, " ", answer->body);
                REQUIRE(answer->status == 200);
                return json::parse(answer->body);
            }

            json patch(std::string const& url, json const& body, std::string const& schema)
            {
                auto const where = splitUrl(url);
                httplib::Client client{where.host, where.port};
                client.set_read_timeout(10, 0);
                auto const answer = client.Patch(where.path, body.dump(), "application/json");
                REQUIRE_MESSAGE(answer, "PATCH ", url, " failed");
                INFO("PATCH ", url, " ", body.dump(), " -> ", answer->status, " ", answer->body);
                REQUIRE(answer->status == 200);
                auto document = json::parse(answer->body);
                CHECK(mxlConnectionErrors(schema, document, true) == "");
                return document;
            }

            json query(std::string const& kind)
            {
                return get(fmt::format("http://{}:{}/x-nmos/query/v1.3/{}/", _registry.host, _registry.port, kind));
            }

            // The Connection API (v1.2) of the device holding `endpoint`, as its controls name it.
            std::string connectionApiOf(json const& endpoint)
            {
                auto const device = get(fmt::format("http://{}:{}/x-nmos/query/v1.3/devices/{}", _registry.host, _registry.port,
                                                    endpoint["device_id"].get<std::string>()));
                auto const& controls = device["controls"];
                auto const found = std::ranges::find_if(controls, [](json const& control)
                                                        { return control["type"] == "urn:x-nmos:control:sr-ctrl/v1.2"; });
                REQUIRE_MESSAGE(found != controls.end(), "device ", device.dump(), " names no IS-05 v1.2 Connection API");
                return (*found)["href"].get<std::string>();
            }

        private:
            Url _registry;
        };

        // What a controller copies from the sender's leg into the receiver's: BCP-007-03's two and the hop's own
        // ext_mxl_sender_api (the parameters both have).
        // A controller that knows only BCP-007-03 copies the first two; the target then finds the sender through the
        // registry's Query API.
        json receiverParamsOf(json const& senderLeg, bool withSenderApi)
        {
            json leg;
            for (auto const* name : {"mxl_domain_id", "mxl_flow_id", "ext_mxl_sender_api"})
            {
                if (withSenderApi || std::string{name} != "ext_mxl_sender_api")
                {
                    leg[name] = senderLeg.at(name);
                }
            }
            return json::array({leg});
        }

        Settings registered(Settings settings, std::string const& url)
        {
            settings.emplace_back("nmos_registry", url);
            settings.emplace_back("nmos_heartbeat_s", "1");
            return settings;
        }

        Settings unconnectedInitiator(ServiceDirectories const& directories)
        {
            auto settings = initiatorSettings(directories, "");
            std::erase_if(settings, [](auto const& setting) { return setting.first == "ticket"; });
            settings.emplace_back("http_listen", "127.0.0.1:0");
            return settings;
        }
    }

    namespace
    {
        // The controller's whole path; `withSenderApi`: whether it copies the hop's ext_mxl_sender_api too.
        void connectThroughRegistry(bool withSenderApi)
        {
            RegistryProcess registry;
            ServiceDirectories directories;
            PatternSource source{directories.source.path(), serviceTestFlow()};
            ServiceProcess target{registered(targetSettings(directories), registry.url())};
            ServiceProcess initiator{registered(unconnectedInitiator(directories), registry.url())};
            REQUIRE(initiator.waitForLine("waiting for an IS-05 activation of sender", 10s));

            Controller controller{registry.url()};
            // Both services appear in the registry: a sender of the flow and a receiver of its format.
            json sender;
            json receiver;
            auto const deadline = std::chrono::steady_clock::now() + 20s;
            while (std::chrono::steady_clock::now() < deadline)
            {
                auto const senders = controller.query("senders");
                auto const receivers = controller.query("receivers");
                auto const ours = std::ranges::find_if(senders, [](json const& one) { return one["flow_id"] == serviceTestFlowId; });
                if (ours != senders.end() && receivers.size() == 1)
                {
                    sender = *ours;
                    receiver = receivers[0];
                    break;
                }
                std::this_thread::sleep_for(100ms);
            }
            REQUIRE_MESSAGE(sender.is_object(), "the registry never held the initiator's sender");
            REQUIRE_MESSAGE(receiver.is_object(), "the registry never held the target's receiver");
            auto const flow = controller.get(fmt::format("{}/x-nmos/query/v1.3/flows/{}", registry.url(), serviceTestFlowId));
            CHECK(receiver["format"] == flow["format"]);
            CHECK(receiver["caps"]["media_types"][0] == flow["media_type"]);
            CHECK(receiver["subscription"]["active"] == false);
            CHECK(sender["subscription"]["active"] == false);

            auto const senderApi = fmt::format("{}single/senders/{}/", controller.connectionApiOf(sender), sender["id"].get<std::string>());
            auto const receiverApi =
                fmt::format("{}single/receivers/{}/", controller.connectionApiOf(receiver), receiver["id"].get<std::string>());
            auto const senderActive = controller.get(senderApi + "active");
            CHECK(mxlConnectionErrors("is-05-v1.2/sender-response-schema.json", senderActive, false) == "");

            // As IS-05 has it: the sender is enabled for the receiver, then the receiver takes the sender's parameters.
            controller.patch(senderApi + "staged",
                             {{"receiver_id", receiver["id"]}, {"master_enable", true}, {"activation", {{"mode", "activate_immediate"}}}},
                             "is-05-v1.2/sender-response-schema.json");
            auto const connected =
                controller.patch(receiverApi + "staged",
                                 {{"sender_id", sender["id"]},
                                  {"master_enable", true},
                                  {"transport_params", receiverParamsOf(senderActive["transport_params"][0], withSenderApi)},
                                  {"activation", {{"mode", "activate_immediate"}}}},
                                 "is-05-v1.2/receiver-response-schema.json");
            CHECK(connected["master_enable"] == true);
            // BCP-007-03: the receiver now names the sender's domain and the flow, which the target receives into.
            auto const receiverActive = controller.get(receiverApi + "active");
            CHECK(receiverActive["transport_params"][0]["mxl_flow_id"] == serviceTestFlowId);
            CHECK(receiverActive["transport_params"][0]["mxl_domain_id"] == senderActive["transport_params"][0]["mxl_domain_id"]);

            FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
            auto const flowing = verifier.check(50, 20s);
            CHECK(flowing.mismatched == 0);
            REQUIRE(flowing.verified >= 50);
            if (!withSenderApi)
            {
                CHECK(target.waitForLine(fmt::format("IS-05: sender {} found in the Query API", sender["id"].get<std::string>()), 5s));
            }

            // The registry shows the connection, as the Node APIs do.
            auto const connectedInRegistry = [&]
            {
                auto const held =
                    controller.get(fmt::format("{}/x-nmos/query/v1.3/receivers/{}", registry.url(), receiver["id"].get<std::string>()));
                return held["subscription"] == json{{"sender_id", sender["id"]}, {"active", true}};
            };
            auto const registryDeadline = std::chrono::steady_clock::now() + 20s;
            while (!connectedInRegistry() && std::chrono::steady_clock::now() < registryDeadline)
            {
                std::this_thread::sleep_for(100ms);
            }
            CHECK(connectedInRegistry());

            controller.patch(senderApi + "staged", {{"master_enable", false}, {"activation", {{"mode", "activate_immediate"}}}},
                             "is-05-v1.2/sender-response-schema.json");
            REQUIRE(initiator.waitForLine("IS-05: master_enable false: sending stopped", 10s));
            // Catching up with what arrived before the stop (and the grains in flight at it), then three seconds, which at
            // 50 grains/s would bring 150 grains.
            CHECK(verifier.check(1000, 1s).mismatched == 0);
            auto const afterStop = verifier.check(150, 3s);
            CHECK(afterStop.mismatched == 0);
            CHECK(afterStop.verified <= 1);
        }
    }

    TEST_CASE("controller path: a client speaking only IS-04 and IS-05 finds both services through the registry and their "
              "devices' controls, connects them, grains move byte-exact, and the sender's master_enable false stops them")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        connectThroughRegistry(true);
    }

    TEST_CASE("controller path: a controller that copies only BCP-007-03's parameters and the sender_id connects the pair too: the "
              "target finds the sender's Connection API in the registry's Query API")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        connectThroughRegistry(false);
    }
}
