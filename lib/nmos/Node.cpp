#include "Node.hpp"

namespace mxl::nmos
{
    Node::Node(Role role, std::string const& flowDefinition, std::filesystem::path const& domain, ListenAddress const& listen,
               bool masterEnable, ConnectionApi::ParamsOf params, std::map<std::string, HttpResource> resources, GateOf gateOf)
        : _node{std::make_unique<NodeApi>(role, flowDefinition, domain, listen.host, masterEnable, resources)}
        , _connection{std::make_unique<ConnectionApi>(role, _node->endpointId(), _node->apiHost(), masterEnable, std::move(params))}
    {
        _http =
            std::make_unique<HttpEndpoint>(listen, std::move(resources),
                                           std::map<std::string, HttpHandler>{{ConnectionApi::pathPrefix, [this](HttpRequest const& request)
                                                                               { return _connection->handle(request); }}},
                                           gateOf ? gateOf(_node->endpointId()) : HttpGate{});
        _node->start(_http->port(), _http->secure());
        _connection->start(_http->port(), _http->secure());
    }

    void Node::registerWith(RegistryAddress registry)
    {
        _registration = std::make_unique<Registration>(std::move(registry), *_node);
    }

    std::optional<nlohmann::json> Node::takeActivated()
    {
        auto active = _connection->takeActivated();
        if (active)
        {
            _node->activated(*active);
            if (_registration)
            {
                _registration->resourcesChanged();
            }
        }
        return active;
    }
}
