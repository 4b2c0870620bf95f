// Signed, expiring tickets. A signed ticket is the library's ticket JSON plus one member the MXL SDK's parser ignores:
//
//   "signature": {"keyId": "2026-11", "expires": "2026-11-25T18:00:00Z", "mac": "<base64 HMAC-SHA256>"}
//
// The MAC is HMAC-SHA256 with the key's secret over the canonical text of the ticket whose "signature" holds only
// "keyId" and "expires": the JSON with object members sorted by name, no whitespace, as nlohmann::json::dump() writes it.
// Changing any member of the ticket, the expiry or the key id breaks the MAC.
#pragma once

#include "SigningKeys.hpp"

#include <chrono>
#include <string>
#include <variant>

namespace mxl::signing
{
    // Throws std::invalid_argument when the ticket is not a JSON object.
    std::string signTicket(std::string const& ticketJson, SigningKey const& key, std::chrono::system_clock::time_point expires);

    struct VerifiedTicket
    {
        // The ticket without its "signature", as the fabrics library takes it.
        std::string json;
        std::chrono::system_clock::time_point expires;
    };

    struct RefusedTicket
    {
        // Why, naming the key ids and times involved.
        std::string reason;
    };

    // Checks the signature against the current key, or the previous one within its grace period, and the expiry.
    std::variant<VerifiedTicket, RefusedTicket> verifyTicket(std::string const& ticketJson, SigningKeys const& keys,
                                                             std::chrono::system_clock::time_point now);
}
