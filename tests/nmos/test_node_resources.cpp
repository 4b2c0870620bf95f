// The Node API documents of a target (receiver) and an initiator (sender) service, for video, audio and data flows,
// each validated against AMWA's IS-04 v1.3 schema for its path; and the validator shown to reject what is invalid.
#include "SchemaCheck.hpp"
#include "Skip.hpp"
#include "TempDomain.hpp"

#include <NameUuid.hpp>
#include <NodeResources.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

using namespace mxl::nmos;
using mxl::test::readFile;
using mxl::test::schemaCheckUnavailable;
using mxl::test::schemaErrors;
using mxl::test::sourcePath;

namespace
{
    NodeDescription describe(Role role, std::string const& flowFile)
    {
        NodeDescription description;
        description.role = role;
        description.hostname = "studio-a-rx1";
        description.apiHost = "198.51.100.10";
        description.apiPort = 8470;
        description.flowDefinition = nlohmann::json::parse(readFile(sourcePath(flowFile)));
        description.version = "1764072000:123456789";
        return description;
    }

    // The schema each Node API path answers with (nodeapi.raml of IS-04 v1.3).
    std::string schemaOf(std::string const& path)
    {
        auto const below = path.substr(std::string{"/x-nmos/node/v1.3/"}.size());
        auto const slash = below.find('/');
        auto const kind = below.substr(0, slash);
        bool const single = slash != std::string::npos && slash + 1 < below.size();
        if (kind.empty())
        {
            return "is-04-v1.3/nodeapi-base.json";
        }
        if (kind == "self")
        {
            return "is-04-v1.3/node.json";
        }
        auto const singular = kind.substr(0, kind.size() - 1);
        return "is-04-v1.3/" + (single ? singular : kind) + ".json";
    }
}

TEST_CASE("NMOS ids are version-5 UUIDs of their names, the same every time")
{
    auto const id = nameUuid("studio-a-rx1/receiver/5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13");
    CHECK(id == nameUuid("studio-a-rx1/receiver/5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13"));
    CHECK(id != nameUuid("studio-a-rx2/receiver/5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13"));
    REQUIRE(id.size() == 36);
    CHECK(id[14] == '5');
    CHECK(std::string{"89ab"}.find(id[19]) != std::string::npos);
}

TEST_CASE("every Node API document of receivers and senders of video, audio and data flows is valid IS-04 v1.3")
{
    MXL_SKIP_IF(schemaCheckUnavailable());
    std::size_t checked = 0;
    for (auto const role : {Role::Receiver, Role::Sender})
    {
        for (auto const* flow : {"flows/v210_1080p25.json", "flows/audio_48k_16ch.json", "flows/smpte291_59.94.json"})
        {
            auto description = describe(role, flow);
            // MXL definitions may leave out what IS-04 requires (colorspace); the documents must still be valid.
            description.flowDefinition.erase("colorspace");
            NodeResources const resources{description};
            for (auto const& [path, document] : resources.paths())
            {
                if (path.starts_with("/x-nmos/node/v1.3/"))
                {
                    INFO(flow, role == Role::Receiver ? " receiver " : " sender ", path, ": ", document.dump());
                    CHECK(mxl::test::schemaErrors(schemaOf(path), document) == "");
                    ++checked;
                }
            }
        }
    }
    // Every role and flow answers at least node, self, devices, sources, flows and its sender or receiver.
    CHECK(checked >= 36);
}

