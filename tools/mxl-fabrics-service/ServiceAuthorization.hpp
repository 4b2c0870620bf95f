// The service's side of IS-10 (auth_server): one authorization server per process, the gate in front of its HTTP
// endpoint, and its own access tokens (auth_client_id) on every https:// call it makes.
#pragma once

#include "ServiceConfig.hpp"

#include <Node.hpp>

namespace mxl::service
{
    // Where auth_client_id is set: every https:// request of this process carries a token of the client's while this
    // lives.
    class ClientTokens
    {
    public:
        explicit ClientTokens(ServiceConfig const& config);
        ~ClientTokens();

        ClientTokens(ClientTokens const&) = delete;
        ClientTokens& operator=(ClientTokens const&) = delete;
    };

    // The gate of the node's endpoint where auth_server is set, else none. A target's ticket needs the permission to
    // connect its receiver, since whoever holds it can write into the flow.
    nmos::Node::GateOf authorizationGate(ServiceConfig const& config, nmos::Role role);
}
