// A connection of a connection-oriented provider (tcp, verbs): its own endpoint, connected to the target and bound to
// the initiator's completion and event queues. Its connection events carry the token it was made with.
#pragma once

#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/OfiPeer.hpp"
#include "fabrics/core/TransportConnection.hpp"

namespace mxl::fabrics
{
    class RcConnection final : public TransportConnection
    {
    public:
        // Posts the connection request, with `requestData` as its private data; FI_CONNECTED or an error event follows on
        // `events`.
        RcConnection(OfiDomain const& opened, CompletionQueue const& completions, EventQueue const& events, OfiPeer const& peer,
                     std::uint64_t token, std::span<std::uint8_t const> requestData);

        bool write(RemoteWrite const& write, std::uint64_t context) override;
        // Connection events report a lost target.
        [[nodiscard]] std::optional<std::string> check() override;
        void disconnect() noexcept override;

    private:
        Endpoint _endpoint;
        OfiPeer const& _peer;
    };
}
