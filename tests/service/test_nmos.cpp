// The services' NMOS Node API over real HTTP: every path a controller reads, from a running target and initiator,
// valid against AMWA's IS-04 v1.3 schemas, and describing the flow the pair moves.
#include "SchemaCheck.hpp"
#include "ServiceScenario.hpp"
#include "Skip.hpp"
#include "TestFlow.hpp"

#include <DomainDefinition.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using json = nlohmann::json;

        json get(httplib::Client& client, std::string const& path)
        {
            auto const result = client.Get(path);
            REQUIRE_MESSAGE(result, "GET ", path, " failed");
            INFO("GET ", path, " -> ", result->status, " ", result->body);
            REQUIRE(result->status == 200);
            CHECK(result->get_header_value("Content-Type") == "application/json");
            return json::parse(result->body);
        }

        void checkSchema(std::string const& schema, json const& document)
        {
            INFO(schema, ": ", document.dump());
            CHECK(schemaErrors(schema, document) == "");
        }

        // Walks the Node API from its root as a controller would, validating each answer; returns the collections.
        std::map<std::string, json> walkNodeApi(int port)
        {
            httplib::Client client{"127.0.0.1", port};
            client.set_read_timeout(10, 0);
            CHECK(get(client, "/x-nmos/") == json{"node/", "connection/"});
            CHECK(get(client, "/x-nmos/node/") == json{"v1.3/"});
            checkSchema("is-04-v1.3/nodeapi-base.json", get(client, "/x-nmos/node/v1.3/"));
            std::map<std::string, json> collections;
            auto const self = get(client, "/x-nmos/node/v1.3/self");
            checkSchema("is-04-v1.3/node.json", self);
            CHECK(self["api"]["endpoints"][0]["port"] == port);
            collections["self"] = self;
            for (auto const* kind : {"devices", "sources", "flows", "senders", "receivers"})
            {
                auto const all = get(client, fmt::format("/x-nmos/node/v1.3/{}/", kind));
                checkSchema(fmt::format("is-04-v1.3/{}.json", kind), all);
                for (auto const& resource : all)
                {
                    auto const one = get(client, fmt::format("/x-nmos/node/v1.3/{}/{}", kind, resource["id"].get<std::string>()));
                    CHECK(one == resource);
                    checkSchema(fmt::format("is-04-v1.3/{}.json", std::string{kind}.substr(0, std::string{kind}.size() - 1)), one);
                }
                collections[kind] = all;
            }
            auto const missing = client.Get("/x-nmos/node/v1.3/flows/00000000-0000-4000-8000-000000000000");
            REQUIRE(missing);
            CHECK(missing->status == 404);
            return collections;
        }
    }

    TEST_CASE("nmos: a running target and initiator serve valid IS-04 v1.3 Node APIs describing the flow they move")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        NotifySocket targetNotify;
        ServiceProcess target{targetSettings(directories), notifyEnvironment(targetNotify)};
        auto const targetPort = target.httpPort();
        REQUIRE(targetNotify.waitFor("READY=1", 10s));
        auto initiatorSettingsWithHttp = initiatorSettings(directories, directories.ticketFile());
        initiatorSettingsWithHttp.emplace_back("http_listen", "127.0.0.1:0");
        NotifySocket initiatorNotify;
        ServiceProcess initiator{initiatorSettingsWithHttp, notifyEnvironment(initiatorNotify)};
        auto const initiatorPort = initiator.httpPort();
        REQUIRE(initiatorNotify.waitFor("READY=1", 10s));

        auto const receiving = walkNodeApi(targetPort);
        auto const sending = walkNodeApi(initiatorPort);
        REQUIRE(receiving.at("receivers").size() == 1);
        CHECK(receiving.at("senders").empty());
        REQUIRE(sending.at("senders").size() == 1);
        CHECK(sending.at("receivers").empty());
        // The sender describes the MXL flow by its own id; the target leaves the flow to the sender's node.
        CHECK(sending.at("flows")[0]["id"] == serviceTestFlowId);
        CHECK(sending.at("senders")[0]["flow_id"] == serviceTestFlowId);
        CHECK(sending.at("sources")[0]["grain_rate"] == sending.at("flows")[0]["grain_rate"]);
        CHECK(receiving.at("flows").empty());
        CHECK(receiving.at("sources").empty());
        CHECK(receiving.at("receivers")[0]["transport"] == "urn:x-nmos:transport:mxl");
        CHECK(receiving.at("self")["id"] != sending.at("self")["id"]);
        // IS-04 subscriptions show IS-05's master_enable: the target starts unconnected, the initiator with its ticket.
        CHECK(receiving.at("receivers")[0]["subscription"]["active"] == false);
        CHECK(sending.at("senders")[0]["subscription"]["active"] == true);

        // A controller finds the Connection API of each version through the device's controls, and there the same
        // sender or receiver as in the Node API.
        for (auto const& [collections, kind] : {std::pair{&receiving, "receivers"}, std::pair{&sending, "senders"}})
        {
            auto const& controls = collections->at("devices")[0]["controls"];
            REQUIRE(controls.size() == 2);
            for (auto const& control : controls)
            {
                auto const type = control["type"].get<std::string>();
                auto const href = control["href"].get<std::string>();
                INFO(type, " ", href);
                auto const version = type.substr(type.rfind('/') + 1);
                CHECK(href.ends_with(fmt::format("/x-nmos/connection/{}/", version)));
                auto const base = href.substr(href.find("/x-nmos/"));
                httplib::Client client{"127.0.0.1", collections == &receiving ? targetPort : initiatorPort};
                client.set_read_timeout(10, 0);
                CHECK(get(client, base) == json{"bulk/", "single/"});
                auto const id = collections->at(kind)[0]["id"].get<std::string>();
                CHECK(get(client, fmt::format("{}single/{}/", base, kind)) == json::array({id + "/"}));
                auto const active = get(client, fmt::format("{}single/{}/{}/active", base, kind, id));
                CHECK(active["master_enable"] == collections->at(kind)[0]["subscription"]["active"]);
            }
        }
        // Each service's domain has its identity (BCP-007-03's mxl_domain_id), and the journal names it.
        for (auto const& [domain, service] : {std::pair{&directories.destination, &target}, std::pair{&directories.source, &initiator}})
        {
            auto const definition = json::parse(readFile(domain->path() / "domain_def.json"));
            CHECK(nmos::isMxlUuid(definition["id"].get<std::string>()));
            // Printed before the HTTP endpoint's line, which the port was read from.
            CHECK(service->output().find(fmt::format("MXL domain '{}': id {}", domain->str(), definition["id"].get<std::string>())) !=
                  std::string::npos);
        }
        CHECK(json::parse(readFile(directories.destination.path() / "domain_def.json"))["id"] !=
              json::parse(readFile(directories.source.path() / "domain_def.json"))["id"]);

        httplib::Client client{"127.0.0.1", targetPort};
        client.set_read_timeout(10, 0);
        CHECK(get(client, "/x-nmos/connection/") == json{"v1.1/", "v1.2/"});
        auto const unknownVersion = client.Get("/x-nmos/connection/v1.0/");
        REQUIRE(unknownVersion);
        CHECK(unknownVersion->status == 404);
        CHECK(json::parse(unknownVersion->body)["code"] == 404);
    }
}

namespace mxl::test
{
    TEST_CASE("nmos: a domain_def.json that cannot be used is reported naming the file and the field, left alone, and grains move")
    {
        using namespace std::chrono_literals;
        ServiceDirectories directories;
        auto const bad = std::string{R"({"id": "not-a-uuid", "label": "Studio A"})"};
        {
            std::ofstream{directories.destination.path() / "domain_def.json"} << bad;
        }
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile())};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        auto const result = verifier.check(25, 10s);
        CHECK(result.mismatched == 0);
        CHECK(result.verified >= 25);
        auto const file = (directories.destination.path() / "domain_def.json").string();
        CHECK(target.waitForLine(fmt::format("has no usable identity: '{}': \"id\" is \"not-a-uuid\"", file), 5s));
        CHECK(readFile(directories.destination.path() / "domain_def.json") == bad);
    }
}
