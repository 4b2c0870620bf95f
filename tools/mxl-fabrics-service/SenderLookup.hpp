// Where a sender's IS-05 Connection API resource is, as a controller finds it: the sender in the registry's IS-04 Query
// API, its device, and the device's controls (urn:x-nmos:control:sr-ctrl, v1.2 before v1.1). A receiver activated by
// a controller that copies only BCP-007-03's parameters and the sender_id, not the hop's ext_mxl_sender_api, finds the
// sender to hand its ticket to this way.
#pragma once

#include "ServiceConfig.hpp"

#include <string>
#include <variant>

namespace mxl::service
{
    struct LookupFailure
    {
        std::string reason;
    };

    // The resource's URL (http://host:port/x-nmos/connection/v1.x/single/senders/<id>/), or why it was not found.
    // Blocks for up to two requests' timeouts: call it where waiting costs no grain.
    std::variant<std::string, LookupFailure> lookUpSenderConnectionApi(NmosQuery const& query, std::string const& senderId);
}
