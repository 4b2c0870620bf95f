#include "NmosNodeApi.hpp"

#include "ServiceConfig.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include <unistd.h>

namespace mxl::service
{
    namespace
    {
        std::string hostName()
        {
            std::array<char, 256> name{};
            if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0')
            {
                return "localhost";
            }
            return name.data();
        }
    }

    NmosNodeApi::NmosNodeApi(nmos::Role role, std::string const& flowDefinition, std::string const& httpHost, std::string const& origin,
                             std::map<std::string, HttpResource>& resources)
    {
        _description.role = role;
        _description.hostname = hostName();
        _description.apiHost = httpHost.empty() || httpHost == "0.0.0.0" || httpHost == "::" ? _description.hostname : httpHost;
        _description.flowDefinition = nlohmann::json::parse(flowDefinition, nullptr, false);
        _description.version = nmos::versionNow();
        try
        {
            // Only the paths and the ids are wanted here; they do not depend on the port.
            nmos::NodeResources const portless{_description};
            _endpointId = portless.endpoint()["id"].get<std::string>();
            for (auto const& [path, document] : portless.paths())
            {
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
        _description.apiPort = port;
        std::map<std::string, std::string> documents;
        for (auto const& [path, document] : nmos::NodeResources{_description}.paths())
        {
            documents[path] = document.dump();
        }
        std::lock_guard lock{_mutex};
        _documents = std::move(documents);
    }
}
