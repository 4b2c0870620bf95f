// The IS-04 v1.3 Node API of one service: a service is an NMOS Node with one Device, whose controls name the IS-05
// Connection API of every version served. An initiator service (sending an MXL flow) has the flow as its Device's
// Source and Flow and one Sender; a target service (receiving into the flow) has one Receiver and describes no Source
// or Flow: the flow's NMOS resources belong to the sending node (the registry holds one resource per id, and the
// target's copy has the same id), so the Node API shows exactly what the service registers. The transport is BCP-007-03's
// `urn:x-nmos:transport:mxl` (MxlTransport.hpp); a Receiver's caps carry a BCP-004-01 constraint set of its flow.
//
// Ids: the Flow keeps the MXL flow's id; the others are name-based UUIDs of the host, the role, the flow and the domain,
// so they stay the same across restarts of the service, and two services of one flow and role on one host (in two
// domains) register apart.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mxl::nmos
{
    // The IS-05 Connection API versions every service serves, oldest first.
    inline constexpr std::array<char const*, 2> connectionApiVersions{"v1.1", "v1.2"};

    enum class Role
    {
        // A target service: receives into its flow.
        Receiver,
        // An initiator service: sends its flow.
        Sender,
    };

    // The IS-04 subscription of the Sender or Receiver, which follows its IS-05 active parameters.
    struct Subscription
    {
        // The Receiver a Sender sends to, or the Sender a Receiver takes from (IS-05 receiver_id / sender_id).
        std::optional<std::string> peerId;
        // IS-05 master_enable, as the Connection API's active document has it.
        bool active = false;
        // The version of the Sender or Receiver once an activation changed it; empty: the description's version.
        std::string version;
    };

    struct NodeDescription
    {
        Role role = Role::Receiver;
        // The machine's name (node label, and part of the ids).
        std::string hostname;
        // The MXL domain's canonical path (part of the ids).
        std::string domain;
        // Where the Node API is reached: an address or name peers can use, and the bound port.
        std::string apiHost;
        std::uint16_t apiPort = 0;
        // HTTPS (BCP-003-01) rather than plain HTTP.
        bool apiSecure = false;
        // The MXL flow definition (NMOS JSON).
        nlohmann::json flowDefinition;
        // "<seconds>:<nanoseconds>" of when the resources were made (IS-04 version).
        std::string version;
        Subscription subscription;
    };

    class NodeResources
    {
    public:
        // Throws std::invalid_argument naming the field when the definition has no id or format.
        explicit NodeResources(NodeDescription const& description);

        [[nodiscard]] nlohmann::json const& node() const noexcept
        {
            return _node;
        }
        [[nodiscard]] nlohmann::json const& device() const noexcept
        {
            return _device;
        }
        // The Source and the Flow: null in a Receiver's node.
        [[nodiscard]] nlohmann::json const& source() const noexcept
        {
            return _source;
        }
        [[nodiscard]] nlohmann::json const& flow() const noexcept
        {
            return _flow;
        }
        // The Sender or the Receiver.
        [[nodiscard]] nlohmann::json const& endpoint() const noexcept
        {
            return _endpoint;
        }

        // The resources as an IS-04 Registration API takes them, (type, document), parents before children: node,
        // device, source, flow and sender; or node, device and receiver.
        [[nodiscard]] std::vector<std::pair<std::string, nlohmann::json>> registrationOrder() const;

        // Every path of the Node API (below /x-nmos/), with and without the trailing slash of collections, and the
        // document it answers with.
        [[nodiscard]] std::map<std::string, nlohmann::json> paths() const;

    private:
        Role _role;
        nlohmann::json _node;
        nlohmann::json _device;
        nlohmann::json _source;
        nlohmann::json _flow;
        nlohmann::json _endpoint;
    };

    // `host` as the host part of a URL: IPv6 addresses in brackets.
    std::string urlHost(std::string const& host);

    // The IS-04 version of now on the TAI clock, "<seconds>:<nanoseconds>".
    std::string versionNow();
}
