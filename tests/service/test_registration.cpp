// IS-04 v1.3 registration of the services with a registry (tests/nmos/registry.py, which refuses any body invalid
// against AMWA's schemas): a target and an initiator register their Node API's resources parents first and heartbeat
// (the flow once, by the initiator, whose flow it is);
// they register again after the registry restarted empty while grains keep moving; SIGTERM deletes their resources,
// children first; an unreachable registry is logged once and changes nothing else; an IS-05 activation registers the
// receiver and the sender again with their new subscriptions and newer versions.
#include "RegistryProcess.hpp"
#include "SchemaCheck.hpp"
#include "ServiceScenario.hpp"
#include "Skip.hpp"
#include "TestFlow.hpp"

#include <NodeResources.hpp>
#include <TaiText.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using json = nlohmann::json;

        // (type, document) as the Node API serves them, parents first: what the registry must hold for the service.
        using Resources = std::vector<std::pair<std::string, json>>;

        json nodeApiGet(httplib::Client& client, std::string const& path)
        {
            auto const result = client.Get(path.c_str());
            REQUIRE_MESSAGE(result, "GET ", path, " failed");
            REQUIRE(result->status == 200);
            return json::parse(result->body);
        }

        // A sender's node registers node, device, source, flow and sender; a receiver's node, device and receiver (the
        // flow is the sender's).
        Resources nodeApiResources(int port, bool sender)
        {
            httplib::Client client{"127.0.0.1", port};
            client.set_read_timeout(10, 0);
            Resources resources{{"node", nodeApiGet(client, "/x-nmos/node/v1.3/self")}};
            auto const kinds = sender ? std::vector<char const*>{"devices", "sources", "flows", "senders"}
                                      : std::vector<char const*>{"devices", "receivers"};
            for (auto const* kind : kinds)
            {
                auto const all = nodeApiGet(client, fmt::format("/x-nmos/node/v1.3/{}/", kind));
                REQUIRE(all.size() == 1);
                resources.emplace_back(std::string{kind}.substr(0, std::string{kind}.size() - 1), all[0]);
            }
            return resources;
        }

        std::string idOf(json const& document)
        {
            return document["id"].get<std::string>();
        }

        // Where the registry holds `id`, or -1.
        int positionOf(json const& held, std::string const& id)
        {
            for (std::size_t at = 0; at < held.size(); ++at)
            {
                if (held[at]["data"]["id"] == id)
                {
                    return static_cast<int>(at);
                }
            }
            return -1;
        }

        bool holdsAll(json const& held, Resources const& resources)
        {
            return std::ranges::all_of(resources, [&](auto const& resource) { return positionOf(held, idOf(resource.second)) >= 0; });
        }

        bool holdsNone(json const& held, Resources const& resources)
        {
            return std::ranges::none_of(resources, [&](auto const& resource) { return positionOf(held, idOf(resource.second)) >= 0; });
        }

        // The registry holds each resource under its type with the Node API's document, parents registered before
        // children, and each document valid against AMWA's schema of its type.
        void checkRegistered(json const& held, Resources const& resources)
        {
            int previous = -1;
            for (auto const& [type, document] : resources)
            {
                INFO(type, " ", idOf(document), " in ", held.dump());
                auto const at = positionOf(held, idOf(document));
                REQUIRE(at >= 0);
                CHECK(held[at]["type"] == type);
                CHECK(held[at]["data"] == document);
                CHECK(at > previous);
                previous = at;
                CHECK(schemaErrors(fmt::format("is-04-v1.3/{}.json", type), held[at]["data"]) == "");
            }
        }

        std::size_t countEvents(json const& events, std::string const& kind, std::string const& id, int status)
        {
            return static_cast<std::size_t>(
                std::ranges::count_if(events, [&](json const& event)
                                      { return event["kind"] == kind && event.value("id", "") == id && event["status"] == status; }));
        }

        Settings withRegistry(Settings settings, std::string const& url)
        {
            settings.emplace_back("nmos_registry", url);
            settings.emplace_back("nmos_heartbeat_s", "1");
            return settings;
        }

        Settings initiatorWithHttp(ServiceDirectories const& directories, std::optional<std::string> const& ticket)
        {
            auto settings = initiatorSettings(directories, ticket.value_or(""));
            if (!ticket)
            {
                std::erase_if(settings, [](auto const& setting) { return setting.first == "ticket"; });
            }
            settings.emplace_back("http_listen", "127.0.0.1:0");
            return settings;
        }

        // A loopback port nobody listens on: bound, then released.
        int unusedPort()
        {
            auto const fd = ::socket(AF_INET, SOCK_STREAM, 0);
            REQUIRE(fd >= 0);
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
            socklen_t length = sizeof address;
            REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
            ::close(fd);
            return ntohs(address.sin_port);
        }

        struct Answer
        {
            int status = 0;
            json body;
            std::string location;
        };

        Answer send(httplib::Client& client, std::string const& method, std::string const& path, std::string const& body = "")
        {
            auto const result = method == "POST"     ? client.Post(path.c_str(), body, "application/json")
                                : method == "DELETE" ? client.Delete(path.c_str())
                                                     : client.Get(path.c_str());
            REQUIRE_MESSAGE(result, method, " ", path, " failed");
            return {result->status, json::parse(result->body, nullptr, false), result->get_header_value("Location")};
        }

        // An NMOS error document with `status`, valid against IS-04's error schema, whose message contains `says`.
        void checkError(Answer const& answer, int status, std::string const& says)
        {
            INFO(answer.status, " ", answer.body.dump());
            CHECK(answer.status == status);
            CHECK(answer.body["code"] == status);
            CHECK(answer.body["error"].get<std::string>().find(says) != std::string::npos);
            CHECK(schemaErrors("is-04-v1.3/error.json", answer.body) == "");
        }

        // The documents of a sender's node for the test flow, as the services make them.
        nmos::NodeResources senderResources()
        {
            std::ifstream file{serviceTestFlow()};
            std::stringstream text;
            text << file.rdbuf();
            nmos::NodeDescription description;
            description.role = nmos::Role::Sender;
            description.hostname = "registry-test";
            description.apiHost = "127.0.0.1";
            description.apiPort = 8471;
            description.flowDefinition = json::parse(text.str());
            description.version = "1764072000:0";
            return nmos::NodeResources{description};
        }

        // A target and an initiator moving the test flow, both registering with `registryUrl`.
        struct RegisteredPair
        {
            ServiceDirectories directories;
            PatternSource source{directories.source.path(), serviceTestFlow()};
            NotifySocket targetNotify;
            ServiceProcess target;
            int targetPort;
            ServiceProcess initiator;
            int initiatorPort;

            explicit RegisteredPair(std::string const& registryUrl)
                : target{withRegistry(targetSettings(directories), registryUrl), notifyEnvironment(targetNotify)}
                , targetPort{target.httpPort()}
                , initiator{withRegistry(initiatorWithHttp(directories, directories.ticketFile()), registryUrl)}
                , initiatorPort{initiator.httpPort()}
            {
                REQUIRE(targetPort != 0);
                REQUIRE(initiatorPort != 0);
                REQUIRE(targetNotify.waitFor("READY=1", 10s));
            }
        };

        // A registry, a pair registered with it, and what the target's Node API serves.
        struct RegistrationScene
        {
            RegistryProcess registry;
            RegisteredPair pair{registry.url()};
            Resources receiving = nodeApiResources(pair.targetPort, false);
            std::string targetNode = idOf(receiving[0].second);

            RegistrationScene() = default;
            // The registry forgets nodes `expiry` after their last heartbeat.
            explicit RegistrationScene(std::chrono::milliseconds expiry)
                : registry{0, expiry}
            {
            }
        };
    }

    TEST_CASE("registration: an initiator registers node, device, source, flow and sender, a target node, device and receiver, "
              "parents first, both heartbeat, and SIGTERM deletes them children first")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        RegistrationScene scene;
        auto& [registry, pair, receiving, targetNode] = scene;
        auto const sending = nodeApiResources(pair.initiatorPort, true);
        auto const held =
            registry.waitForResources([&](json const& all) { return holdsAll(all, receiving) && holdsAll(all, sending); }, 20s);
        CHECK(held.size() == 8);
        checkRegistered(held, receiving);
        checkRegistered(held, sending);
        CHECK(pair.target.waitForLine(
            fmt::format("NMOS registry {}: node {} registered (node, device, receiver)", registry.url(), idOf(receiving[0].second)), 10s));

        auto const initiatorNode = idOf(sending[0].second);
        auto const events = registry.waitForEvents(
            [&](json const& all)
            { return countEvents(all, "heartbeat", targetNode, 200) >= 2 && countEvents(all, "heartbeat", initiatorNode, 200) >= 2; },
            20s);
        CHECK(std::ranges::none_of(events, [](json const& event) { return event["kind"] == "rejected"; }));
        for (auto const& [type, document] : receiving)
        {
            CHECK(countEvents(events, "post", idOf(document), 201) == 1);
        }

        pair.target.signal(SIGTERM);
        REQUIRE(pair.target.wait(15s) == std::optional<int>{0});
        auto const afterStop = registry.resources();
        CHECK(holdsNone(afterStop, receiving));
        CHECK(holdsAll(afterStop, sending));
        std::vector<std::string> deleted;
        for (auto const& event : registry.events())
        {
            if (event["kind"] == "delete")
            {
                CHECK(event["status"] == 204);
                deleted.push_back(event["id"].get<std::string>());
            }
        }
        // Children first: receiver, device, node.
        CHECK(deleted == std::vector<std::string>{idOf(receiving[2].second), idOf(receiving[1].second), targetNode});
        CHECK(pair.target.output().find(fmt::format("node {} and its resources deleted (3 resources", targetNode)) != std::string::npos);
    }

    TEST_CASE("registration: after the registry restarts empty, the services register everything again, and grains keep moving "
              "meanwhile")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        std::optional<RegistryProcess> registry{std::in_place};
        auto const port = registry->port();
        RegisteredPair pair{registry->url()};
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        auto const receiving = nodeApiResources(pair.targetPort, false);
        auto const sending = nodeApiResources(pair.initiatorPort, true);
        registry->waitForResources([&](json const& all) { return holdsAll(all, receiving) && holdsAll(all, sending); }, 20s);
        requireFlowing(verifier, 25, "before the registry stops");

        registry->kill();
        registry.reset();
        // Heartbeats fail for a while: grains do not notice.
        REQUIRE(pair.target.waitForLine("heartbeat failed", 10s));
        requireFlowing(verifier, 50, "while the registry is down");

        registry.emplace(port);
        CHECK(registry->resources().size() <= 8);
        auto const held =
            registry->waitForResources([&](json const& all) { return holdsAll(all, receiving) && holdsAll(all, sending); }, 30s);
        CHECK(held.size() == 8);
        checkRegistered(held, receiving);
        checkRegistered(held, sending);
        CHECK(std::ranges::none_of(registry->events(), [](json const& event) { return event["kind"] == "rejected"; }));
        requireFlowing(verifier, 25, "after the registry is back");
    }

    TEST_CASE("registration: the test registry answers as IS-04 v1.3's Registration API documents: 201 then 200, 400 for invalid "
              "bodies and missing parents, 409 for an id of another type, 404 for unknown nodes, DELETE, garbage collection")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        RegistryProcess registry;
        httplib::Client client{"127.0.0.1", registry.port()};
        client.set_read_timeout(10, 0);
        std::string const api = "/x-nmos/registration/v1.3";
        auto const base = send(client, "GET", api + "/");
        CHECK(base.status == 200);
        CHECK(schemaErrors("is-04-v1.3/registrationapi-base.json", base.body) == "");

        auto const resources = senderResources();
        auto const post = [&](char const* type, json const& data) {
            return send(client, "POST", api + "/resource", json{{"type", type}, {"data", data}}.dump());
        };
        checkError(post("device", resources.device()), 400, "which is no registered node");
        auto const created = post("node", resources.node());
        CHECK(created.status == 201);
        CHECK(created.location == fmt::format("{}/resource/nodes/{}", api, idOf(resources.node())));
        CHECK(created.body == resources.node());
        CHECK(schemaErrors("is-04-v1.3/registrationapi-resource-response.json", created.body) == "");
        CHECK(post("node", resources.node()).status == 200);
        for (auto const& [type, document] : resources.registrationOrder())
        {
            CHECK(post(type.c_str(), document).status == (type == "node" ? 200 : 201));
        }
        auto impostor = resources.device();
        impostor["id"] = resources.flow()["id"];
        checkError(post("device", impostor), 409, "is registered as a flow");
        checkError(send(client, "POST", api + "/resource", "not json"), 400, "not JSON");
        checkError(post("node", json::object()), 400, "invalid against node.json");
        auto incomplete = resources.endpoint();
        incomplete.erase("transport");
        checkError(post("sender", incomplete), 400, "'transport' is a required property");

        auto const unknownNode = "00000000-0000-4000-8000-000000000000";
        checkError(send(client, "POST", fmt::format("{}/health/nodes/{}", api, unknownNode)), 404, unknownNode);
        auto const health = send(client, "POST", fmt::format("{}/health/nodes/{}", api, idOf(resources.node())));
        CHECK(health.status == 200);
        CHECK(schemaErrors("is-04-v1.3/registrationapi-health-response.json", health.body) == "");

        auto const senderPath = fmt::format("{}/resource/senders/{}", api, idOf(resources.endpoint()));
        CHECK(send(client, "GET", senderPath).body == resources.endpoint());
        CHECK(send(client, "DELETE", senderPath).status == 204);
        checkError(send(client, "DELETE", senderPath), 404, idOf(resources.endpoint()));
        CHECK(registry.resources().size() == 4);

        // A registry that forgets nodes 1 s after their last heartbeat: the node goes, with everything below it.
        RegistryProcess forgetful{0, 1s};
        httplib::Client forgetfulClient{"127.0.0.1", forgetful.port()};
        forgetfulClient.set_read_timeout(10, 0);
        for (auto const& [type, document] : resources.registrationOrder())
        {
            CHECK(send(forgetfulClient, "POST", api + "/resource", json{{"type", type}, {"data", document}}.dump()).status == 201);
        }
        forgetful.waitForResources([](json const& held) { return held.empty(); }, 20s);
        auto const events = forgetful.events();
        CHECK(std::ranges::count_if(
                  events, [&](json const& event)
                  { return event["kind"] == "expired" && event["id"] == idOf(resources.node()) && event["resources"] == 5; }) == 1);
        checkError(send(forgetfulClient, "POST", fmt::format("{}/health/nodes/{}", api, idOf(resources.node()))), 404,
                   idOf(resources.node()));
    }

    TEST_CASE("registration: a node the registry garbage-collected (its service stopped for longer than the expiry) is registered "
              "again after its heartbeat's 404")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        RegistrationScene scene{3s};
        auto& [registry, pair, receiving, targetNode] = scene;
        registry.waitForResources([&](json const& all) { return holdsAll(all, receiving); }, 20s);

        ::kill(pair.target.pid(), SIGSTOP);
        registry.waitForEvents(
            [&](json const& all) {
                return std::ranges::any_of(all, [&](json const& event) { return event["kind"] == "expired" && event["id"] == targetNode; });
            },
            20s);
        ::kill(pair.target.pid(), SIGCONT);
        auto const line = pair.target.waitForLine(fmt::format("the heartbeat of node {} answered 404", targetNode), 20s);
        REQUIRE(line);
        CHECK(line->find(fmt::format("NMOS registry {}", registry.url())) != std::string::npos);
        auto const held = registry.waitForResources([&](json const& all) { return holdsAll(all, receiving); }, 20s);
        checkRegistered(held, receiving);
        CHECK(countEvents(registry.events(), "heartbeat", targetNode, 404) >= 1);
        CHECK(countEvents(registry.events(), "post", targetNode, 201) == 2);
    }

    TEST_CASE("registration: a registry that forgets the node before every heartbeat is registered with at the back-off's pace, and "
              "its 404 logged once")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        // Heartbeats every second, nodes forgotten half a second after their last one: every heartbeat answers 404.
        RegistrationScene scene{500ms};
        auto& [registry, pair, receiving, targetNode] = scene;
        auto const forgotten = [&](json const& all, std::size_t times) { return countEvents(all, "heartbeat", targetNode, 404) >= times; };
        // Three rounds grow the back-off (0.2 s doubling to 5 s) past the heartbeat's second.
        auto const before =
            countEvents(registry.waitForEvents([&](json const& all) { return forgotten(all, 3); }, 30s), "post", targetNode, 201);
        auto const start = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(12s);
        auto const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // At the heartbeat's pace that would be one registration a second; the back-off leaves about one in four.
        auto const registrations = countEvents(registry.events(), "post", targetNode, 201) - before;
        INFO(registrations, " registrations of the node in ", seconds, " s");
        CHECK(registrations >= 2);
        CHECK(static_cast<double>(registrations) <= 0.5 * seconds);
        auto const output = pair.target.output();
        INFO(output);
        CHECK(occurrences(output, "answered 404") == 1);
        CHECK(occurrences(output, "registered (node, device, receiver)") == 1);
    }

    TEST_CASE("registration: a registry nobody listens at is logged once with its URL, and the services move grains as usual")
    {
        auto const url = fmt::format("http://127.0.0.1:{}/x-nmos/registration/v1.3/", unusedPort());
        RegisteredPair pair{url};
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        auto const line = pair.target.waitForLine(fmt::format("NMOS registry {}: cannot register node", url), 10s);
        REQUIRE(line);
        CHECK(line->find("/x-nmos/registration/v1.3/resource failed: cannot connect") != std::string::npos);
        CHECK(pair.initiator.waitForLine(fmt::format("NMOS registry {}: cannot register node", url), 10s));
        requireFlowing(verifier, 100, "with the registry unreachable");
        // Retried with back-off meanwhile, without a line each time.
        auto const output = pair.target.output();
        std::size_t lines = 0;
        for (auto at = output.find("NMOS registry"); at != std::string::npos; at = output.find("NMOS registry", at + 1))
        {
            ++lines;
        }
        CHECK(lines == 1);
    }

    TEST_CASE("registration: an IS-05 activation registers the receiver and the sender again with their subscriptions and newer "
              "versions")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        RegistryProcess registry;
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        NotifySocket targetNotify;
        ServiceProcess target{withRegistry(targetSettings(directories), registry.url()), notifyEnvironment(targetNotify)};
        auto const targetPort = target.httpPort();
        ServiceProcess initiator{withRegistry(initiatorWithHttp(directories, std::nullopt), registry.url())};
        auto const initiatorPort = initiator.httpPort();
        REQUIRE(targetNotify.waitFor("READY=1", 10s));
        REQUIRE(initiator.waitForLine("waiting for an IS-05 activation of sender", 10s));
        auto const receiving = nodeApiResources(targetPort, false);
        auto const sending = nodeApiResources(initiatorPort, true);
        registry.waitForResources([&](json const& all) { return holdsAll(all, receiving) && holdsAll(all, sending); }, 20s);
        auto const receiverId = idOf(receiving.back().second);
        auto const senderId = idOf(sending.back().second);
        CHECK(receiving.back().second["subscription"]["sender_id"].is_null());

        httplib::Client senderApi{"127.0.0.1", initiatorPort};
        senderApi.set_read_timeout(10, 0);
        auto const senderActive = nodeApiGet(senderApi, fmt::format("/x-nmos/connection/v1.1/single/senders/{}/active", senderId));
        json const patch{
            {"sender_id", senderId},
            {"master_enable", true},
            {"transport_params", json::array({{{"ext_mxl_sender_api", senderActive["transport_params"][0]["ext_mxl_sender_api"]}}})},
            {"activation", {{"mode", "activate_immediate"}}}};
        httplib::Client receiverApi{"127.0.0.1", targetPort};
        receiverApi.set_read_timeout(10, 0);
        auto const answer = receiverApi.Patch(fmt::format("/x-nmos/connection/v1.1/single/receivers/{}/staged", receiverId).c_str(),
                                              patch.dump(), "application/json");
        REQUIRE(answer);
        INFO(answer->body);
        REQUIRE(answer->status == 200);

        auto const subscribed = [&](json const& held, std::string const& id, char const* peerKey, std::string const& peer)
        {
            auto const at = positionOf(held, id);
            return at >= 0 && held[at]["data"]["subscription"] == json{{peerKey, peer}, {"active", true}};
        };
        auto const held = registry.waitForResources(
            [&](json const& all)
            { return subscribed(all, receiverId, "sender_id", senderId) && subscribed(all, senderId, "receiver_id", receiverId); },
            20s);
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 25, "after the activation");
        for (auto const& [before, kind] : {std::pair{receiving.back().second, "receivers"}, std::pair{sending.back().second, "senders"}})
        {
            auto const at = positionOf(held, idOf(before));
            REQUIRE(at >= 0);
            auto const& after = held[at]["data"];
            auto const oldVersion = nmos::parseTaiText(before["version"].get<std::string>());
            auto const newVersion = nmos::parseTaiText(after["version"].get<std::string>());
            REQUIRE(oldVersion);
            REQUIRE(newVersion);
            CHECK(*newVersion > *oldVersion);
            CHECK(schemaErrors(fmt::format("is-04-v1.3/{}.json", std::string{kind}.substr(0, std::string{kind}.size() - 1)), after) == "");
            // The Node API serves what the registry holds.
            httplib::Client node{"127.0.0.1", std::string{kind} == "receivers" ? targetPort : initiatorPort};
            CHECK(nodeApiGet(node, fmt::format("/x-nmos/node/v1.3/{}/{}", kind, idOf(before))) == after);
        }
        // Only the changed resources were POSTed again: the node's version stands.
        CHECK(held[positionOf(held, idOf(receiving[0].second))]["data"] == receiving[0].second);
        CHECK(target.output().find(fmt::format("receiver {} registered again", receiverId)) != std::string::npos);
    }
}
