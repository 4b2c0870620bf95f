// An NMOS node of one sender or receiver, as the tools run one: the IS-04 Node API and the IS-05 Connection API on one
// HTTP endpoint beside the owner's own resources, and, once asked, registration with a registry. The owner takes
// activations up in its own loop (takeActivated()); the Node API and the registry show them from then on.
#pragma once

#include "ConnectionApi.hpp"
#include "NodeApi.hpp"
#include "Registration.hpp"

#include <HttpEndpoint.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mxl::nmos
{
    class Node
    {
    public:
        // The gate in front of the endpoint (authorization), made once the sender's or receiver's id is known.
        using GateOf = std::function<HttpGate(std::string const& endpointId)>;

        // Throws std::invalid_argument when the flow definition cannot be described for NMOS, ListenError when the
        // endpoint cannot listen at `listen`. `masterEnable` is the Connection API's initial master_enable. The service's
        // `domain` is part of the resources' ids.
        Node(Role role, std::string const& flowDefinition, std::filesystem::path const& domain, ListenAddress const& listen,
             bool masterEnable, ConnectionApi::ParamsOf params, std::map<std::string, HttpResource> resources, GateOf gateOf = {});

        // The port the endpoint listens on (the one chosen for port 0).
        [[nodiscard]] std::uint16_t port() const noexcept
        {
            return _http->port();
        }

        [[nodiscard]] HttpEndpoint& http() noexcept
        {
            return *_http;
        }

        // The id of the sender or receiver, the same in both APIs.
        [[nodiscard]] std::string const& endpointId() const noexcept
        {
            return _node->endpointId();
        }

        // Registers the Node API's resources with `registry` from now on, and withdraws them when this ends.
        void registerWith(RegistryAddress registry);

        // The active document of an activation not taken yet, or nullopt. Its subscription is in the Node API and on its
        // way to the registry when this returns.
        std::optional<nlohmann::json> takeActivated();

    private:
        std::unique_ptr<NodeApi> _node;
        std::unique_ptr<ConnectionApi> _connection;
        std::unique_ptr<HttpEndpoint> _http;
        std::unique_ptr<Registration> _registration;
    };
}
