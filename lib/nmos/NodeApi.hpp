// The IS-04 v1.3 Node API of a node (NodeResources.hpp) on its HTTP endpoint, at the standard paths below
// /x-nmos/. The documents name the endpoint's port, which is only known once the endpoint is bound (http_listen port
// 0), so the paths are registered first and answer 404 until start() has the port. An IS-05 activation changes the
// Sender's or Receiver's subscription, and with it its version.
#pragma once

#include "HttpRoutes.hpp"

#include "NodeResources.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace mxl::nmos
{
    class NodeApi
    {
    public:
        // Adds every Node API path to `resources`. Throws std::invalid_argument when the flow definition cannot
        // describe a flow. `httpHost` is http_listen's host: a wildcard address is replaced by the host name.
        // `masterEnable` is the Connection API's initial master_enable, which the subscription shows until an activation.
        NodeApi(Role role, std::string const& flowDefinition, std::filesystem::path const& domain, std::string const& httpHost,
                bool masterEnable, std::map<std::string, HttpResource>& resources);

        void start(std::uint16_t port, bool secure);

        // Takes the subscription of an IS-05 active document (ConnectionApi::takeActivated) into the Sender or
        // Receiver, with a new version.
        void activated(nlohmann::json const& active);

        // What the Node API serves now; nullopt before start().
        [[nodiscard]] std::optional<NodeResources> resources() const;

        // The id of the service's Sender or Receiver, which the Connection API shares.
        [[nodiscard]] std::string const& endpointId() const noexcept
        {
            return _endpointId;
        }

        // Where peers reach this endpoint: http_listen's host, or the host name for a wildcard address.
        [[nodiscard]] std::string const& apiHost() const noexcept
        {
            return _description.apiHost;
        }

    private:
        std::string _endpointId;
        mutable std::mutex _mutex;
        NodeDescription _description;
        std::optional<NodeResources> _resources;
        std::map<std::string, std::string> _documents;

        // Builds the documents of `_description`; with _mutex held.
        void publish();
    };
}
