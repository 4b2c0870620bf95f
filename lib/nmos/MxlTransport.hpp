// The MXL transport of AMWA BCP-007-03 ("NMOS With MXL") as the services use it: the transport URN, the two parameters
// every MXL sender and receiver has (`mxl_domain_id`, `mxl_flow_id`) with their null and "auto" rules, and a
// receiver's BCP-004-01 constraint set for the one flow it can take.
//
// A service's sender or receiver is the fabrics hop between two hosts, an MXL flow leaving one domain and arriving in
// another: its own parameters (the sender's Connection API, the target's ticket) are `ext_` names beside these two.
#pragma once

#include "ConnectionResource.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::nmos
{
    inline constexpr char const* mxlTransport = "urn:x-nmos:transport:mxl";

    // mxl_domain_id and mxl_flow_id of the sender (an initiator) or receiver (a target) of MXL flow `flowId`, in the
    // domain whose domain_def.json id is `domainId` (nullopt where the domain has no usable identity).
    //
    // Sender: both name its own domain and flow; null, "auto" (resolved to them) or the same values are accepted.
    // Receiver: mxl_flow_id is null or the flow it receives (never "auto"); mxl_domain_id names the sender's domain,
    // which a controller copies from the sender (any MXL UUID), or "auto" (resolved to the receiver's own domain).
    std::vector<TransportParam> mxlParams(Role role, std::optional<std::string> const& domainId, std::string const& flowId);

    // The hop's own parameter on both ends, ext_mxl_sender_api: on a sender, the URL of its own Connection API resource
    // `resourceUrl` (read only); on a receiver (resourceUrl empty), the sender to connect, as the sender names it, or null.
    TransportParam senderApiParam(Role role, std::string const& resourceUrl);

    // The id of the sender whose ext_mxl_sender_api is `url` (its resource, .../single/senders/<id>/), or nullopt
    // where the URL names none.
    std::optional<std::string> senderIdOfApi(std::string_view url);

    // The BCP-004-01 constraint set of a receiver that takes only flows like `flowDefinition` (media type, rates,
    // dimensions, channels), with the IS-04 caps version it needs.
    nlohmann::json receiverConstraintSet(nlohmann::json const& flowDefinition);
}
