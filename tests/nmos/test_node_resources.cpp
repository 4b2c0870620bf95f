// The Node API documents of a target (receiver) and an initiator (sender) service, for video, audio and data flows,
// each validated against AMWA's IS-04 v1.3 schema for its path; and the validator shown to reject what is invalid.
#include "SchemaCheck.hpp"
#include "Skip.hpp"
#include "TempDomain.hpp"

#include <NameUuid.hpp>
#include <NodeResources.hpp>

#include <doctest/doctest.h>

#include <string>

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
    if (auto const why = schemaCheckUnavailable())
    {
        MXL_SKIP(why->c_str());
    }
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
                if (!path.starts_with("/x-nmos/node/v1.3/"))
                {
                    continue;
                }
                INFO(flow, " ", role == Role::Receiver ? "receiver" : "sender", " ", path, ": ", document.dump());
                CHECK(schemaErrors(schemaOf(path), document) == "");
            }
        }
    }
}

TEST_CASE("the Node API ties the resources together: the flow keeps the MXL id, every reference resolves")
{
    NodeResources const receiver{describe(Role::Receiver, "flows/v210_1080p25.json")};
    auto const paths = receiver.paths();
    CHECK(receiver.flow()["id"] == "5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13");
    CHECK(receiver.flow()["source_id"] == receiver.source()["id"]);
    CHECK(receiver.flow()["device_id"] == receiver.device()["id"]);
    CHECK(receiver.device()["node_id"] == receiver.node()["id"]);
    CHECK(receiver.device()["receivers"] == nlohmann::json::array({receiver.endpoint()["id"]}));
    CHECK(receiver.device()["senders"] == nlohmann::json::array());
    CHECK(receiver.endpoint()["transport"] == "urn:x-mxl:transport:fabrics");
    CHECK(receiver.endpoint()["caps"]["media_types"] == nlohmann::json::array({"video/v210"}));
    CHECK(receiver.node()["href"] == "http://198.51.100.10:8470/");
    CHECK(paths.at("/x-nmos/node/v1.3/senders/") == nlohmann::json::array());
    CHECK(paths.at("/x-nmos/node/v1.3/receivers") == nlohmann::json::array({receiver.endpoint()}));
    CHECK(paths.at("/x-nmos/node/v1.3/flows/5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13") == receiver.flow());
    CHECK(paths.at("/x-nmos/") == nlohmann::json::array({"node/", "connection/"}));

    NodeResources const sender{describe(Role::Sender, "flows/audio_48k_16ch.json")};
    CHECK(sender.endpoint()["flow_id"] == sender.flow()["id"]);
    CHECK(sender.source()["channels"].size() == 16);
    CHECK(sender.node()["id"] != receiver.node()["id"]);
}

TEST_CASE("the schema check rejects invalid documents, naming where")
{
    if (auto const why = schemaCheckUnavailable())
    {
        MXL_SKIP(why->c_str());
    }
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
    auto description = describe(Role::Receiver, "flows/v210_1080p25.json");
    description.flowDefinition.erase("colorspace");
    NodeResources const resources{description};
    CHECK(resources.flow()["colorspace"] == "BT709");
    CHECK(resources.flow()["frame_width"] == 1920);
}

TEST_CASE("the registration order puts parents first, leaves the sender's flow to the sender, and an activation's subscription "
          "versions only the sender or receiver")
{
    auto description = describe(Role::Receiver, "flows/v210_1080p25.json");
    NodeResources const before{description};
    using Registered = std::vector<std::pair<std::string, nlohmann::json>>;
    CHECK(before.registrationOrder() == Registered{{"node", before.node()}, {"device", before.device()}, {"receiver", before.endpoint()}});
    CHECK(before.endpoint()["subscription"] == nlohmann::json{{"sender_id", nullptr}, {"active", true}});

    description.subscription = {"0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a", true, "1764072001:5"};
    NodeResources const after{description};
    CHECK(after.endpoint()["subscription"] == nlohmann::json{{"sender_id", "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a"}, {"active", true}});
    CHECK(after.endpoint()["version"] == "1764072001:5");
    CHECK(after.node()["version"] == "1764072000:123456789");
    CHECK(after.flow() == before.flow());

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