TEST_CASE("the Node API ties the resources together: the flow keeps the MXL id, every reference resolves")
{
    NodeResources const sender{describe(Role::Sender, "flows/v210_1080p25.json")};
    auto const paths = sender.paths();
    CHECK(sender.flow()["id"] == "5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13");
    CHECK(sender.endpoint()["flow_id"] == sender.flow()["id"]);
    CHECK(sender.flow()["source_id"] == sender.source()["id"]);
    CHECK(sender.flow()["device_id"] == sender.device()["id"]);
    CHECK(sender.source()["device_id"] == sender.device()["id"]);
    CHECK(sender.device()["node_id"] == sender.node()["id"]);
    CHECK(sender.device()["senders"] == nlohmann::json::array({sender.endpoint()["id"]}));
    CHECK(sender.device()["receivers"] == nlohmann::json::array());
    CHECK(sender.endpoint()["transport"] == "urn:x-nmos:transport:mxl");
    CHECK(sender.node()["href"] == "http://198.51.100.10:8470/");
    CHECK(paths.at("/x-nmos/node/v1.3/receivers/") == nlohmann::json::array());
    CHECK(paths.at("/x-nmos/node/v1.3/senders") == nlohmann::json::array({sender.endpoint()}));
    CHECK(paths.at("/x-nmos/node/v1.3/flows/5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13") == sender.flow());
    CHECK(paths.at("/x-nmos/") == nlohmann::json::array({"node/", "connection/"}));

    NodeResources const audio{describe(Role::Sender, "flows/audio_48k_16ch.json")};
    CHECK(audio.source()["channels"].size() == 16);

    NodeResources const receiver{describe(Role::Receiver, "flows/v210_1080p25.json")};
    CHECK(receiver.node()["id"] != sender.node()["id"]);
    CHECK(receiver.device()["receivers"] == nlohmann::json::array({receiver.endpoint()["id"]}));
    CHECK(receiver.device()["senders"] == nlohmann::json::array());
    CHECK(receiver.endpoint()["caps"]["media_types"] == nlohmann::json::array({"video/v210"}));
}

TEST_CASE("two receivers of one flow on one host in two domains have ids of their own, which a restart keeps")
{
    auto describeIn = [](std::string const& domain)
    {
        auto description = describe(Role::Receiver, "flows/v210_1080p25.json");
        description.domain = domain;
        return NodeResources{description};
    };
    auto const first = describeIn("/dev/shm/mxl-a");
    auto const second = describeIn("/dev/shm/mxl-b");
    auto const restarted = describeIn("/dev/shm/mxl-a");
    CHECK(first.node()["id"] != second.node()["id"]);
    CHECK(first.device()["id"] != second.device()["id"]);
    CHECK(first.endpoint()["id"] != second.endpoint()["id"]);
    CHECK(first.node()["id"] == restarted.node()["id"]);
    CHECK(first.device()["id"] == restarted.device()["id"]);
    CHECK(first.endpoint()["id"] == restarted.endpoint()["id"]);
}

TEST_CASE("a target's Node API shows only what it registers: its receiver, no source or flow of the sender's")
{
    NodeResources const receiver{describe(Role::Receiver, "flows/v210_1080p25.json")};
    auto const paths = receiver.paths();
    CHECK(receiver.source().is_null());
    CHECK(receiver.flow().is_null());
    CHECK(paths.at("/x-nmos/node/v1.3/sources/") == nlohmann::json::array());
    CHECK(paths.at("/x-nmos/node/v1.3/flows") == nlohmann::json::array());
    CHECK(paths.count("/x-nmos/node/v1.3/flows/5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13") == 0);
    CHECK(paths.at("/x-nmos/node/v1.3/receivers/") == nlohmann::json::array({receiver.endpoint()}));
    // Every resource the Node API shows is one the registry gets, and the other way round.
    std::set<std::string> registered;
    for (auto const& [type, document] : receiver.registrationOrder())
    {
        registered.insert(document["id"].get<std::string>());
    }
    std::set<std::string> served;
    for (auto const& [path, document] : paths)
    {
        if (document.is_object() && document.contains("id"))
        {
            served.insert(document["id"].get<std::string>());
        }
    }
    CHECK(served == registered);
}

TEST_CASE("the device's controls name the Connection API of each version served, at the node's own address")
{
    for (auto const role : {Role::Receiver, Role::Sender})
    {
        NodeResources const resources{describe(role, "flows/v210_1080p25.json")};
        CHECK(resources.device()["controls"] ==
              nlohmann::json::array(
                  {{{"type", "urn:x-nmos:control:sr-ctrl/v1.1"}, {"href", "http://198.51.100.10:8470/x-nmos/connection/v1.1/"}},
                   {{"type", "urn:x-nmos:control:sr-ctrl/v1.2"}, {"href", "http://198.51.100.10:8470/x-nmos/connection/v1.2/"}}}));
    }
    auto description = describe(Role::Receiver, "flows/v210_1080p25.json");
    description.apiHost = "2001:db8::10";
    NodeResources const ipv6{description};
    CHECK(ipv6.node()["href"] == "http://[2001:db8::10]:8470/");
    CHECK(ipv6.node()["api"]["endpoints"][0]["host"] == "2001:db8::10");
    CHECK(ipv6.device()["controls"][1]["href"] == "http://[2001:db8::10]:8470/x-nmos/connection/v1.2/");
}

