#include "NodeResources.hpp"

#include "MxlTransport.hpp"
#include "NameUuid.hpp"
#include "TaiText.hpp"

#include <fmt/format.h>
#include <mxl/time.h>

#include <stdexcept>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        std::string field(json const& definition, char const* name)
        {
            auto const it = definition.find(name);
            if (it == definition.end() || !it->is_string() || it->get_ref<std::string const&>().empty())
            {
                throw std::invalid_argument{fmt::format("the flow definition has no \"{}\"", name)};
            }
            return it->get<std::string>();
        }

        // What IS-04 requires of every resource.
        json core(std::string id, std::string const& version, std::string label, std::string description)
        {
            return json{{"id", std::move(id)},
                        {"version", version},
                        {"label", std::move(label)},
                        {"description", std::move(description)},
                        {"tags", json::object()}};
        }

        json sourceOf(json const& definition, json base, std::string const& deviceId)
        {
            base["format"] = definition["format"];
            base["caps"] = json::object();
            base["device_id"] = deviceId;
            base["parents"] = json::array();
            base["clock_name"] = "clk0";
            if (definition.contains("grain_rate"))
            {
                // IS-04: a Source's grain_rate is that of its Flows when they all share one.
                base["grain_rate"] = definition["grain_rate"];
            }
            if (definition["format"] == "urn:x-nmos:format:audio")
            {
                auto channels = json::array();
                auto const count = definition.value("channel_count", 1U);
                for (unsigned channel = 1; channel <= count; ++channel)
                {
                    channels.push_back({{"label", fmt::format("Channel {}", channel)}});
                }
                base["channels"] = std::move(channels);
            }
            return base;
        }

        json collection(json const& resource)
        {
            return resource.is_null() ? json::array() : json::array({resource});
        }
    }

    std::string urlHost(std::string const& host)
    {
        return host.find(':') == std::string::npos ? host : fmt::format("[{}]", host);
    }

    std::string versionNow()
    {
        return taiText(mxlGetTime());
    }

    NodeResources::NodeResources(NodeDescription const& description)
        : _role{description.role}
    {
        auto const& definition = description.flowDefinition;
        auto const flowId = field(definition, "id");
        auto const format = field(definition, "format");
        auto const label = definition.value("label", flowId);
        auto const roleName = description.role == Role::Receiver ? "receiver" : "sender";
        // One name per service instance: a host runs one service per flow, role and domain.
        auto const name = fmt::format("{}/{}/{}{}", description.hostname, roleName, flowId,
                                      description.domain.empty() ? std::string{} : " in " + description.domain);
        auto const& version = description.version;

        _node =
            core(nameUuid("node/" + name), version, description.hostname,
                 fmt::format("mxl-fabrics-service ({}) of flow {}", description.role == Role::Receiver ? "target" : "initiator", flowId));
        auto const protocol = description.apiSecure ? "https" : "http";
        auto const baseUrl = fmt::format("{}://{}:{}", protocol, urlHost(description.apiHost), description.apiPort);
        _node["href"] = baseUrl + "/";
        _node["hostname"] = description.hostname;
        _node["api"] = {{"versions", {"v1.3"}},
                        {"endpoints", {{{"host", description.apiHost}, {"port", description.apiPort}, {"protocol", protocol}}}}};
        _node["caps"] = json::object();
        _node["services"] = json::array();
        _node["clocks"] = {{{"name", "clk0"}, {"ref_type", "internal"}}};
        _node["interfaces"] = json::array();

        auto const endpointId = nameUuid(std::string{roleName} + "/" + name);
        _device = core(nameUuid("device/" + name), version, label, "MXL fabrics " + std::string{roleName});
        _device["type"] = "urn:x-nmos:device:generic";
        _device["node_id"] = _node["id"];
        _device["senders"] = description.role == Role::Sender ? json::array({endpointId}) : json::array();
        _device["receivers"] = description.role == Role::Receiver ? json::array({endpointId}) : json::array();
        _device["controls"] = json::array();
        for (auto const* apiVersion : connectionApiVersions)
        {
            _device["controls"].push_back({{"type", fmt::format("urn:x-nmos:control:sr-ctrl/{}", apiVersion)},
                                           {"href", fmt::format("{}/x-nmos/connection/{}/", baseUrl, apiVersion)}});
        }

        auto const& subscription = description.subscription;
        auto const peer = subscription.peerId ? json(*subscription.peerId) : json(nullptr);
        _endpoint = core(endpointId, subscription.version.empty() ? version : subscription.version, label,
                         fmt::format("{} of MXL flow {} over the fabric", roleName, flowId));
        _endpoint["transport"] = mxlTransport;
        _endpoint["device_id"] = _device["id"];
        _endpoint["interface_bindings"] = json::array();
        if (description.role == Role::Receiver)
        {
            _endpoint["format"] = format;
            _endpoint["caps"] = {{"media_types", {definition.value("media_type", "application/octet-stream")}},
                                 {"constraint_sets", json::array({receiverConstraintSet(definition)})},
                                 {"version", version}};
            _endpoint["subscription"] = {{"sender_id", peer}, {"active", subscription.active}};
            return;
        }
        _endpoint["flow_id"] = flowId;
        _endpoint["manifest_href"] = nullptr;
        _endpoint["subscription"] = {{"receiver_id", peer}, {"active", subscription.active}};

        _source =
            sourceOf(definition, core(nameUuid("source/" + name), version, label, definition.value("description", "")), _device["id"]);

        _flow = definition;
        _flow["version"] = version;
        _flow["description"] = definition.value("description", "");
        _flow["tags"] = definition.value("tags", json::object());
        _flow["parents"] = definition.value("parents", json::array());
        if (format == "urn:x-nmos:format:video" && !_flow.contains("colorspace"))
        {
            // IS-04 requires it; MXL definitions may leave it out, and then mean BT.709 in practice (docs/tools.md).
            _flow["colorspace"] = "BT709";
        }
        _flow["source_id"] = _source["id"];
        _flow["device_id"] = _device["id"];
    }

    std::vector<std::pair<std::string, json>> NodeResources::registrationOrder() const
    {
        if (_role == Role::Receiver)
        {
            return {{"node", _node}, {"device", _device}, {"receiver", _endpoint}};
        }
        return {{"node", _node}, {"device", _device}, {"source", _source}, {"flow", _flow}, {"sender", _endpoint}};
    }

    std::map<std::string, json> NodeResources::paths() const
    {
        std::map<std::string, json> answers;
        auto const both = [&](std::string const& path, json const& document)
        {
            answers[path] = document;
            answers[path + "/"] = document;
        };
        // The services serve the IS-05 Connection API beside this one (NmosConnectionApi).
        both("/x-nmos", json{"node/", "connection/"});
        both("/x-nmos/node", json{"v1.3/"});
        both("/x-nmos/node/v1.3", json{"self/", "sources/", "flows/", "devices/", "senders/", "receivers/"});
        both("/x-nmos/node/v1.3/self", _node);
        auto const senders = _role == Role::Sender ? _endpoint : json{};
        auto const receivers = _role == Role::Receiver ? _endpoint : json{};
        for (auto const& [kind, resource] : std::initializer_list<std::pair<char const*, json const&>>{
                 {"devices", _device}, {"sources", _source}, {"flows", _flow}, {"senders", senders}, {"receivers", receivers}})
        {
            both(fmt::format("/x-nmos/node/v1.3/{}", kind), collection(resource));
            if (!resource.is_null())
            {
                both(fmt::format("/x-nmos/node/v1.3/{}/{}", kind, resource["id"].get<std::string>()), resource);
            }
        }
        return answers;
    }
}
