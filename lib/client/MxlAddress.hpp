// mxl:// addresses (docs/Addressability): mxl://[host[:port]]/<domain-path>[?id=<uuid>&id=<uuid>...]. The tools work
// on local domains only, so an address naming a host is rejected rather than silently read from this machine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mxl::client
{
    struct MxlAddress
    {
        // The domain directory, percent-decoded.
        std::string domain;
        // Canonical lowercase flow ids in the order given; empty means the whole domain.
        std::vector<std::string> flowIds;
    };

    // Throws ClientError(Usage) naming the address and what was expected when it is malformed or names a host.
    MxlAddress parseMxlAddress(std::string_view address);

    // The address of `flowIds` in the local domain `domain` (no ids: the domain itself).
    std::string formatMxlAddress(std::string_view domain, std::vector<std::string> const& flowIds);
}