TEST_CASE("a node on HTTPS says so in its endpoint's protocol, its href and its device's controls (BCP-003-01)")
{
    auto description = describe(Role::Receiver, "flows/v210_1080p25.json");
    description.apiSecure = true;
    NodeResources const secure{description};
    CHECK(secure.node()["href"] == "https://198.51.100.10:8470/");
    CHECK(secure.node()["api"]["endpoints"] == nlohmann::json::array({{{"host", "198.51.100.10"}, {"port", 8470}, {"protocol", "https"}}}));
    CHECK(secure.device()["controls"][0]["href"] == "https://198.51.100.10:8470/x-nmos/connection/v1.1/");
    CHECK(secure.device()["controls"][1]["href"] == "https://198.51.100.10:8470/x-nmos/connection/v1.2/");
}

TEST_CASE("a source has its flow's grain_rate, and an audio source, whose flow has none, has none")
{
    NodeResources const video{describe(Role::Sender, "flows/v210_1080p25.json")};
    CHECK(video.source()["grain_rate"] == video.flow()["grain_rate"]);
    CHECK(video.source()["grain_rate"] == nlohmann::json{{"numerator", 25}, {"denominator", 1}});
    NodeResources const data{describe(Role::Sender, "flows/smpte291_59.94.json")};
    CHECK(data.source()["grain_rate"] == nlohmann::json{{"numerator", 60000}, {"denominator", 1001}});
    NodeResources const audio{describe(Role::Sender, "flows/audio_48k_16ch.json")};
    CHECK(audio.source().contains("grain_rate") == audio.flow().contains("grain_rate"));
}

TEST_CASE("the schema check rejects invalid documents, naming where")
{
    MXL_SKIP_IF(schemaCheckUnavailable());
    NodeResources const resources{describe(Role::Sender, "flows/v210_1080p25.json")};
    auto node = resources.node();
    node.erase("api");
    CHECK(schemaErrors("is-04-v1.3/node.json", node).find("'api' is a required property") != std::string::npos);
    auto sender = resources.endpoint();
    sender["subscription"].erase("active");
    CHECK(schemaErrors("is-04-v1.3/sender.json", sender).find("at 'subscription': 'active' is a required property") != std::string::npos);
}

TEST_CASE("a video flow definition without colorspace is described as BT709, which IS-04 requires, the rest kept")
{
    auto description = describe(Role::Sender, "flows/v210_1080p25.json");
    description.flowDefinition.erase("colorspace");
    NodeResources const resources{description};
    CHECK(resources.flow()["colorspace"] == "BT709");
    CHECK(resources.flow()["frame_width"] == 1920);
}

TEST_CASE("the registration order puts parents first, the subscription starts as master_enable does, and an activation's "
          "subscription versions only the sender or receiver")
{
    auto description = describe(Role::Receiver, "flows/v210_1080p25.json");
    NodeResources const before{description};
    using Registered = std::vector<std::pair<std::string, nlohmann::json>>;
    CHECK(before.registrationOrder() == Registered{{"node", before.node()}, {"device", before.device()}, {"receiver", before.endpoint()}});
    CHECK(before.endpoint()["subscription"] == nlohmann::json{{"sender_id", nullptr}, {"active", false}});

    description.subscription = {"0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a", true, "1764072001:5"};
    NodeResources const after{description};
    CHECK(after.endpoint()["subscription"] == nlohmann::json{{"sender_id", "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a"}, {"active", true}});
    CHECK(after.endpoint()["version"] == "1764072001:5");
    CHECK(after.node()["version"] == "1764072000:123456789");
    CHECK(after.device() == before.device());

    auto senderDescription = describe(Role::Sender, "flows/v210_1080p25.json");
    senderDescription.subscription = {std::nullopt, false, "1764072002:0"};
    NodeResources const sender{senderDescription};
    CHECK(sender.registrationOrder() == Registered{{"node", sender.node()},
                                                   {"device", sender.device()},
                                                   {"source", sender.source()},
                                                   {"flow", sender.flow()},
                                                   {"sender", sender.endpoint()}});
    CHECK(sender.endpoint()["subscription"] == nlohmann::json{{"receiver_id", nullptr}, {"active", false}});
    if (schemaCheckUnavailable())
    {
        return;
    }
    CHECK(schemaErrors("is-04-v1.3/receiver.json", after.endpoint()) == "");
    CHECK(schemaErrors("is-04-v1.3/sender.json", sender.endpoint()) == "");
}
