// The service's MXL domain gets its identity (domain_def.json, lib/nmos/DomainDefinition.hpp) at start, and the journal
// says which. A domain_def.json that cannot be used is reported and left alone: the flow moves regardless.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mxl::service
{
    // The domain's id (BCP-007-03's mxl_domain_id), or nullopt where it has none.
    std::optional<std::string> establishDomainIdentity(std::filesystem::path const& domain);
}
