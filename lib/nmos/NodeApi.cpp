#include "NodeApi.hpp"

#include "HostName.hpp"
#include <common/BoundedJson.hpp>

#include <fmt/format.h>

#include <stdexcept>

namespace mxl::nmos
{
    NodeApi::NodeApi(Role role, std::string const& flowDefinition, std::filesystem::path const& domain, std::string const& httpHost,
                     bool masterEnable, std::map<std::string, HttpResource>& resources)
    {
        _description.subscription.active = masterEnable;
        _description.role = role;
        _description.hostname = hostName();
        std::error_code unresolved;
        auto const canonical = std::filesystem::weakly_canonical(domain, unresolved);
        _description.domain = (unresolved ? domain : canonical).string();
        _description.apiHost = httpHost.empty() || httpHost == "0.0.0.0" || httpHost == "::" ? _description.hostname : httpHost;
        _description.flowDefinition = mxl::parseJsonOrDiscarded(flowDefinition);
        _description.version = versionNow();
        try
        {
            // Only the paths and the ids are wanted here; they do not depend on the port.
            NodeResources const portless{_description};
            _endpointId = portless.endpoint()["id"].get<std::string>();
            for (auto const& entry : portless.paths())
            {
                auto const& path = entry.first;
                resources[path] = {"application/json",
                                   [this, path]() -> std::optional<std::string>
                                   {
                                       std::lock_guard lock{_mutex};
                                       auto const found = _documents.find(path);
                                       return found == _documents.end() ? std::nullopt : std::optional{found->second};
                                   }};
            }
        }
        catch (std::exception const& error)
        {
            throw std::invalid_argument{fmt::format("the flow cannot be described for NMOS: {}", error.what())};
        }
    }

    void NodeApi::start(std::uint16_t port, bool secure)
    {
        std::lock_guard lock{_mutex};
        _description.apiPort = port;
        _description.apiSecure = secure;
        publish();
    }

    void NodeApi::activated(nlohmann::json const& active)
    {
        auto const peer = active.value(_description.role == Role::Sender ? "receiver_id" : "sender_id", nlohmann::json{});
        std::lock_guard lock{_mutex};
        _description.subscription = {peer.is_string() ? std::optional{peer.get<std::string>()} : std::nullopt,
                                     active.value("master_enable", false), versionNow()};
        publish();
    }

    std::optional<NodeResources> NodeApi::resources() const
    {
        std::lock_guard lock{_mutex};
        return _resources;
    }

    void NodeApi::publish()
    {
        _resources.emplace(_description);
        _documents.clear();
        for (auto const& [path, document] : _resources->paths())
        {
            _documents[path] = document.dump();
        }
    }
}
