#include "NmosNodeApi.hpp"

#include <HostName.hpp>
#include <common/BoundedJson.hpp>

#include "ServiceConfig.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mxl::service
{
    NmosNodeApi::NmosNodeApi(nmos::Role role, std::string const& flowDefinition, std::string const& httpHost, bool masterEnable,
                             std::string const& origin, std::map<std::string, HttpResource>& resources)
    {
        _description.subscription.active = masterEnable;
        _description.role = role;
        _description.hostname = nmos::hostName();
        _description.apiHost = httpHost.empty() || httpHost == "0.0.0.0" || httpHost == "::" ? _description.hostname : httpHost;
        _description.flowDefinition = mxl::parseJsonOrDiscarded(flowDefinition);
        _description.version = nmos::versionNow();
        try
        {
            // Only the paths and the ids are wanted here; they do not depend on the port.
            nmos::NodeResources const portless{_description};
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
            throw ConfigError{fmt::format("{}: the flow cannot be described for NMOS: {}", origin, error.what())};
        }
    }

    void NmosNodeApi::start(std::uint16_t port)
    {
        std::lock_guard lock{_mutex};
        _description.apiPort = port;
        publish();
    }

    void NmosNodeApi::activated(nlohmann::json const& active)
    {
        auto const peer = active.value(_description.role == nmos::Role::Sender ? "receiver_id" : "sender_id", nlohmann::json{});
        std::lock_guard lock{_mutex};
        _description.subscription = {peer.is_string() ? std::optional{peer.get<std::string>()} : std::nullopt,
                                     active.value("master_enable", false), nmos::versionNow()};
        publish();
    }

    std::optional<nmos::NodeResources> NmosNodeApi::resources() const
    {
        std::lock_guard lock{_mutex};
        return _resources;
    }

    void NmosNodeApi::publish()
    {
        _resources.emplace(_description);
        _documents.clear();
        for (auto const& [path, document] : _resources->paths())
        {
            _documents[path] = document.dump();
        }
    }
}
