// Where a sender's IS-05 Connection API resource is, as a controller finds it: the sender in the registry's IS-04 Query
// API, its device, and the device's controls (urn:x-nmos:control:sr-ctrl, v1.2 before v1.1). A receiver activated by
// a controller that copies only BCP-007-03's parameters and the sender_id, not the hop's ext_mxl_sender_api, finds the
// sender to hand its ticket to this way.
#pragma once

#include <string>
#include <variant>

namespace mxl::nmos
{
    // An IS-04 v1.3 Query API.
    struct QueryAddress
    {
        // As configured, for messages.
        std::string url;
        // "http://host:port", and the path of the Query API there (ending in /x-nmos/query/v1.3).
        std::string origin;
        std::string apiPath;
    };

    struct LookupFailure
    {
        std::string reason;
    };

    // The resource's URL (http://host:port/x-nmos/connection/v1.x/single/senders/<id>/), or why it was not found.
    // Blocks for up to two requests' timeouts: call it where waiting costs no grain.
    std::variant<std::string, LookupFailure> lookUpSenderConnectionApi(QueryAddress const& query, std::string const& senderId);
}
